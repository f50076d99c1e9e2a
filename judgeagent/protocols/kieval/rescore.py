"""`rescore`: the stored conversations of a KIEval run scored again by another evaluator, and agreement.

The conversations stay fixed: only the new evaluator is asked (the same prompts as in the run, its own
earlier verdicts in its history), so a second evaluator costs only its own calls. Its scores go to
`rescore-<evaluator>.json` in the run folder, written atomically once all are in; its calls are
journaled under `rescore/<evaluator>/`, so a rescore killed midway repeats none of its finished calls.
A conversation the first evaluator stopped early cannot be extended: the new evaluator scores the
turns that exist, and its own first stop ends the part of them that counts for its KIEval score.
"""
from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from ...errors import JudgeAgentError
from ...files import write_json_atomic
from ...runs import Manifest, a_run_of, finish_hint, load_manifest, load_run, lock_run, read_rows
from ..base import Section
from .agreement import Agreement, agreement
from .evaluator import evaluate_turn
from .report import SCORED, numbers
from .rows import DialogueRow, EvaluationDump, RescoreResult, RoundRow, SecondEvaluator, Summary


def rescore(folder: str | Path, evaluator: Any, *, registry: Any = None, cache_dir: str | Path | None = None,
            cache: bool = True, progress: Callable[[int, int], None] | None = None,
            allow_model_change: bool = False) -> RescoreResult:
    """Score the run's conversations with `evaluator` (a registry name or a `ChatModel`); returns what it writes.

    A rescore that resumes (its journal under `rescore/<label>/`) is held to the evaluator it began with: where
    the name now resolves to another model it refuses, unless `allow_model_change` (then recorded)."""
    from ...models.roles import describe_roles, hold_to_run, open_roles
    from ...models.spec import load_registry

    folder = Path(folder)
    manifest = _kieval_manifest(folder)
    first_kieval = _first_summary(folder)["kieval"]  # the run read whole (a log cut short refused) before any call
    rows = sorted(read_rows(folder / "episodes.jsonl", "episode", finished=True), key=lambda r: r["index"])
    rounds = int(manifest["config"]["rounds"])
    registry = registry or load_registry()
    described = describe_roles({"evaluator": evaluator}, registry)["evaluator"]  # a missing key fails here
    label = re.sub(r"[^A-Za-z0-9._-]+", "-", described["name"]).strip("-") or "evaluator"
    # It writes the run's folder (its journal, its file): it takes the run's writer lock, as validate does, so that
    # a second rescore at once is refused instead of asking the evaluator every question again.
    with lock_run(folder):
        began = folder / "rescore" / label / "model.json"  # the evaluator this rescore began with
        changes: list[str] = []
        if began.is_file():
            first = json.loads(began.read_text(encoding="utf-8"))
            changes = hold_to_run({"evaluator": first["evaluator"]}, registry, command="rescore", folder=folder,
                                  allow_change=allow_model_change)
        with open_roles({"evaluator": evaluator}, registry=registry, cache_dir=cache_dir, cache=cache,
                        journal=folder / "rescore" / label) as roles:
            if not began.is_file():  # the journal's folder is there now (or its one-line error was raised)
                write_json_atomic(began, {"evaluator": described})
            rescored = asyncio.run(_all(roles, rows, progress))
            usage = roles.ledger.totals()
        # Scored as the first evaluator's summary was: the run's own scoring options (runs begun before they existed
        # were scored `linear`), so that the two evaluators' numbers stand side by side.
        config = manifest["config"]
        summary = numbers(rescored, rounds, config.get("scoring", "linear"), config.get("decay", True),
                          config.get("early_stop", True))
        second = cast(SecondEvaluator, {"evaluator": described["name"], "model": described, **summary})
        result: RescoreResult = {
            "run": str(folder), "first": {"evaluator": manifest["models"]["evaluator"]["name"],
                                          "kieval": first_kieval},
            "second": second, "agreement": turn_agreement(rows, rescored), "usage": usage,
            **({"model_changes": changes} if changes else {}),
            "conversations": [{"episode": r["episode"], "qid": r["qid"], "rounds": r["rounds"]}
                              for r in rescored if r["verified"]]}
        result["file"] = str(folder / f"rescore-{label}.json")
        write_json_atomic(Path(result["file"]), result)
    return result


def _kieval_manifest(folder: Path) -> Manifest:
    manifest = load_manifest(folder)
    protocol = manifest.get("protocol", "judgeagent")
    if protocol != "kieval":
        raise JudgeAgentError(f"run {folder} is {a_run_of(protocol)}; rescore re-scores KIEval runs only "
                              "(evaluate --protocol kieval)")
    if manifest.get("status") != "finished":
        raise JudgeAgentError(f"run {folder} is not finished: resume it first ({finish_hint(folder, manifest)})")
    return manifest


def _first_summary(folder: Path) -> Summary:
    return cast(Summary, load_run(folder).summary())


