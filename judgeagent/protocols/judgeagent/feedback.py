"""feedback.jsonl: JudgeAgent's feedback, one entry per batch, appended as each batch finishes.

JudgeAgent's own log beside the run's records (a `RowLog` keyed by batch). A format-1 run is resumed by it: a
batch already here returns its entry without a model call.
"""
from __future__ import annotations

from typing import Any

from ...runs import RowLog, Run

FEEDBACK_FILE = "feedback.jsonl"


def feedback_log(run: Run) -> RowLog:
    return RowLog(run, FEEDBACK_FILE, "batch")


def in_batch_order(log: RowLog) -> list[dict[str, Any]]:
    """The entries in batch order (batches finish, and are appended, in any order)."""
    return sorted(log.rows.values(), key=lambda f: f["batch"])


def read_feedback(run: Run) -> list[dict[str, Any]]:
    """A run's feedback entries in batch order (read-only use: validate, the report, the export)."""
    return in_batch_order(feedback_log(run))
