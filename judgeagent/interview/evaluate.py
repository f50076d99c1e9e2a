"""`evaluate`: the JudgeAgent interview over a benchmark, recorded in a resumable run folder."""
from __future__ import annotations

import asyncio
import hashlib
import json
import platform
import re
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from ..benchmark import Benchmark, Item
from ..config import EvalConfig
from ..errors import JudgeAgentError
from ..files import write_json_atomic
from ..grading.calibration import vetted_checker
from ..grading.text import token_f1
from ..graph.model import ContextGraph
from ..runs import RunResult, open_run
from .engine import Context, gather_all, run_batch
from .summary import summarise


def evaluate(benchmark: Benchmark, graph: ContextGraph | None, target: str, *, interviewer: str | None = None,
             judge: str | None = None, config: EvalConfig = EvalConfig(), run_dir: str | Path | None = None,
             runs_root: str | Path = "runs", registry: Any = None, cache_dir: str | Path | None = None,
             cache: bool = True, progress: Any = None, request: dict[str, Any] | None = None,
             notify: Callable[[str], None] | None = None, max_cost: float | None = None,
             on_stage: Callable[[str], None] | None = None) -> RunResult:
    """Run (or resume, or just report) the evaluation of `target` on `benchmark`.

    `request` (how the inputs were named: paths, limits) is stored in the manifest for `--resume`.
    `notify` receives what a user must not miss (a judge that failed calibration), one line each.
    `max_cost` (dollars, from the configured prices) stops the run with `BudgetExceeded` once spent;
    the run resumes like any stopped run. `on_stage` hears the stages that have no per-question
    progress (the judge's calibration), one line each.
    """
    if not benchmark.items:
        raise JudgeAgentError(f"benchmark {benchmark.path} has no items")
    if graph is None and config.extension:
        raise JudgeAgentError("the extension stage needs a graph (--graph), or use --no-extension")
    from ..models import open_models
    from ..models.spec import load_registry

    registry = registry or load_registry()
    names = {"target": target, "interviewer": interviewer or target, "judge": judge or interviewer or target}
    specs = {role: registry.resolve(name) for role, name in names.items()}
    for spec in specs.values():
        spec.api_key()  # a missing key fails before the run folder exists, not after
    identity = _identity(benchmark, graph, specs, config)
    folder = Path(run_dir) if run_dir else Path(runs_root) / _name(benchmark, target, identity)
    manifest = {**_manifest(benchmark, graph, specs, config, identity), "request": request or {}}
    # The run stays locked for writing until the block ends: a second process is refused, not doubled.
    with open_run(folder, manifest) as run:
        resumed = len(run.records) > 0
        if run.finished:
            return RunResult(folder, json.loads((folder / "summary.json").read_text()), {}, True)
        with open_models(target, names["interviewer"], names["judge"], registry=registry, cache_dir=cache_dir,
                         cache=cache, journal=folder, max_cost=max_cost) as models:
            ctx = Context(config, models, run, graph, _sampler(graph, config), on_record=progress)
            asyncio.run(_interview(ctx, benchmark.items, notify, on_stage))
            usage = models.ledger.totals()
        summary = summarise(run.records, run.feedback)
        summary["judge_calibration"] = run.manifest.get("judge_calibration")
        summary["usage"] = usage
        run.finish(summary)
    return RunResult(folder, summary, usage, resumed)


async def _interview(ctx: Context, items: list[Item], notify: Callable[[str], None] | None,
                     on_stage: Callable[[str], None] | None = None) -> None:
    """Vet the judge, then run every batch."""
    if on_stage and ctx.config.checker.judge_policy != "off":
        on_stage(f"calibrating the judge on up to {ctx.config.checker.calibration_pairs} pairs")
    try:
        ctx.checker, calibration = await vetted_checker(ctx.config.checker, ctx.models.judge, items,
                                                        ctx.config.seed, _near_miss(ctx))
    except BaseException:
        ctx.worker.shutdown(wait=True)
        await ctx.models.aclose()
        raise
    ctx.run.manifest["judge_calibration"] = calibration.to_dict()
    write_json_atomic(ctx.run.folder / "manifest.json", ctx.run.manifest)
    if notify and ctx.config.checker.judge_policy != "off" and not calibration.passed:
        notify(f"warning: {calibration.note}")
    await _all_batches(ctx, _batches(items, ctx.config.batch_size))


def _near_miss(ctx: Context) -> Callable[[str], str | None] | None:
    """Wrong answers for calibration: the graph entity most like the gold that is not the gold."""
    sampler, graph = ctx.sampler, ctx.graph
    if sampler is None or graph is None:
        return None

    def find(gold: str) -> str | None:
        _, rows = graph.entity_index.search(sampler.encoder.encode([gold]), 8)
        names = [graph.entity_names[r] for r in rows[0] if r >= 0]
        return next((n for n in names if token_f1(n, gold) < 0.34), None)

    return find


async def _all_batches(ctx: Context, batches: list[list[Item]]) -> None:
    try:
        # Batches are independent: they run together, each model's semaphore bounding its load.
        await gather_all(*(run_batch(ctx, b, items) for b, items in enumerate(batches)))
    finally:
        ctx.worker.shutdown(wait=True)
        await ctx.models.aclose()


def _batches(items: list[Item], size: int) -> list[list[Item]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _sampler(graph: ContextGraph | None, config: EvalConfig) -> Any:
    # With --no-graph too: the sampler's encoder measures how on topic the random chunks are.
    if graph is None or not config.extension or graph.n_entities == 0:
        return None
    from ..graph.sample import PathSampler

    return PathSampler(graph)


def _identity(benchmark: Benchmark, graph: ContextGraph | None, specs: dict[str, Any], config: EvalConfig) -> str:
    payload = {
        "benchmark": [(i.qid, i.question, i.answer, i.options, i.difficulty, bool(i.passage)) for i in benchmark.items],
        "graph": graph.manifest.get("graph_id") if graph else None,
        # The embedded model's port may change between runs; its file is what identifies it.
        "models": {r: [s.model, s.gguf or s.base_url, s.generation.model_dump()] for r, s in specs.items()},
        "config": _identity_config(config),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


# Options added after runs were first written: left out of a run's identity while at their default,
# so a run started by an earlier version keeps its identity and still resumes.
_ADDED_LATER = {"adaptive": "tiers", "path": "graph"}


def _identity_config(config: EvalConfig) -> dict[str, Any]:
    dumped = config.model_dump(mode="json")
    return {k: v for k, v in dumped.items() if not (k in _ADDED_LATER and v == _ADDED_LATER[k])}


def _name(benchmark: Benchmark, target: str, identity: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{Path(benchmark.path).stem}-{target}").strip("-")[:60]
    return f"{stem}-{identity[:8]}"


def _manifest(benchmark: Benchmark, graph: ContextGraph | None, specs: dict[str, Any], config: EvalConfig,
              identity: str) -> dict[str, Any]:
    return {
        "protocol": "judgeagent",
        "config_id": identity,
        "config": config.model_dump(mode="json"),
        "models": {role: {"name": s.name, "model": s.model, "base_url": s.base_url, "api_key_env": s.api_key_env,
                          "generation": s.generation.model_dump()} for role, s in specs.items()},
        "benchmark": {"path": str(benchmark.path), "items": len(benchmark.items)},
        "graph": None if graph is None else {"path": str(graph.path), "graph_id": graph.manifest.get("graph_id"),
                                             "embedding_model": graph.manifest["embedding"]["model"]},
        "versions": _versions(),
    }


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("judgeagent", "openai", "sentence-transformers", "faiss-cpu", "spacy", "torch", "networkx"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out
