"""JudgeAgent's records in memory: a question's record and a batch's feedback entry, typed; dicts only at the file.

records.jsonl holds a `QuestionRecord` per question asked, feedback.jsonl a `FeedbackEntry` per batch, each
written by `to_dict` (the keys in the order runs have always had, so the files stay byte for byte what they were)
and read by `from_dict`, which also opens a record of an earlier version that lacks the keys added since (format
1's: no tier, question type, held-out mark, aliases, generator, entities or tokens): it takes the value that the
readers took for a missing key before the records were typed.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from ...grading.verdict import Verdict
from ...models.base import Message

if TYPE_CHECKING:
    from ...runs import RowLog, Run


class PathInfo(TypedDict, total=False):
    """What a record says of its round's path: its entities and chunks, and how it was found (a graph walk's
    seed and similarities; `random` for --no-graph, `dense` for --path dense); `relevance` to the batch."""

    entities: list[str]
    entity_ids: list[int]
    chunk_ids: list[str]
    random: bool
    dense: bool
    seed: str
    seed_kind: str
    similarities: list[float]
    stopped_early: bool
    relevance: float | None
    window: int
    """`setting=authors`: which window of the batch's one walk (`walk`, its entities) the round's path is."""
    walk: list[str]


class RoundInfo(TypedDict, total=False):
    """An extension round in a batch's feedback entry: its tier, path and rejected candidates; `skipped` says
    why it asked nothing."""

    round: int
    tier: str
    path: PathInfo
    rejected: list[str]
    generator: str
    skipped: str


class FeedbackText(TypedDict):
    """The interviewer's feedback on a batch (`prompts.Feedback`, dumped)."""

    flaws_knowledge: str
    flaws_capability: str
    comprehensive_performance: str
    suggestions: str


class VerdictRow(TypedDict):
    method: str
    reason: str
    extracted: str | None
    score: float | None


class TokensRow(TypedDict):
    input: int
    output: int
    cached: bool


QuestionRow = TypedDict("QuestionRow", {
    "record_id": str, "protocol": str, "batch": int, "stage": str, "round": int, "qid": str | None,
    "difficulty": str | None, "tier": str | None, "question_type": str | None, "held_out": bool, "question": str,
    "options": dict[str, str] | None, "gold": str, "aliases": list[str], "gold_letter": str | None,
    "path": PathInfo | None, "generator": str | None, "entities": list[str] | None, "prompt": list[Message],
    "answer": str, "target_error": str | None, "correct": bool, "verdict": VerdictRow, "points": float,
    "tokens": TokensRow | None, "batch_reply": NotRequired[str]})
"""A row of records.jsonl. `batch_reply` only under `setting=authors`."""


class LeakageRow(TypedDict):
    detected: list[str]
    regenerated: bool
    redacted: bool


class FeedbackRow(TypedDict):
    """A row of feedback.jsonl."""

    batch: int
    qids: list[str | None]
    feedback: FeedbackText | None
    feedback_error: str | None
    leakage: LeakageRow
    score: float
    asked: int
    trajectory: list[str]
    rounds: list[RoundInfo]
    call: NotRequired[str]
    """The journaled call the feedback came from (`record.call_id`); absent in runs written before it was kept."""


@dataclass(frozen=True)
class JudgedAs:
    """How a record's answer was judged: the verdict less its correctness (the record's `correct`)."""

    method: str
    reason: str = ""
    extracted: str | None = None
    score: float | None = None

    @classmethod
    def of(cls, verdict: Verdict) -> JudgedAs:
        return cls(verdict.method, verdict.reason, verdict.extracted, verdict.score)

    def to_dict(self) -> VerdictRow:
        return {"method": self.method, "reason": self.reason, "extracted": self.extracted, "score": self.score}


@dataclass(frozen=True)
class Tokens:
    """The target's tokens for the answer, and whether the reply came from the response cache."""

    input: int
    output: int
    cached: bool

    def to_dict(self) -> TokensRow:
        return {"input": self.input, "output": self.output, "cached": self.cached}


