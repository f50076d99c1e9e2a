"""`synthesize`: questions along knowledge paths written as a dataset, resumable like a run.

Work state lives in `OUT/.synthesis/` (a run folder: manifest, one row per slot in slots.jsonl, the model
calls' journal), so that a killed synthesis continues where it stopped without repeating a model call; the
dataset files are written into OUT at the end.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ....errors import JudgeAgentError
from ....files import remove_stale
from ....grading.answers import AnswerChecker
from ....graph.model import ContextGraph
from ....graph.sample import PathSampler
from ....runs import Manifest, RowLog, Run, load_manifest, load_run, open_run
from ....version import __version__
from ...runner import gather_all
from .anchors import AnchorPlan, Weakness, run_weakness
from .config import QUESTION_TYPE, SynthesisConfig
from .dataset import FILES, write_dataset
from .generate import cloze_item, llm_item, path_row, walk
from .rows import SlotRow
from .select import ASKED, Selector

STATE = ".synthesis"
WAVE = 16
EXHAUSTED_AFTER = 512
"""Paths tried in a row without one new item, after which the graph is taken to give no more at these settings.
On the demo graph (12 documents, easy items) `--n 1000` kept 148 of its 152 items within 1,871 paths, and the
longest run without one before then was 432 paths; the last 4 took 2,100 more."""
"""Slots planned at once: their model calls run concurrently; the next wave is planned from what was kept."""


@dataclass(frozen=True)
class SynthesisResult:
    folder: Path
    card: dict[str, Any]


def synthesize(graph: ContextGraph, out: str | Path, config: SynthesisConfig = SynthesisConfig(), *,
               interviewer: Any = None, from_run: str | Path | None = None, registry: Any = None,
               cache_dir: str | Path | None = None, cache: bool = True,
               progress: Callable[[int, int], None] | None = None) -> SynthesisResult:
    """Write `config.n` verified items from `graph` into `out` (or continue a synthesis stopped there)."""
    from ....models.roles import describe_roles, model_identity, open_roles
    from ....models.spec import load_registry

    out = Path(out)
    if config.needs_model and interviewer is None:
        raise JudgeAgentError("medium and hard items are written by a model: give --interviewer MODEL, "
                              "or --difficulty easy for cloze items only (no model)")
    weakness = run_weakness(load_run(from_run), graph) if from_run is not None else None
    registry = registry or load_registry()
    models = {"interviewer": interviewer} if config.needs_model else {}
    identity = {"config": config.model_dump(mode="json"), "graph_id": graph.manifest.get("graph_id"),
                "from_run": _run_identity(from_run), "models": {r: model_identity(v, registry) for r, v in models.items()}}
    config_id = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    _check_out(out, config_id)
    manifest = {"config_id": config_id, "kind": "synthesis", "identity": identity,
                "graph": {"path": str(graph.path), "graph_id": graph.manifest.get("graph_id")},
                "models": describe_roles(models, registry)}
    started = time.perf_counter()
    with open_run(out / STATE, manifest) as run:
        remove_stale(out, ".*.tmp-*")  # the dataset files' temporaries of a write killed mid-way (write_atomic)
        with open_roles(models, registry=registry, cache_dir=cache_dir, cache=cache, journal=run.folder) as roles:
            sampler = PathSampler(graph)
            selector, rows, exhausted = asyncio.run(_slots(run, graph, sampler, config, weakness,
                                                           roles["interviewer"] if models else None, progress))
        card = _card(graph, config, selector, rows, weakness, from_run, run.manifest, time.perf_counter() - started,
                     exhausted)
        if not selector.kept:  # a 0-row set is no dataset: say why, write none (the journal keeps the calls made)
            why = "; ".join(f"{c['difficulty']}: {c['candidates']} candidates" + (
                ", rejected " + ", ".join(f"{n} {reason}" for reason, n in c["rejected"].items())
                if c["rejected"] else "") for c in card["checks"])
            raise JudgeAgentError(f"no item passed the checks ({why}); nothing was written to {out}: try another "
                                  "interviewer model, other difficulties, or a graph with more named entities")
        write_dataset(out, selector.kept, card)
        run.finish({"items": len(selector.kept), "config_id": config_id})
    return SynthesisResult(out, card)


async def _slots(run: Run, graph: ContextGraph, sampler: PathSampler, config: SynthesisConfig,
                 weakness: Weakness | None, interviewer: Any,
                 progress: Callable[[int, int], None] | None) -> tuple[Selector, list[SlotRow], int | None]:
    """The slots tried and the items kept, and where the graph ran out (the slot count) if it did before n."""
    log = RowLog(run, "slots.jsonl", "key")
    plan = AnchorPlan(graph, config.seed, weakness)
    doc_of = graph.doc_of
    selector = Selector(sampler.encoder, config, weakness.questions if weakness else ())
    checker = AnswerChecker()
    rows: list[SlotRow] = []
    slot, last = 0, math.ceil(config.n * config.max_slots_per_item)
    gained = 0  # the slot after the last one that added an item
    while not selector.done and slot < last:
        if slot - gained >= EXHAUSTED_AFTER:
            return selector, rows, slot
        tiers = selector.open_tiers()
        # No more slots than items still missing: a wave of model calls is not spent on a tier about to fill.
        wave = [(s, tiers[s % len(tiers)]) for s in range(slot, min(slot + min(WAVE, selector.missing()), last))]
        slot = wave[-1][0] + 1
        planned = [log.get(f"{s}-{tier}") or _walked(sampler, graph, plan, config, s, tier) for s, tier in wave]
        done = await gather_all(*(_filled(row, graph, interviewer, checker, config, doc_of, log) for row in planned))
        before = len(selector.kept)
        selector.offer(done)
        rows.extend(done)
        if len(selector.kept) > before:
            gained = slot
        if progress:
            progress(min(len(selector.kept), config.n), config.n)
    return selector, rows, None


def _walked(sampler: PathSampler, graph: ContextGraph, plan: AnchorPlan, config: SynthesisConfig, slot: int,
            tier: str) -> SlotRow:
    doc, anchor = plan.chunk(slot)
    path = walk(sampler, graph, anchor, config, slot)
    return {"key": f"{slot}-{tier}", "slot": slot, "difficulty": tier, "doc_id": doc, "anchor_chunk_id": anchor,
            "path": path_row(path), "_path": path}


async def _filled(row: SlotRow, graph: ContextGraph, interviewer: Any, checker: AnswerChecker,
                  config: SynthesisConfig, doc_of: dict[str, str], log: RowLog) -> SlotRow:
    """The slot's candidate item (or why none): from the log when this slot ran before."""
    path = row.pop("_path", None)
    if path is None:
        return row
    if row["difficulty"] == "easy":
        item, why = cloze_item(graph, path, config, row["slot"], doc_of, row["doc_id"])
        rejected = [why] if why else []
    else:
        item, rejected = await llm_item(interviewer, checker, path, row["difficulty"], config, doc_of)
    row.update(item=item, rejected=rejected)
    log.add(row)
    return row


