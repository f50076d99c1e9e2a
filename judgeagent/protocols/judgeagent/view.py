"""JudgeAgent's episodes for the viewer and the Inspect export: a row per question asked (base and extension),
its knowledge path with the chunks' texts, the target's answer and verdict, the batch's feedback, and (once the
run is validated) the base question answered again with that feedback.

JudgeAgent's records keep their own flat schema (not the `Record` envelope), so the generic reader does not fit.
"""
from __future__ import annotations

import json
from dataclasses import replace

from ...models.base import Message
from ...runs import Run, read_rows
from ..episodes import EpisodeView, Turn, item_facets, path_of, with_item_facets
from .export import graph_chunk_texts
from .feedback import read_feedback
from .records import FeedbackEntry, QuestionRecord, question_records
from .validate import ValidationRow

FACETS = ("stage", "difficulty", "tier", "question_type", "generator", "round", "batch", "held_out")


def view_episodes(run: Run) -> list[EpisodeView]:
    texts = graph_chunk_texts(run)
    feedback = {f.batch: f for f in read_feedback(run)}
    validation = {(v["batch"], v["qid"]): v for v in read_rows(run.folder / "validation.jsonl", "qid", finished=True)}
    models = {role: d.get("name", "") for role, d in (run.manifest.get("models") or {}).items()}
    items = item_facets(run.manifest)  # a subject, a category: the benchmark file's own columns
    views = []
    for r in question_records(run):
        view = with_item_facets(question_view(r, feedback.get(r.batch), texts, models), items)
        again = validation.get((r.batch, r.qid)) if r.stage == "grading" else None
        views.append(with_validation(view, again, models.get("target", "")) if again else view)
    return views


def with_validation(view: EpisodeView, row: ValidationRow, model: str) -> EpisodeView:
    """The base question answered again with the batch's suggestions (validate): a turn, and a filter."""
    turn = Turn("target", "validation: answered again with the batch's suggestions",
                "(the same prompt, with the interviewer's suggestions for the batch)", str(row.get("answer_after") or ""),
                {"after": {"value": 1.0 if row["after"] else 0.0, "method": row.get("method_after", ""),
                           "reason": "", "extracted": None}}, model=model, call_id=row.get("call_after", ""))
    change = f"{'right' if row['before'] else 'wrong'} -> {'right' if row['after'] else 'wrong'}"
    return replace(view, turns=[*view.turns, turn], facets={**view.facets, "validation": change},
                   scores={**view.scores, "after": 1.0 if row["after"] else 0.0})


def question_view(record: QuestionRecord, feedback: FeedbackEntry | None, texts: dict[str, str],
                  models: dict[str, str]) -> EpisodeView:
    verdict = record.verdict
    values = {k: getattr(record, k) for k in FACETS}
    facets: dict[str, str | list[str]] = {k: _label(v) for k, v in values.items() if v is not None}
    facets["verdict"] = "right" if record.correct else "wrong"
    turns = []
    if record.path or record.generator:
        turns.append(Turn("interviewer", f"round {record.round}: question ({record.generator})",
                          "(generated from the knowledge path below)", _question(record),
                          notes={"tier": _label(record.tier), "gold": record.gold},
                          path=path_of(record.path, texts), model=models.get("interviewer", "")))
    score = {"value": 1.0 if record.correct else 0.0,  # the verdict's own `score` is not its correctness
             "method": verdict.method, "reason": verdict.reason, "extracted": verdict.extracted}
    tokens = record.tokens
    turns.append(Turn("target", f"{record.stage} answer", _messages(record.prompt), record.answer, {"correct": score},
                      {k: _label(v) for k, v in {**{f: values[f] for f in FACETS[:4]},
                       "tokens in": tokens.input if tokens else None, "tokens out": tokens.output if tokens else None,
                       "error": record.target_error}.items() if v is not None},
                      # setting=authors: the answer was parsed from the reply to the whole batch, shown here
                      details="" if record.batch_reply is None else f"the batch's reply:\n{record.batch_reply}",
                      model=models.get("target", ""), call=_call(record)))
    if feedback and feedback.feedback:
        turns.append(Turn("interviewer", f"batch {record.batch} feedback", "(the batch's questions and answers)",
                          str(feedback.feedback.get("suggestions") or ""),
                          details=json.dumps(feedback.feedback, indent=1, ensure_ascii=False),
                          model=models.get("interviewer", ""), call_id=feedback.call or ""))
    first = _question(record).strip().splitlines()  # none: a record whose question is empty (hand-edited)
    return EpisodeView(record.record_id, first[0][:300] if first else record.record_id, record.qid, facets,
                       {"correct": score["value"], "points": record.points},
                       [verdict.method] if verdict.method else [], turns, record.gold)


def _call(record: QuestionRecord) -> tuple[str, str] | None:
    """The target's call as the journal keys it: the prompt's last message and the reply as received (the whole
    batch's reply under `setting=authors`, of which the record's answer is one parsed entry)."""
    last = record.prompt[-1] if record.prompt and isinstance(record.prompt[-1], dict) else None
    if last is None:
        return None
    return str(last.get("content", "")), record.answer if record.batch_reply is None else record.batch_reply


def _question(record: QuestionRecord) -> str:
    return record.question + "".join(f"\n{k}. {v}" for k, v in (record.options or {}).items())


def _messages(prompt: list[Message]) -> str:
    return "\n\n".join(f"[{m.get('role')}] {m.get('content')}" for m in prompt if isinstance(m, dict))


def _label(value: object) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)
