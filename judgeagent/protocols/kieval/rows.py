"""KIEval's rows in episodes.jsonl: an item's verification, its benchmark answer, its knowledge path and its
dialogue round by round with each round's evaluation. JSON-shaped, so TypedDicts: a row is read back as written
(`rescore` and the report read older runs' rows with the keys they had)."""
from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from ...grading.calibration import CalibrationRecord
    from ...models.roles import RoleDescription
    from ...models.usage import UsageLine
    from .agreement import Agreement


class AspectDump(TypedDict):
    score: int
    comment: str


class EvaluationDump(TypedDict):
    """`rubric.TurnEvaluation` as stored (`model_dump(mode="json")`): what `rescore` reads back."""

    accuracy: AspectDump
    logic: AspectDump
    relevance: AspectDump
    coherence: AspectDump
    conciseness: AspectDump
    overall_comment: str
    overall_score: int
    stop_conversation: bool
    stop_reason: str


class VerifiedBy(TypedDict):
    """A seat's own answer to the item (interactor, evaluator), checked against the gold."""

    answer: str
    correct: bool
    method: str


class PathRow(TypedDict):
    seed: str
    entities: list[str]
    chunk_ids: list[str]
    text: str


class TurnRow(TypedDict):
    speaker: str
    content: str
    round: int


class RoundRow(TypedDict):
    round: int
    question: str
    fallback_question: bool
    reply: str
    evaluation: EvaluationDump | None
    failure: str
    stop_reason: str


class DialogueRow(TypedDict, total=False):
    """An item's row (less the runner's `episode` and `index`); an item both seats got wrong in verification is
    dropped (`verified` False, `dropped`) with no dialogue."""

    qid: str
    question: str
    options: dict[str, str] | None
    gold: str
    gold_letter: str | None
    verification: dict[str, VerifiedBy]
    verified: bool
    dropped: str
    correct: bool
    answer_method: str
    path: PathRow | None
    turns: list[TurnRow]
    rounds: list[RoundRow]
    stop_reason: str
    valid_rounds: int


class ScoringUsed(TypedDict):
    scoring: str
    decay: bool
    early_stop: bool


class Example(TypedDict):
    """A conversation the report shows in full (the best, median and worst by overall KIEval score)."""

    qid: str
    scores: dict[str, float | None]
    turns: list[TurnRow]
    rounds: list[RoundRow]
    path: PathRow | None
    stop_reason: str
    correct: bool


class Summary(TypedDict, total=False):
    """summary.json of a KIEval run (`report.numbers`, with the protocol's evaluator, calibration and trust mark,
    and the runner's `usage`); a summary written before 0.2 has no `scoring` (it was linear)."""

    items: int
    conversations: int
    scored_conversations: int
    dropped: int
    dropped_by_reason: dict[str, int]
    kieval: dict[str, float | None]
    """Per aspect and overall, the mean KIEval score over the scored conversations (0..1)."""
    turn_means: dict[str, float | None]
    valid_rounds: float | None
    rounds: int
    scoring: ScoringUsed
    early_stops: int
    early_stops_by_reason: dict[str, int]
    evaluations: int
    failed_evaluations: int
    benchmark_accuracy: float | None
    intervals: dict[str, list[float] | None]
    examples: dict[str, Example]
    evaluator: str
    judge_calibration: CalibrationRecord | None
    trust: dict[str, str | None]
    usage: dict[str, dict[str, float]]


class FirstEvaluator(TypedDict):
    """A rescore's first evaluator: the run's own, and its KIEval scores from the run's summary."""

    evaluator: str
    kieval: dict[str, float | None]


class SecondEvaluator(Summary, total=False):
    """A rescore's second evaluator: its name, its description, and the run's conversations' numbers by it."""

    model: RoleDescription


class ConversationRef(TypedDict):
    episode: str
    qid: str
    rounds: list[RoundRow]


class RescoreResult(TypedDict, total=False):
    """`rescore-<evaluator>.json`: a KIEval run's conversations scored again by another evaluator (`rescore`)."""

    run: str
    first: FirstEvaluator
    second: SecondEvaluator
    agreement: dict[str, Agreement]
    """Per aspect and overall, over the turns both evaluators scored validly."""
    usage: dict[str, UsageLine]
    model_changes: list[str]
    """Present when the evaluator's name resolved to another model than the rescore began with."""
    conversations: list[ConversationRef]
    file: str