def _card(graph: ContextGraph, config: SynthesisConfig, selector: Selector, rows: list[SlotRow],
          weakness: Weakness | None, from_run: str | Path | None, manifest: Manifest, seconds: float,
          exhausted: int | None = None) -> dict[str, Any]:
    kept = selector.kept
    reached = {d for r in rows for d in _docs(graph, r["path"]["chunk_ids"])}
    covered = {d for i in kept for d in i["supporting_doc_ids"]}
    checks = []
    for tier in config.difficulties:
        reasons = {reason: n for (t, reason), n in sorted(selector.rejected.items()) if t == tier}
        checks.append({"difficulty": tier, "question_type": QUESTION_TYPE[tier],
                       "generator": "cloze" if tier == "easy" else "llm", "wanted": config.quotas()[tier],
                       "kept": selector.counts[tier], "candidates": selector.candidates[tier], "rejected": reasons})
    card: dict[str, Any] = {
        "name": f"judgeagent synthesis of {Path(str(graph.path)).name}", "items": len(kept),
        "judgeagent": __version__, "config": config.model_dump(mode="json"),
        "graph": {"path": str(graph.path), "graph_id": graph.manifest.get("graph_id"),
                  "documents": len(graph.doc_ids), "entities": graph.n_entities},
        "models": manifest.get("models") or {}, "checks": checks,
        "coverage": {"documents": len(covered), "reachable_documents": len(reached),
                     "documents_share_of_reachable": round(len(covered) / max(1, len(reached)), 4),
                     # One item holds its gold in one or two documents: with fewer items than documents reached,
                     # the most a set can cover is its item count.
                     "spread": round(len(covered) / max(1, min(len(kept), len(reached))), 4),
                     "graph_documents": len(graph.doc_ids),
                     "entities": len({e for i in kept for e in i["path_entities"]}), "graph_entities": graph.n_entities},
        "slots": len(rows), "seconds": round(seconds, 2),
        "seconds_per_item": round(seconds / max(1, len(kept)), 4),
        "stopped": None if selector.done else (
            f"the graph gave no new item in the last {EXHAUSTED_AFTER} of {len(rows)} paths tried: it can make about "
            f"{len(kept)} items at these settings (asked for {config.n}); a larger graph gives more"
            if exhausted is not None else
            f"{len(rows)} paths tried ({config.max_slots_per_item:g} per item wanted) without enough fresh, "
            "passing questions; a larger graph or --max-slots-per-item gives more"),
        "created_at": manifest.get("created_at") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if weakness is not None:
        per_doc: dict[str, int] = {}
        for item in kept:
            per_doc[item["anchor_doc_id"]] = per_doc.get(item["anchor_doc_id"], 0) + 1
        card["from_run"] = {
            "path": str(from_run), "questions_asked": len(weakness.questions),
            "excluded": sum(n for (_, reason), n in selector.rejected.items() if reason == ASKED),
            "documents": [{**w, "items": per_doc.get(w["doc_id"], 0)} for w in weakness.table()],
            "entities": sorted(weakness.entities.items(), key=lambda kv: (-kv[1], kv[0]))[:20],
        }
    return card


def _docs(graph: ContextGraph, chunk_ids: list[str]) -> set[str]:
    return {graph.doc_of[c] for c in chunk_ids if c in graph.doc_of}


def _run_identity(from_run: str | Path | None) -> Any:
    if from_run is None:
        return None
    manifest = load_manifest(Path(from_run))
    return {"config_id": manifest.get("config_id"), "status": manifest.get("status")}


def _check_out(out: Path, config_id: str) -> None:
    """OUT is new, empty, or a synthesis of the same configuration (which continues)."""
    if out.exists() and not out.is_dir():
        raise JudgeAgentError(f"--out {out} is a file; give a folder for the dataset")
    if not out.is_dir():
        return
    state = out / STATE / "manifest.json"
    if state.exists():
        if load_manifest(out / STATE).get("config_id") != config_id:
            raise JudgeAgentError(f"{out} holds a synthesis with other settings (or another graph, run or model); "
                                  "choose another --out or remove it")
        return
    others = [p.name for p in out.iterdir() if p.name not in (STATE, *FILES)]
    if others or any((out / f).exists() for f in FILES):
        raise JudgeAgentError(f"{out} is a folder with other files, not a judgeagent synthesis; choose a new or "
                              "empty --out")


def estimate(graph: ContextGraph, config: SynthesisConfig, prices: Any = None) -> dict[str, Any]:
    """Interviewer calls, tokens and dollars before any call, as a range: `low` when every slot's first
    question passes; `high` when every slot up to the cap uses every attempt (and its self-check)."""
    from ..estimate import CHARS_PER_TOKEN, OUTPUT_TOKENS, PROMPT_TOKENS

    quotas = config.quotas()
    items = sum(n for tier, n in quotas.items() if tier != "easy")
    per_attempt = 1 + config.self_check
    low = items * per_attempt
    high = math.ceil(items * config.max_slots_per_item) * config.generation_attempts * per_attempt
    chunk_chars = sum(map(len, graph.chunk_texts)) / max(1, len(graph.chunk_texts))
    path_tokens = config.hops * chunk_chars / CHARS_PER_TOKEN
    # A generation call and a self-check call both carry the path text.
    input_per_call = path_tokens + (PROMPT_TOKENS["generation"] + PROMPT_TOKENS["self_check"] * config.self_check) / per_attempt
    output_per_call = (OUTPUT_TOKENS["generation"] + OUTPUT_TOKENS["self_check"] * config.self_check) / per_attempt
    result = {"easy_items": quotas.get("easy", 0), "model_items": items, "calls_low": low, "calls_high": high,
              "input_tokens_high": round(high * input_per_call), "output_tokens_high": round(high * output_per_call)}
    if prices is not None:
        cost = lambda calls: calls * (input_per_call * prices.input + output_per_call * prices.output) / 1e6  # noqa: E731
        result.update(cost_low=round(cost(low), 4), cost_high=round(cost(high), 4))
    return result