async def _all(roles: Any, rows: list[DialogueRow], progress: Callable[[int, int], None] | None
               ) -> list[DialogueRow]:
    from ..runner import gather_all

    done = [0]
    kept = [r for r in rows if r["verified"]]

    async def one(row: DialogueRow) -> DialogueRow:
        out = await _conversation(roles["evaluator"], row)
        done[0] += 1
        if progress:
            progress(done[0], len(kept))
        return out

    async with roles:
        scored = iter(await gather_all(*(one(r) for r in kept)))
    return [next(scored) if r["verified"] else r for r in rows]


async def _conversation(model: Any, row: DialogueRow) -> DialogueRow:
    """Every stored round scored in order, each with the conversation up to its reply."""
    previous: list[EvaluationDump | None] = []
    rounds: list[RoundRow] = []
    for x in row["rounds"]:
        upto = [t for t in row["turns"] if t["round"] <= x["round"]]
        out = await evaluate_turn(model, upto, previous, x["round"])
        previous.append(out.evaluation)
        rounds.append({**x, "evaluation": out.evaluation, "failure": out.failure, "stop_reason": out.stop_reason})
    stop = next((x for x in rounds if x["stop_reason"] != "none"), None)
    counted = rounds[:rounds.index(stop) + 1] if stop else rounds
    return {**row, "rounds": rounds, "stop_reason": stop["stop_reason"] if stop else "none",
            "valid_rounds": len(counted) - (1 if stop else 0)}


def turn_agreement(first: list[DialogueRow], second: list[DialogueRow]) -> dict[str, Agreement]:
    """Per aspect (and overall): agreement over the turns both evaluators scored validly."""
    pairs: list[tuple[EvaluationDump, EvaluationDump]] = []
    for a, b in zip(first, second):
        if a.get("verified"):
            pairs += [(x["evaluation"], y["evaluation"]) for x, y in zip(a["rounds"], b["rounds"])
                      if x["evaluation"] is not None and y["evaluation"] is not None]
    return {key: agreement([_score(x, key) for x, _ in pairs], [_score(y, key) for _, y in pairs])
            for key in SCORED}


def _score(evaluation: EvaluationDump, key: str) -> int:
    return int(evaluation["overall_score"] if key == "overall" else evaluation[key]["score"])


def render_rescore(result: RescoreResult) -> str:
    """The two evaluators' KIEval scores side by side and their agreement per aspect, for the terminal."""
    first, second, agree = result["first"], result["second"], result["agreement"]
    lines = [(f"run {result['run']}: evaluator {first['evaluator']} vs {second['evaluator']} "
             f"({agree['overall']['n']} turns scored by both)"),
             f"{'aspect':<12}{'first':>7}{'second':>8}{'pearson':>9}{'spearman':>9}{'kendall':>9}{'kappa':>7}"]
    for key in SCORED:
        a = agree[key]
        lines.append(f"{key:<12}{_pct(first['kieval'].get(key)):>7}{_pct(second['kieval'].get(key)):>8}"
                     f"{_num(a['pearson']['r']):>9}{_num(a['spearman']['r']):>9}{_num(a['kendall']['r']):>9}"
                     f"{_num(a['kappa']):>7}")
    if second["failed_evaluations"]:
        lines.append(f"failed evaluations: {second['failed_evaluations']} of {second['evaluations']}")
    lines.append(f"written: {result['file']}")
    return "\n".join(lines)


def agreement_section(folder: Path) -> Section | None:
    """"Evaluator agreement" for the report: one table per `rescore-<evaluator>.json` in the run folder."""
    parts = []
    for path in sorted(Path(folder).glob("rescore-*.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
            parts.append(_agreement_table(result, path.name))
        except (OSError, ValueError, KeyError, TypeError) as e:  # a damaged file is named, not fatal to the report
            parts.append(f"`{path.name}` could not be read ({type(e).__name__}: {e}); run judgeagent rescore again.")
    if not parts:
        return None
    lead = ("The run's conversations scored again by another evaluator (judgeagent rescore): each aspect's "
            "KIEval score (0-100) by both, and their agreement over the turns both scored validly.")
    return Section("Evaluator agreement", "\n\n".join([lead, *parts]))


def _agreement_table(result: RescoreResult, name: str) -> str:
    first, second, agree = result["first"], result["second"], result["agreement"]
    lines = [(f"**{first['evaluator']}** (the run's) vs **{second['evaluator']}** ({agree['overall']['n']} turns "
              f"scored by both; `{name}`)"), "",
             "| aspect | first | second | Pearson r | Spearman rho | Kendall tau | Cohen's kappa |",
             "|---|---|---|---|---|---|---|"]
    for key in SCORED:
        a = agree[key]
        lines.append(f"| {key} | {_pct(first['kieval'].get(key))} | {_pct(second['kieval'].get(key))} | "
                     f"{_num(a['pearson']['r'])} | {_num(a['spearman']['r'])} | {_num(a['kendall']['r'])} | "
                     f"{_num(a['kappa'])} |")
    if second.get("failed_evaluations"):
        lines += ["", (f"The second evaluator failed {second['failed_evaluations']} of {second['evaluations']} "
                       "evaluations.")]
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
