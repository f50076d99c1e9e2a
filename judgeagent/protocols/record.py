"""`Record` and `Score`: the one envelope every protocol writes per model turn that matters."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from ..grading.verdict import Verdict


class ScoreRow(TypedDict):
    """A `Score` as records.jsonl holds it (and the viewer shows it)."""

    value: float
    method: str
    reason: str
    extracted: str | None


class RecordRow(TypedDict):
    """A `Record` as records.jsonl holds it."""

    record_id: str
    protocol: str
    episode: str
    turn: int
    role: str
    prompt: str
    reply: str
    scores: dict[str, ScoreRow]
    meta: dict[str, Any]
    """The protocol's own fields (stage, round, seat, ...): each protocol's, of any JSON shape."""


CALL_KEY = "call"
"""The meta field (and feedback or validation row field) naming the journaled call a turn came from (`call_id`)."""


def call_id(messages: Sequence[Mapping[str, Any]], reply: str) -> str:
    """A journaled call's short name: its last message sent and its reply as received, hashed. A record whose prompt
    or reply is not the call's own (an interviewer's feedback shown after the answer it is on, a text parsed out of
    a JSON reply, a prompt cut short) keeps it, so that the Inspect export finds the call in the run's journal."""
    last = str(messages[-1].get("content", "")) if messages else ""
    return hashlib.sha256(f"{last}\0{reply}".encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Score:
    """One judgement of a reply: `value` in [0, 1] (1 = correct), and how it was reached."""

    value: float
    method: str
    """A `grading.verdict.METHODS` key, or the protocol's own (e.g. `followup_judge`)."""
    reason: str = ""
    extracted: str | None = None

    @classmethod
    def of(cls, verdict: Verdict) -> Score:
        return cls(1.0 if verdict.correct else 0.0, verdict.method, verdict.reason, verdict.extracted)

    def to_dict(self) -> ScoreRow:
        return {"value": self.value, "method": self.method, "reason": self.reason, "extracted": self.extracted}


@dataclass(frozen=True)
class Record:
    """A model turn: who said it (`role`), to what (`prompt`, the last message it saw), and its scores.

    `record_id` is a function of the episode and the step alone, so that an episode run again after an
    interruption writes the same ids and the run keeps the first copy of each. Protocol-specific fields
    live in `meta`.
    """

    record_id: str
    protocol: str
    episode: str
    turn: int
    role: str
    prompt: str
    reply: str
    scores: dict[str, Score] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> RecordRow:
        return asdict(self)  # type: ignore[return-value]  # its fields, meta deep-copied

    @classmethod
    def read(cls, row: RecordRow, path: Path) -> Record:
        """A record read back from `path` (records.jsonl), its fields checked: one line `FILE:LINE: ...` if not."""
        from .rows import RecordModel, check_row

        check_row(RecordModel, dict(row), path)
        return cls.from_dict(row)

    @classmethod
    def from_dict(cls, row: RecordRow) -> Record:
        scores = {k: Score(**v) for k, v in (row.get("scores") or {}).items()}
        return cls(row["record_id"], row["protocol"], row["episode"], row["turn"], row["role"], row["prompt"],
                   row["reply"], scores, row.get("meta") or {})
