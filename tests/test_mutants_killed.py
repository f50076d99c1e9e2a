"""Tests written to kill the surviving mutants of scripts/mutants.py (issue 47): each checks a boundary or a branch
that the module's other tests left unobserved. Fast and model-free: the runner's tests run a tiny protocol of
their own with a scripted in-process model (FunctionModel)."""
from __future__ import annotations

import json

from pathlib import Path

import pytest
from pydantic import BaseModel

from judgeagent.benchmark import Benchmark, Item
from judgeagent.errors import JudgeAgentError
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from judgeagent.protocols.base import Episode, Protocol, RoleSpec, Section

# --- runs.py ---------------------------------------------------------------------------------------------


def test_the_newer_format_refusal_starts_one_version_past_the_current_one(tmp_path):
    """The current version is read; the very next one is refused as newer (with `upgrade`), an older unknown one
    as unreadable (with `rerun`): the boundary, not a far-off 99."""
    from judgeagent.runs import READS_RUN_FORMATS, RUN_FORMAT, RUN_FORMAT_VERSION, check_run_format

    def manifest(version):
        return {"format": RUN_FORMAT, "format_version": version, "versions": {"judgeagent": "9.9"}}

    for version in READS_RUN_FORMATS:
        check_run_format(manifest(version), tmp_path)
    with pytest.raises(JudgeAgentError, match=rf"format version {RUN_FORMAT_VERSION + 1}, written by judgeagent "
                                              r"9\.9; this judgeagent reads versions 1, 2: upgrade judgeagent"):
        check_run_format(manifest(RUN_FORMAT_VERSION + 1), tmp_path)
    with pytest.raises(JudgeAgentError, match="written by a newer judgeagent"):
        check_run_format({"format": RUN_FORMAT, "format_version": RUN_FORMAT_VERSION + 1}, tmp_path)
    for bad in (0, None, "2"):
        with pytest.raises(JudgeAgentError, match=f"format version {bad}; this judgeagent reads versions 1, 2: rerun"):
            check_run_format(manifest(bad), tmp_path)


# --- protocols/runner.py and base.py: resume skips finished episodes and reads finished steps back --------------

class _NoOptions(BaseModel):
    pass


class _Counted(Protocol):
    """A tiny protocol of two steps an episode (ask, then check), that counts what the runner makes it do: each
    episode run, each step made (not read back). `fail` names an episode whose check raises (a kill mid-episode)."""

    name, title, paper, measures = "counted", "Counted", "none", "what the runner does"
    Config = _NoOptions
    roles = (RoleSpec("target", "answers"),)

    def __init__(self, fail: str | None = None) -> None:
        self.fail = fail
        self.ran: list[str] = []
        self.made: list[str] = []

    def episodes(self, benchmark, config):
        return [Episode(f"e{i.qid}", (i,), n) for n, i in enumerate(benchmark.items)]

    async def run_episode(self, ctx, episode):
        self.ran.append(episode.id)
        item = episode.items[0]

        def step(name, prompt):
            async def make():
                self.made.append(f"{episode.id}/{name}")
                reply = (await ctx.roles["target"].complete([{"role": "user", "content": prompt}])).text
                return ctx.record(episode, name, 0, "target", prompt, reply)
            return ctx.recorded(episode, name, make)

        first = await step("ask", item.question)
        if episode.id == self.fail:
            raise RuntimeError("killed")
        second = await step("check", f"Is {first['reply']} right?")
        return {"qid": item.qid, "replies": [first["reply"], second["reply"]]}

    async def summarise(self, ctx, records, episodes):
        return {"episodes": len(episodes), "records": len(records), "replies": [r["replies"] for r in episodes]}

    def report_sections(self, summary):
        return [Section("Counted", str(summary["episodes"]))]


def _counted_run(protocol, folder):
    items = [Item(q, f"What is {q}?", q.upper()) for q in ("a", "b", "c")]
    model = FunctionModel(lambda messages: f"said {messages[-1]['content']}", "scripted")
    return run_protocol(protocol, Benchmark(Path("counted.jsonl"), items), models={"target": model},
                        run_dir=folder, cache=False), model


def test_a_resumed_run_skips_finished_episodes_and_reads_finished_steps_back(tmp_path):
    """Episode eb is killed after its first step: on resume, ea and ec are not run again (runner.py's skip),
    and eb's first step is read back, not made again (`EpisodeContext.recorded`); only eb's check is made."""
    clean, _ = _counted_run(_Counted(), tmp_path / "clean")
    killed = _Counted(fail="eb")
    with pytest.raises(RuntimeError, match="killed"):
        _counted_run(killed, tmp_path / "run")
    assert sorted(killed.ran) == ["ea", "eb", "ec"]
    assert sorted(killed.made) == ["ea/ask", "ea/check", "eb/ask", "ec/ask", "ec/check"]
    again = _Counted()
    resumed, model = _counted_run(again, tmp_path / "run")
    assert again.ran == ["eb"]
    assert again.made == ["eb/check"]
    assert len(model.calls) == 1
    numbers = clean.summary | {"usage": None}
    assert resumed.resumed and resumed.summary | {"usage": None} == numbers
    assert numbers["records"] == 6 and numbers["episodes"] == 3
    finished, _ = _counted_run(_Counted(), tmp_path / "run")
    assert finished.resumed and finished.summary == resumed.summary