@dataclass(frozen=True)
class QuestionRecord:
    """One question put to the target (a base question, `stage` grading, or an extension question of round
    `round`), its answer and how it was judged; `points` is what it adds to the batch's score."""

    record_id: str
    batch: int
    stage: str
    round: int
    qid: str | None
    difficulty: str | None
    question: str
    gold: str
    answer: str
    correct: bool
    verdict: JudgedAs
    points: float
    tier: str | None = None
    question_type: str | None = None
    held_out: bool = False
    options: dict[str, str] | None = None
    aliases: tuple[str, ...] = ()
    gold_letter: str | None = None
    path: PathInfo | None = None
    generator: str | None = None
    entities: list[str] | None = None
    """Graph entities a base question and its gold mention (the report's knowledge gaps)."""
    prompt: list[Message] = field(default_factory=list)
    """The messages the target was sent."""
    target_error: str | None = None
    tokens: Tokens | None = None
    batch_reply: str | None = None
    """`setting=authors`: the target's whole reply to the prompt that asked the batch's questions together (the same
    on each of their records), from which `answer` was parsed; `prompt` and `tokens` are that call's."""
    protocol: str = "judgeagent"

    @property
    def golds(self) -> tuple[str, ...]:
        """The gold answer and its aliases."""
        return (self.gold, *self.aliases)

    @property
    def path_entities(self) -> list[str]:
        return list((self.path or {}).get("entities") or [])

    @property
    def chunk_ids(self) -> list[str]:
        return list((self.path or {}).get("chunk_ids") or [])

    def to_dict(self) -> QuestionRow:
        """The row of records.jsonl, its keys in the order runs have always written them (`batch_reply` last, and
        only when there is one: a run at `setting=ours` writes its rows as before)."""
        row: QuestionRow = {
            "record_id": self.record_id, "protocol": self.protocol, "batch": self.batch, "stage": self.stage,
            "round": self.round, "qid": self.qid, "difficulty": self.difficulty, "tier": self.tier,
            "question_type": self.question_type, "held_out": self.held_out, "question": self.question,
            "options": self.options, "gold": self.gold, "aliases": list(self.aliases), "gold_letter": self.gold_letter,
            "path": self.path, "generator": self.generator, "entities": self.entities, "prompt": self.prompt,
            "answer": self.answer, "target_error": self.target_error, "correct": self.correct,
            "verdict": self.verdict.to_dict(), "points": self.points,
            "tokens": None if self.tokens is None else self.tokens.to_dict(),
        }
        if self.batch_reply is not None:
            row["batch_reply"] = self.batch_reply
        return row

    @classmethod
    def read(cls, row: Mapping[str, Any], path: Path) -> QuestionRecord:
        """A record read back from `path` (records.jsonl), its fields checked first."""
        from ..rows import QuestionModel, check_row

        check_row(QuestionModel, dict(row), path)
        return cls.from_dict(row)

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> QuestionRecord:
        verdict, tokens = row.get("verdict") or {}, row.get("tokens")
        return cls(
            record_id=row["record_id"], batch=int(row.get("batch", 0)), stage=row["stage"],
            round=row.get("round", 0), qid=row.get("qid"), difficulty=row.get("difficulty"),
            question=row.get("question") or "", gold=row.get("gold") or "", answer=row.get("answer") or "",
            correct=bool(row.get("correct")),
            verdict=JudgedAs(verdict.get("method", ""), verdict.get("reason", ""), verdict.get("extracted"),
                             verdict.get("score")),
            points=float(row.get("points") or 0.0), tier=row.get("tier"), question_type=row.get("question_type"),
            held_out=bool(row.get("held_out")), options=row.get("options") or None,
            aliases=tuple(row.get("aliases") or ()), gold_letter=row.get("gold_letter"), path=row.get("path") or None,
            generator=row.get("generator"), entities=row.get("entities"), prompt=_messages(row.get("prompt")),
            target_error=row.get("target_error"),
            tokens=None if not tokens else Tokens(tokens.get("input", 0), tokens.get("output", 0),
                                                   bool(tokens.get("cached"))),
            batch_reply=row.get("batch_reply"), protocol=row.get("protocol", "judgeagent"),
        )


@dataclass(frozen=True)
class Leakage:
    """The feedback's leakage guard: the gold strings found in it, and whether it was asked again and redacted."""

    detected: list[str] = field(default_factory=list)
    regenerated: bool = False
    redacted: bool = False

    def to_dict(self) -> LeakageRow:
        return {"detected": self.detected, "regenerated": self.regenerated, "redacted": self.redacted}


