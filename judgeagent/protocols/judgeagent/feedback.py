"""feedback.jsonl: JudgeAgent's feedback, one entry per batch, appended as each batch finishes.

JudgeAgent's own log beside the run's records (a `RowLog` keyed by batch). A format-1 run is resumed by it: a
batch already here returns its entry without a model call.
"""
from __future__ import annotations

from ...runs import RowLog, Run
from .records import FeedbackEntry, entries

FEEDBACK_FILE = "feedback.jsonl"


def feedback_log(run: Run) -> RowLog:
    return RowLog(run, FEEDBACK_FILE, "batch")


def read_feedback(run: Run) -> list[FeedbackEntry]:
    """A run's feedback entries in batch order (read-only use: validate, the report, the export)."""
    return entries(feedback_log(run))
