"""feedback.jsonl: JudgeAgent's feedback, one entry per batch, appended as each batch finishes.

JudgeAgent's own log beside the run's records (the run's writer lock covers it, `Run.finish` syncs it). A
format-1 run is resumed by it: a batch already here returns its entry without a model call.
"""
from __future__ import annotations

import threading
from typing import Any

from ...runs import Run, first_per_key, read_rows

FEEDBACK_FILE = "feedback.jsonl"


class FeedbackLog:
    """The run's feedback entries in batch order (batches finish, and are appended, in any order)."""

    def __init__(self, run: Run) -> None:
        self.run = run
        rows = read_rows(run.folder / FEEDBACK_FILE, "batch", writer=run.writable, finished=run.finished)
        # Runs written twice over before runs had a lock hold an entry twice: the first one counts.
        self.entries = sorted(first_per_key(rows, "batch"), key=lambda f: f["batch"])
        self._by_batch = {f["batch"]: f for f in self.entries}
        self._lock = threading.Lock()

    def get(self, batch: int) -> dict[str, Any] | None:
        return self._by_batch.get(batch)

    def add(self, entry: dict[str, Any]) -> None:
        """Append a batch's entry, once (a batch run again after an interruption writes the same batch)."""
        with self._lock:
            if entry["batch"] in self._by_batch:
                return
            self.run.append(FEEDBACK_FILE, entry)
            self.entries.append(entry)
            self.entries.sort(key=lambda f: f["batch"])
            self._by_batch[entry["batch"]] = entry


def read_feedback(run: Run) -> list[dict[str, Any]]:
    """A run's feedback entries in batch order (read-only use: validate, the report, the export)."""
    return FeedbackLog(run).entries
