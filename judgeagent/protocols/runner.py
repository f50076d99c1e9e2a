"""One runner for every protocol: identity, manifest, episodes run concurrently, resume by journal, finish."""
from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import JudgeAgentError
from ..runs import LINE_FIX, USAGE_FILE, RowLog, Run, RunResult, open_run
from ..version import versions
from .base import Episode, EpisodeContext, ProgressEvent, Protocol, RunRequest
from .reports import write_report

if TYPE_CHECKING:
    from ..grading.equivalence import RunStep

EPISODES_FILE = "episodes.jsonl"
"""One row per finished episode, appended as it finishes: a listed episode is done."""


async def gather_all(*aws: Any) -> list[Any]:
    """Like asyncio.gather, but a failure lets the other calls finish (and be journaled) before it is
    raised: on resume, only calls that never completed are made again."""
    results = await asyncio.gather(*aws, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results


def identity(protocol: Protocol, request: RunRequest, registry: Any) -> str:
    """The run's identity: the hash of the protocol's identity payload (`request.models` resolved)."""
    payload = protocol.identity_payload(request, registry)
    if request.learned is not None and request.learned.record is not None:
        payload["equivalence_weights"] = request.learned.record["sha256"]  # other weights grade otherwise
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def learned_step(protocol: Protocol, request: RunRequest) -> RunStep:
    """The run's learned answer-equivalence step: off for a protocol that grades no free text, and for a run folder
    begun before the step was the default (its manifest names no weights) when no weights are given, so that it
    resumes with its identity and grades as it did; else the given weights, or the shipped default."""
    from ..grading.equivalence import OFF, for_run

    weights = request.equivalence_weights
    if not protocol.grades_free_text:
        weights = OFF
    elif weights is None and request.run_dir is not None:
        manifest = Path(request.run_dir) / "manifest.json"
        try:
            old = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else None
        except (OSError, ValueError):
            old = None  # open_run says what is wrong with the folder
        if isinstance(old, dict) and "config_id" in old and "equivalence" not in old:
            weights = OFF
    return for_run(weights)


def default_folder(protocol: Protocol, request: RunRequest, ident: str) -> Path:
    """Where a run goes without --run-dir: `<runs root>/<the protocol's stem>-<identity[:8]>`."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", protocol.folder_stem(request)).strip("-")[:60]
    return request.runs_root / f"{stem}-{ident[:8]}"


def refuse_inside_a_loop(call: str, instead: str) -> None:
    """A synchronous entry point runs its own event loop: inside a running one (a notebook, an async program) it
    would fail after making its folder. It says what to await instead (`instead`, the call as written, arguments
    and all: `validate`'s twin is `asyncio.to_thread(validate, ...)`), before touching anything."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise JudgeAgentError(f"{call}() was called inside a running event loop (a notebook or an async program): "
                          f"use `await {instead}` there, which runs it on a worker thread")


def run_episodes(protocol: Protocol, request: RunRequest, *, entry: tuple[str, str] = (
        "run_protocol", "judgeagent.protocols.run_protocol_async(...)")) -> RunResult:
    """Run (or resume, or just return) `protocol` over `request.benchmark`, in a locked run folder. `entry` names
    the synchronous call the user made and its awaitable twin (for the refusal inside a running loop)."""
    from ..models.roles import describe_roles, open_roles
    from ..models.spec import load_registry

    refuse_inside_a_loop(*entry)
    protocol.check_inputs(request)
    registry = request.registry or load_registry()
    models = protocol.resolve_roles(request.models)
    request.models = models
    request.learned = learned_step(protocol, request)  # a given file that is no weights file fails here
    ident = identity(protocol, request, registry)
    folder = request.run_dir or default_folder(protocol, request, ident)
    described = describe_roles(models, registry)  # a missing key fails before the folder exists
    manifest = {"protocol": protocol.name, "config_id": ident, "config": request.config.model_dump(mode="json"),
                "models": described, "request": request.request,
                "benchmark": {"path": str(request.benchmark.path), "items": len(request.benchmark.items)},
                "graph": None if request.graph is None else {"path": str(request.graph.path),
                                                             "graph_id": request.graph.manifest.get("graph_id")},
                "versions": versions(), **protocol.manifest_fields(request)}
    if request.learned.record is not None:
        manifest["equivalence"] = request.learned.record
    if request.learned.record is not None and request.learned.step is None and request.notify:
        request.notify(f"warning: {request.learned.note}")  # weights given, calibration failed: said once
    if request.request.get("recipe"):  # `reproduce` wrote it: the folder says so (other runs' manifests unchanged)
        manifest["kind"] = "reproduce"
    with open_run(Path(folder), manifest) as run:
        if run.finished:
            try:
                done = run.summary()
            except JudgeAgentError:  # summary.json lost or damaged: replayed below, from the records (every
                pass  # episode is there, so nothing is asked again), and finishing writes it (and the report) anew
            else:
                if protocol.writes_report and not (run.folder / "report.md").is_file():
                    write_report(protocol, run, done)  # killed between `finish` and the report: from the summary
                return RunResult(run.folder, done, {}, True)
        resumed = len(run.records) > 0
        log = RowLog(run, EPISODES_FILE, "episode")
        # Slow loads begin now, on their own threads, while the models' servers start: none then stalls the loop.
        from ..grading.forms import preload

        preload()
        protocol.preload(request)
        with open_roles(models, registry=registry, cache_dir=request.cache_dir, cache=request.cache,
                        journal=run.folder, max_cost=request.max_cost) as roles:
            # Every call's accounting is appended as it happens: a resumed run's usage (and its --max-cost) is the
            # whole run's, calls of an invocation that was killed included.
            roles.ledger.keep(_usage_rows(run), lambda row: run.append(USAGE_FILE, dict(row)))
            ctx = EpisodeContext(protocol, request.config, roles, run, request.benchmark, request.graph,
                                 request=request)
            timings: dict[str, float] = {}
            summary = asyncio.run(_all(ctx, log, request, timings))
            usage = roles.ledger.totals()
            timings.update({f"model:{role}": s for role, s in sorted(roles.ledger.seconds.items())})
        summary["usage"] = usage
        run.finish(summary)
        if protocol.writes_report:
            write_report(protocol, run, summary)
    return RunResult(run.folder, summary, usage, resumed, timings)


def _usage_rows(run: Run) -> list[dict[str, Any]]:
    """The run's earlier invocations' calls (usage.jsonl), each row checked: a damaged one is named, file and row."""
    from ..models.usage import row_problem

    rows = run.read_log(USAGE_FILE, "role")
    for number, row in enumerate(rows, start=1):
        problem = row_problem(row)
        if problem:
            raise JudgeAgentError(f"{run.folder / USAGE_FILE}: row {number}: {problem}{LINE_FIX}")
    return rows


async def _all(ctx: EpisodeContext, log: RowLog, request: RunRequest, timings: dict[str, float]) -> dict[str, Any]:
    async with ctx.roles:
        try:
            return await _episodes(ctx, log, request, timings)
        finally:
            await ctx.protocol.close(ctx)


async def _episodes(ctx: EpisodeContext, log: RowLog, request: RunRequest,
                    timings: dict[str, float]) -> dict[str, Any]:
    import time

    from ..files import write_json_atomic

    start = time.perf_counter()
    prepared = await ctx.protocol.prepare(ctx)
    timings["prepare"] = time.perf_counter() - start
    ctx.state = prepared.state
    if prepared.manifest:
        ctx.run.manifest.update(prepared.manifest)
        write_json_atomic(ctx.run.folder / "manifest.json", ctx.run.manifest)
    episodes = ctx.protocol.episodes(ctx.benchmark, ctx.config)
    listed: set[str] = set()
    done = [0]
    progress = ctx.protocol.episode_progress(request)
    if progress and request.on_stage:  # a protocol with per-episode progress: the stage after its setup
        request.on_stage("episodes")

    async def one(episode: Episode) -> None:
        if log.get(episode.id) is None:
            row = await ctx.protocol.run_episode(ctx, episode)
            log.add({"episode": episode.id, "index": episode.index, **row})
        done[0] += 1
        if progress:
            progress(ProgressEvent(done[0], len(listed)))

    while True:  # waves: a protocol may list more episodes once those listed have finished
        listed |= {e.id for e in episodes}
        # Episodes are independent: they run together, each model's own limit bounding its load; a
        # failure lets the others finish (and be journaled) before it is raised.
        await gather_all(*(one(e) for e in episodes))
        rows = sorted((r for r in log.rows.values() if r["episode"] in listed), key=lambda r: r["index"])
        episodes = [e for e in ctx.protocol.next_episodes(ctx, rows) if e.id not in listed]
        if not episodes:
            break
    timings["episodes"] = time.perf_counter() - start - timings["prepare"]
    return await ctx.protocol.summarise(ctx, ctx.run.records, rows)
