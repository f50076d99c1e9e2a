"""`setting=authors` on the feedback side: the authors' code (DataArcTech/JudgeAgent@2b1b921) asks no feedback on a
batch answered all right so far, and validates every batch without feedback with its first answers reused.

judge_agent.py, `stage_evaluation_feedback`: the interviewer is asked only `if data.get_accuracy(ridx) < 1` (the
accuracy over the base answers and the extension answers of rounds 1..ridx); the requery then reuses
`llm_answers` and `corrects` for a batch whose evaluation `is_empty()` (no suggestions: skipped, or a reply that
did not parse), and `get_statistic` counts that batch like any other. So there ACC2 = ACC1 and CR = CtE = 0 by
construction, and such batches pull the rates towards 0: they are in N_total.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

ALL_RIGHT = "not asked: every answer of the batch so far is right (setting=authors, as the authors' code)"
"""The `feedback_error` of a batch whose feedback `setting=authors` skips (feedback.jsonl)."""


class Answered(Protocol):
    """A judged answer (a `QuestionRecord`)."""

    @property
    def correct(self) -> bool: ...

    @property
    def held_out(self) -> bool: ...


def skips_feedback(setting: str, records: Iterable[Answered]) -> bool:
    """Whether `setting=authors` asks no feedback on a batch whose answers so far are `records`: all right. Held-out
    questions (our `holdout`, which the authors lack) are left out, as they are of the feedback's transcript."""
    seen = [r for r in records if not r.held_out]
    return setting == "authors" and bool(seen) and all(r.correct for r in seen)


def setting_of(config: Mapping[str, Any]) -> str:
    """A run's setting from its manifest's config (runs from before settings existed are `ours`)."""
    return str(config.get("setting", "ours"))


def reuses_first_answers(config: Mapping[str, Any]) -> bool:
    """Whether a batch without feedback is validated with its first answers (ACC2 = ACC1 there), not left out."""
    return setting_of(config) == "authors"


def reuse_reason(feedback_error: str | None) -> str:
    """Why a validation row's answer with suggestions is its first answer (validation.jsonl's `reused`)."""
    return "all right" if feedback_error == ALL_RIGHT else "feedback failed"
