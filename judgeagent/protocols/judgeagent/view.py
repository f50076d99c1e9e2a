"""JudgeAgent's episodes for the viewer and the Inspect export: a row per question asked (base and extension),
its knowledge path with the chunks' texts, the target's answer and verdict, the batch's feedback, and (once the
run is validated) the base question answered again with that feedback.

JudgeAgent's records keep their own flat schema (not the `Record` envelope), so the generic reader does not fit.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ...runs import Run, read_rows
from ..episodes import EpisodeView, Turn, item_facets, path_of, with_item_facets
from .export import graph_chunk_texts
from .feedback import read_feedback

FACETS = ("stage", "difficulty", "tier", "question_type", "generator", "round", "batch", "held_out")


def view_episodes(run: Run) -> list[EpisodeView]:
    texts = graph_chunk_texts(run)
    feedback = {f["batch"]: f for f in read_feedback(run)}
    validation = {(v["batch"], v["qid"]): v for v in read_rows(run.folder / "validation.jsonl", "qid", finished=True)}
    models = {role: d.get("name", "") for role, d in (run.manifest.get("models") or {}).items()}
    items = item_facets(run.manifest)  # a subject, a category: the benchmark file's own columns
    views = []
    for r in run.records:
        view = with_item_facets(question_view(r, feedback.get(r["batch"]), texts, models), items)
        again = validation.get((r["batch"], r["qid"])) if r.get("stage") == "grading" else None
        views.append(with_validation(view, again, models.get("target", "")) if again else view)
    return views


def with_validation(view: EpisodeView, row: dict[str, Any], model: str) -> EpisodeView:
    """The base question answered again with the batch's suggestions (validate): a turn, and a filter."""
    turn = Turn("target", "validation: answered again with the batch's suggestions",
                "(the same prompt, with the interviewer's suggestions for the batch)", str(row.get("answer_after") or ""),
                {"after": {"value": 1.0 if row["after"] else 0.0, "method": row.get("method_after", ""),
                           "reason": "", "extracted": None}}, model=model)
    change = f"{'right' if row['before'] else 'wrong'} -> {'right' if row['after'] else 'wrong'}"
    return replace(view, turns=[*view.turns, turn], facets={**view.facets, "validation": change},
                   scores={**view.scores, "after": 1.0 if row["after"] else 0.0})


def question_view(record: dict[str, Any], feedback: dict[str, Any] | None, texts: dict[str, str],
                  models: dict[str, str]) -> EpisodeView:
    verdict = record.get("verdict") or {}
    facets: dict[str, str | list[str]] = {k: _label(record.get(k)) for k in FACETS if record.get(k) is not None}
    facets["verdict"] = "right" if record.get("correct") else "wrong"
    turns = []
    if record.get("path") or record.get("generator"):
        turns.append(Turn("interviewer", f"round {record.get('round')}: question ({record.get('generator')})",
                          "(generated from the knowledge path below)", _question(record),
                          notes={"tier": _label(record.get("tier")), "gold": str(record.get("gold"))},
                          path=path_of(record.get("path"), texts), model=models.get("interviewer", "")))
    score = {"value": 1.0 if record.get("correct") else 0.0,  # the verdict's own `score` is not its correctness
             "method": verdict.get("method", ""), "reason": verdict.get("reason", ""),
             "extracted": verdict.get("extracted")}
    tokens = record.get("tokens") or {}
    turns.append(Turn("target", f"{record.get('stage')} answer", _messages(record.get("prompt")),
                      str(record.get("answer") or ""), {"correct": score},
                      {k: _label(v) for k, v in {**{f: record.get(f) for f in FACETS[:4]},
                       "tokens in": tokens.get("input"), "tokens out": tokens.get("output"),
                       "error": record.get("target_error")}.items() if v is not None},
                      model=models.get("target", "")))
    if feedback and feedback.get("feedback"):
        turns.append(Turn("interviewer", f"batch {record['batch']} feedback", "(the batch's questions and answers)",
                          str(feedback["feedback"].get("suggestions") or ""),
                          details=json.dumps(feedback["feedback"], indent=1, ensure_ascii=False),
                          model=models.get("interviewer", "")))
    return EpisodeView(record["record_id"], _question(record).splitlines()[0][:300], record.get("qid"), facets,
                       {"correct": score["value"], "points": float(record.get("points") or 0.0)},
                       [score["method"]] if score["method"] else [], turns, str(record.get("gold")))


def _question(record: dict[str, Any]) -> str:
    options = record.get("options") or {}
    return str(record.get("question") or "") + "".join(f"\n{k}. {v}" for k, v in options.items())


def _messages(prompt: Any) -> str:
    if isinstance(prompt, list):
        return "\n\n".join(f"[{m.get('role')}] {m.get('content')}" for m in prompt if isinstance(m, dict))
    return str(prompt or "")


def _label(value: Any) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)
