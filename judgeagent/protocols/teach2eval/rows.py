"""Teach2Eval's rows in episodes.jsonl: an item, its teacher's own answer, and each student's lesson turn by turn.

JSON-shaped, so TypedDicts: a row is read back as written. Keys a run of judgeagent before 0.2 wrote under other
names (`answer_letter`, a step's `letter`) are read by `report.gold_letter` and `report.reply_letter`.
"""
from __future__ import annotations

from typing import TypedDict


class Step(TypedDict, total=False):
    """One student answer and, once the teacher has spoken, the judgment and guidance that followed it."""

    turn: int
    reply: str
    reply_letter: str | None
    correct: bool
    judged_right: bool | None
    """The teacher's verdict on this answer (None: it gave none that could be read)."""
    teacher: str
    guidance: str
    """What the student was shown: the teacher's words, redacted when they gave the answer away."""
    leaked: list[str]
    letter: str | None
    """Before 0.2: `reply_letter`."""


class Leak(TypedDict):
    turn: int
    strings: list[str]
    student_right: bool


class LessonRow(TypedDict):
    """A student's lesson on an item: its correctness per turn, the teacher's judgments, leaks caught."""

    student: str
    model: str
    correct: list[bool]
    judgments: list[bool | None]
    leaks: list[Leak]
    no_letter: int
    steps: list[Step]


class ItemRow(TypedDict, total=False):
    """An item's row in episodes.jsonl (less the runner's `episode` and `index`)."""

    qid: str
    question: str
    options: dict[str, str] | None
    gold_letter: str | None
    answer_letter: str | None
    """Before 0.2: `gold_letter`."""
    options_from: str
    teacher_correct: bool
    lessons: list[LessonRow]


class ShownLesson(LessonRow):
    """A lesson the report shows in full, with its item."""

    qid: str
    question: str
    options: dict[str, str] | None
    gold_letter: str | None


class Estimate(TypedDict):
    """An ability's value and its 95% bootstrap interval over items (None: nothing to measure it on)."""

    value: float | None
    interval: list[float] | None


class Conversion(TypedDict):
    """How the benchmark was made multiple-choice (`items.as_choice`; the manifest's `mcq`)."""

    items: int
    taught: int
    """Items taught: the benchmark's multiple-choice ones and the free-text ones given options."""
    options_from: dict[str, int]
    """Where the options came from (`choice`: the benchmark's own; else `meta.options_from`), items each."""
    skipped: dict[str, int]
    """Free-text items that could not be given options, by reason."""


class Counts(TypedDict):
    answers: int
    no_letter: int
    teacher_turns: int
    unparsed_judgments: int
    leaks: int
    leaks_after_wrong: int


class StudentNumbers(Counts):
    model: str
    lessons: int
    abilities: dict[str, Estimate]
    accuracy_by_turn: list[float | None]
    baseline: float | None
    judgments: dict[str, dict[str, int]]


class Summary(Counts, total=False):
    """summary.json of a Teach2Eval run (`report.numbers`, with the protocol's `conversion` and `tell_answer` and
    the runner's `usage`); a summary written before 0.2 has no `scoring` (it was geometric)."""

    items: int
    turns: int
    students: int
    scoring: str
    abilities: dict[str, Estimate]
    baseline: float | None
    per_student: dict[str, StudentNumbers]
    judgments: dict[str, dict[str, int]]
    options_from: dict[str, int]
    shown: list[ShownLesson]
    conversion: Conversion
    """How the benchmark was made multiple-choice (`items.McqBenchmark.conversion`)."""
    tell_answer: bool
    usage: dict[str, dict[str, float]]
