"""`Record` and `Score`: the one envelope every protocol writes per model turn that matters."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..grading.verdict import Verdict


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Record:
        scores = {k: Score(**v) for k, v in (row.get("scores") or {}).items()}
        return cls(row["record_id"], row["protocol"], row["episode"], row["turn"], row["role"], row["prompt"],
                   row["reply"], scores, row.get("meta") or {})