@dataclass(frozen=True)
class FeedbackEntry:
    """A finished batch: the interviewer's feedback on it (None, with `feedback_error`, when there is none), the
    leakage guard's findings, its score over the questions asked, its tier trajectory and extension rounds."""

    batch: int
    qids: list[str | None]
    feedback: FeedbackText | None
    feedback_error: str | None
    leakage: Leakage
    score: float
    asked: int
    trajectory: list[str]
    rounds: list[RoundInfo]
    call: str | None = None
    """The journaled call the feedback came from (`record.call_id`); None: no feedback call, or an older run."""

    @property
    def suggestions(self) -> str | None:
        return self.feedback["suggestions"] if self.feedback else None

    def to_dict(self) -> FeedbackRow:
        """The row of feedback.jsonl, its keys in the order runs have always written them."""
        row: FeedbackRow = {"batch": self.batch, "qids": self.qids, "feedback": self.feedback,
                            "feedback_error": self.feedback_error, "leakage": self.leakage.to_dict(),
                            "score": self.score, "asked": self.asked, "trajectory": self.trajectory,
                            "rounds": self.rounds}
        if self.call:
            row["call"] = self.call
        return row

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> FeedbackEntry:
        leak = row.get("leakage") or {}
        return cls(row["batch"], list(row.get("qids") or []), row.get("feedback"), row.get("feedback_error"),
                   Leakage(list(leak.get("detected") or []), bool(leak.get("regenerated")), bool(leak.get("redacted"))),
                   row.get("score", 0.0), row.get("asked", 0), list(row.get("trajectory") or []),
                   list(row.get("rounds") or []), str(row.get("call") or "") or None)


class BatchRow(TypedDict):
    """A batch's row in episodes.jsonl: what its feedback entry says of its score and tiers."""

    batch: int
    qids: list[str | None]
    score: float
    asked: int
    trajectory: list[str]
    rounds_run: int
    rounds_skipped: int
    leaks_detected: int
    feedback_error: str | None


def batch_row(feedback: FeedbackEntry) -> BatchRow:
    """A batch's row in episodes.jsonl (the entry itself, suggestions and leakage included, stays in
    feedback.jsonl)."""
    rounds = feedback.rounds
    return {"batch": feedback.batch, "qids": feedback.qids, "score": feedback.score, "asked": feedback.asked,
            "trajectory": feedback.trajectory, "rounds_run": sum(1 for r in rounds if "skipped" not in r),
            "rounds_skipped": sum(1 for r in rounds if "skipped" in r), "leaks_detected": len(feedback.leakage.detected),
            "feedback_error": feedback.feedback_error}


def _messages(prompt: object) -> list[Message]:
    """A record's prompt: its messages (a bare string, as no version wrote, is one user message)."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}] if prompt else []
    return list(prompt) if isinstance(prompt, list) else []


def question_records(run: Run) -> list[QuestionRecord]:
    """A JudgeAgent run's records, typed, by batch, round and record id (`in_order`); a row with a field of the
    wrong kind is one line `records.jsonl:LINE: field ...`."""
    return sorted((QuestionRecord.read(r, run.folder / "records.jsonl") for r in run.records), key=in_order)


def in_order(r: QuestionRecord) -> tuple[int, int, tuple[str | int, ...]]:
    """Episodes append their records in the order they finish, which two runs of one configuration do not share:
    a report's rows, its ties (the most failed entities, the judging methods), the spot-check draw, the trainer
    export and a weakness's counts are read in this order instead, so the same run reads the same. The record id's
    numbers compare as numbers (`b0-r2-q10` after `b0-r2-q9`)."""
    parts = re.split(r"(\d+)", r.record_id)  # text at even places, numbers at odd ones: always comparable
    return r.batch, r.round, tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def as_records(rows: Iterable[Mapping[str, Any]]) -> list[QuestionRecord]:
    return [QuestionRecord.from_dict(r) for r in rows]


def entries(log: RowLog) -> list[FeedbackEntry]:
    """A feedback log's entries, typed, in batch order (batches finish, and are appended, in any order)."""
    return sorted((FeedbackEntry.from_dict(r) for r in log.rows.values()), key=lambda f: f.batch)
