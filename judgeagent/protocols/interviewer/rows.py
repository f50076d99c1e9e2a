"""The interviewer protocol's rows in episodes.jsonl and its summary. JSON-shaped, so TypedDicts: a row is read back
as written (keys a later version added, such as a version's `method`, are read with a default)."""
from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from ...grading.calibration import CalibrationRecord


class Leakage(TypedDict):
    """The leakage guard on one interviewer text: gold strings found, asked again, redacted."""

    detected: list[str]
    regenerated: bool
    redacted: bool


class VersionText(TypedDict):
    question: str
    options: dict[str, str] | None
    gold_letter: str | None
    golds: list[str]


class Versions(TypedDict, total=False):
    """The item as the benchmark has it and as it was asked (`modify.describe`)."""

    original: VersionText
    modified: VersionText
    changed: bool
    note: str
    method: str
    gold_source: str
    withheld: str


class ErrorRow(TypedDict):
    """A wrong attempt that got feedback: the interviewer's error type, the answer and the feedback (one line)."""

    attempt: int
    error_type: str
    answer: str
    feedback: str


class FollowupRow(TypedDict, total=False):
    kind: str
    score: float
    question: str
    tries: int


class Unclarified(TypedDict):
    """With key information removed: whether the interviewee asked for it, where it was given, whether it answered
    right without it (None: it did not answer without it)."""

    asked: bool
    given_at: str | None
    right_without: bool | None


class ItemRow(TypedDict, total=False):
    """An item's row (less the runner's `episode` and `index`)."""

    qid: str
    versions: Versions
    original_correct: bool | None
    """The contamination probe: the original wording answered right (None: not asked)."""
    attempts: list[bool]
    solved: bool
    errors: list[ErrorRow]
    followups: list[FollowupRow]
    transcript: str
    unclarified: Unclarified
    fact_scores: list[float]


class MeanScore(TypedDict):
    n: int
    score: float | None


class Probe(TypedDict, total=False):
    """Original vs modified accuracy on the same items (first attempt); only `n` (0) when no item was asked both
    ways."""

    n: int
    original_accuracy: float
    modified_accuracy: float
    gap: float
    gap_interval: list[float] | None
    only_original: int
    only_modified: int
    mcnemar_p: float


class ErrorExample(ErrorRow):
    qid: str


class Errors(TypedDict):
    wrong_answers_with_feedback: int
    rates: dict[str, float]
    counts: dict[str, int]
    examples: dict[str, list[ErrorExample]]


class Scoring(TypedDict, total=False):
    followups: str
    answers: str
    modification: str
    facts: bool


class Summary(TypedDict, total=False):
    """summary.json of an interviewer run (`report.numbers`, with the protocol's scoring, calibration, trust mark
    and written summary, and the runner's `usage`)."""

    items: int
    score_at: dict[str, float | None]
    adaptability: float | None
    followup: dict[str, object]
    """`all`, `seed_solved`, `seed_failed` (each a `MeanScore`), `by_kind` and, when retried, `retried`."""
    errors: Errors
    probe: Probe
    modified: int
    modification_notes: dict[str, int]
    modification_methods: dict[str, int]
    fact_score_at: dict[str, float]
    unclarified: dict[str, int]
    scoring: Scoring
    judge_calibration: CalibrationRecord | None
    trust: dict[str, str | None]
    interviewer_summary: str
    usage: dict[str, dict[str, float]]
