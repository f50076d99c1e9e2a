"""`evaluate`: the JudgeAgent interview over a benchmark, recorded in a resumable run folder.

The public Python entry point (the CLI's `evaluate` and bench/ call it): a `RunRequest` for the JudgeAgent
protocol (protocols/judgeagent/protocol.py), which the shared runner (protocols/runner.py) runs.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...benchmark import Benchmark
from ...graph.model import ContextGraph
from ...runs import RunResult
from .config import EvalConfig

if TYPE_CHECKING:
    from ...models.spec import Registry
    from ..base import Progress


def evaluate(benchmark: Benchmark, graph: ContextGraph | None, target: str, *, interviewer: str | None = None,
             judge: str | None = None, config: EvalConfig = EvalConfig(), run_dir: str | Path | None = None,
             runs_root: str | Path = "runs", registry: Registry | None = None, cache_dir: str | Path | None = None,
             cache: bool = True, progress: Progress | None = None, request: dict[str, Any] | None = None,
             notify: Callable[[str], None] | None = None, max_cost: float | None = None,
             on_stage: Callable[[str], None] | None = None,
             equivalence_weights: str | Path | None = None) -> RunResult:
    """Run (or resume, or just report) the evaluation of `target` on `benchmark`.

    The interviewer defaults to the target, the judge to the interviewer. `progress` hears a `ProgressEvent`
    for every question asked (its `question`) and each batch finished (no question). `request` (how the inputs were named:
    paths, limits) is stored in the manifest for `--resume`. `notify` receives what a user must not miss
    (a judge that failed calibration), one line each. `max_cost` (dollars, from the configured prices)
    stops the run with `BudgetExceeded` once spent; the run resumes like any stopped run. `on_stage`
    hears the stages that have no per-question progress (the judge's calibration), one line each.
    `equivalence_weights` is the learned answer-equivalence step's weights file (`RunRequest`; None: the shipped
    `evouna-tq`, "none": off).
    """
    from ..base import RunRequest
    from ..runner import run_episodes
    from .protocol import JudgeAgentProtocol

    models = {role: name for role, name in (("target", target), ("interviewer", interviewer), ("judge", judge))
              if name}
    entry = ("evaluate", "judgeagent.evaluate_async(...)")
    return run_episodes(JudgeAgentProtocol(), entry=entry, request=RunRequest(
        benchmark, graph, models, config, run_dir=Path(run_dir) if run_dir else None, runs_root=Path(runs_root),
        registry=registry, cache_dir=Path(cache_dir) if cache_dir else None, cache=cache, max_cost=max_cost,
        request=request or {}, notify=notify, progress=progress, on_stage=on_stage,
        equivalence_weights=equivalence_weights))


async def evaluate_async(benchmark: Benchmark, graph: ContextGraph | None, target: str, **kwargs: Any) -> RunResult:
    """`evaluate` for code that already runs an event loop (a notebook, an async service): the run goes on a worker
    thread, with its own loop and model clients, while the caller's loop stays free. The same arguments."""
    import asyncio

    return await asyncio.to_thread(_evaluate_here, benchmark, graph, target, kwargs)


def _evaluate_here(benchmark: Benchmark, graph: ContextGraph | None, target: str, kwargs: dict[str, Any]) -> RunResult:
    return evaluate(benchmark, graph, target, **kwargs)  # on the worker thread: no loop runs there
