"""`evaluate`'s live progress: JudgeAgent's bar over every question asked, the other protocols' over their
episodes; on a terminal a tqdm bar named by the stage, in a log (nohup, CI) a line per stage with the time
elapsed and the rate."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Self

import typer

from .fields import clock, every_tenth

if TYPE_CHECKING:
    from ..protocols.base import ProgressEvent


def progress_for(protocol: str, quiet: bool, config: Any, benchmark: Any) -> Any:
    """JudgeAgent's bar over every question asked, the others' over their episodes (none with --quiet)."""
    import contextlib

    if quiet:
        return contextlib.nullcontext(None)
    if protocol != "judgeagent":
        return _EpisodeBar()
    from ..protocols.judgeagent.together import batch_count

    batches = batch_count(benchmark.items, config.batch_size, config.setting)
    rounds = config.rounds * config.questions_per_round if config.extension else 0
    return _QuestionBar(len(benchmark.items) + batches * rounds, batches)


class _QuestionBar:
    """A tqdm bar over every question asked (base and extension), named by the stage it is in, with
    batches done, tokens and cost so far; a non-terminal gets one line per stage instead."""

    def __init__(self, total: int, batches: int = 0) -> None:
        self.total, self.n_batches = total, batches
        self.bar: Any = None
        self.asked = self.batches = 0
        self.stage_name = ""

    def __enter__(self) -> Self:
        import sys

        from tqdm import tqdm

        self.bar = tqdm(total=self.total, desc="starting", unit="q", disable=not sys.stderr.isatty())
        self.started = time.monotonic()
        return self

    def __call__(self, event: ProgressEvent) -> None:
        record, ledger = event.question, event.ledger
        if record is None:
            self.batches += 1
            self.stage(f"feedback for {self.batches} of {self.n_batches} batches written")
        else:
            self.asked += 1
            self.bar.update(1)
            self.stage("base questions" if record.stage == "grading" else f"extension round {record.round}")
        lines = ledger.roles.values() if ledger is not None else []
        self.bar.set_postfix(batches=f"{self.batches}/{self.n_batches}",
                             tokens=sum(u.input_tokens + u.output_tokens for u in lines),
                             cost=f"${sum(u.cost for u in lines):.4f}")

    def stage(self, name: str) -> None:
        """A new stage: the bar's name on a terminal, one line elsewhere."""
        if self.bar is None or name == self.stage_name:
            return
        self.stage_name = name
        if self.bar.disable:  # a log: tqdm keeps no clock when it draws nothing, so the elapsed time is ours
            elapsed = time.monotonic() - self.started
            rate = f", {self.asked / elapsed:.2f} questions/s" if elapsed > 0 and self.asked else ""
            typer.echo(f"{name} ({self.asked} questions asked, {clock(elapsed)} elapsed{rate})", err=True)
        else:
            self.bar.set_description(name)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class _EpisodeBar:
    """The other protocols' progress: a tqdm bar over the episodes on a terminal, named by the stage (the judge's
    calibration, the episodes); elsewhere a line per stage and every tenth of the episodes, with the time since
    the start and the rate."""

    def __enter__(self) -> Self:
        import sys

        from tqdm import tqdm

        self.bar = tqdm(total=0, desc="starting", unit="episode", disable=not sys.stderr.isatty())
        self.started = time.monotonic()
        self.lines = every_tenth(lambda done, total: f"episodes: {done}/{total} done")
        return self

    def __call__(self, event: ProgressEvent) -> None:
        done, total = event.done, event.listed
        if not self.bar.disable:
            self.bar.total = total
            self.bar.update(done - self.bar.n)
        else:
            self.lines(done, total)

    def stage(self, name: str) -> None:
        if self.bar.disable:
            typer.echo(f"{name} ({clock(time.monotonic() - self.started)} elapsed)", err=True)
        else:
            self.bar.set_description(name)

    def __exit__(self, *exc: object) -> None:
        self.bar.close()
