"""Teach2Eval's abilities of a teacher model, from its lessons to weak students.

A lesson is one (item, student): the student answers (turn 0), then for turns 1..T the teacher judges
the student's latest answer and guides, and the student answers again. From the lessons:

- AA, application: the teacher's own zero-shot accuracy on the items.
- JA, judgment: the share of first judgments ("the student is right / wrong") that match the truth.
- GA, guidance: of the students' initially wrong answers, the share right after the first guidance.
- RA, reflection: the geometric mean over turns 2..T of the students' accuracy at turn t relative to
  turn t-1 (1.0: later turns neither help nor harm; above 1: the teacher keeps improving its guidance).
- CA, comprehensive: the student's accuracy after T turns minus before, averaged over students.

The paper's extracted text lost its equations (7)-(10); these are our reading of its definitions,
checked against the authors' released statistics script: it computes GA and the per-turn ratio
1 + (wrong->right - right->wrong) / right(t-1) = accuracy(t) / accuracy(t-1) the same way, but
multiplies the ratios where the paper says geometric mean (we follow the paper), and reads an
unparsable judgment as "wrong" (we count it as a wrong judgment whatever the truth). docs/protocols.md
says so. Every ability comes with a bootstrap interval over items.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from .rows import Estimate


@dataclass(frozen=True)
class Lesson:
    item: str
    student: str
    correct: tuple[bool, ...]
    """The student's correctness at turn 0 (alone) and after each of the T guidance turns."""
    judged_right: bool | None
    """The teacher's first judgment of the student's turn-0 answer (None: it gave none)."""


def application(teacher_correct: Sequence[bool]) -> float | None:
    return _share(sum(teacher_correct), len(teacher_correct))


def judgment(lessons: Sequence[Lesson], scoring: str = "paper") -> float | None:
    """The share of first judgments that match the truth. A missing judgment: `paper` reads it as "wrong" (the
    authors' `judge_guide` returns 0), so it matches a wrong answer; `geometric` counts it as a wrong judgment
    whatever the truth (the teacher was asked and did not judge)."""
    return _share(sum(1 for le in lessons if _judged_truly(le, scoring)), len(lessons))


def _judged_truly(le: Lesson, scoring: str) -> bool:
    """Whether the teacher's first judgment matches the truth; `paper` reads a missing one as "wrong"."""
    said = bool(le.judged_right) if scoring == "paper" else le.judged_right
    return said is not None and said == le.correct[0]


def guidance(lessons: Sequence[Lesson]) -> float | None:
    wrong = [le for le in lessons if not le.correct[0] and len(le.correct) > 1]
    return _share(sum(le.correct[1] for le in wrong), len(wrong))


def reflection(lessons: Sequence[Lesson], scoring: str = "paper") -> float | None:
    """From the ratios accuracy(t) / accuracy(t-1) over turns t >= 2: `paper`, their product minus 1 (the
    authors' `reflect_ability`, whose tables show it x100: 0 means later turns neither help nor harm); `geometric`,
    their geometric mean (1 means the same). None with fewer than 2 turns or when a turn's previous accuracy is 0
    (no ratio)."""
    turns = min((len(le.correct) for le in lessons), default=0) - 1
    if turns < 2:
        return None
    ratios = []
    for t in range(2, turns + 1):
        before = sum(le.correct[t - 1] for le in lessons)
        after = sum(le.correct[t] for le in lessons)
        if before == 0:
            return None
        ratios.append(after / before)
    return _combined(ratios, scoring)


def _combined(ratios: list[float], scoring: str) -> float:
    """The per-turn ratios as RA: `paper` their product minus 1, `geometric` their geometric mean."""
    if scoring == "paper":
        return math.prod(ratios) - 1
    if any(r == 0 for r in ratios):
        return 0.0
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def comprehensive(lessons: Sequence[Lesson]) -> float | None:
    """Accuracy after the last turn minus accuracy alone, per student, averaged over students."""
    by_student: dict[str, list[Lesson]] = {}
    for le in lessons:
        by_student.setdefault(le.student, []).append(le)
    gains = [(sum(le.correct[-1] for le in ls) - sum(le.correct[0] for le in ls)) / len(ls)
             for ls in by_student.values() if ls]
    return sum(gains) / len(gains) if gains else None


class Abilities(TypedDict):
    """The five abilities with their intervals, and the students' accuracy per turn (student -> by turn)."""

    AA: Estimate
    JA: Estimate
    GA: Estimate
    RA: Estimate
    CA: Estimate
    student_accuracy_by_turn: dict[str, list[float]]


def abilities(lessons: Sequence[Lesson], teacher_correct: dict[str, bool], resamples: int = 1000,
              seed: int = 0, scoring: str = "paper") -> Abilities:
    """AA, JA, GA, RA, CA with 95% bootstrap intervals over items (a resample keeps an item's lessons
    with every student together), plus the students' accuracy per turn. With several students, JA, GA
    and RA are each student's value averaged over students, as CA is (and as the paper's code does)."""
    items = sorted({le.item for le in lessons} | set(teacher_correct))
    by_item: dict[str, list[Lesson]] = {}  # built once: every resample draws from it
    for le in lessons:
        by_item.setdefault(le.item, []).append(le)
    metrics: dict[str, Callable[[list[str]], float | None]] = {
        "AA": lambda keep: application([teacher_correct[i] for i in keep if i in teacher_correct]),
        "JA": lambda keep: per_student(lambda ls: judgment(ls, scoring), _of(by_item, keep)),
        "GA": lambda keep: per_student(guidance, _of(by_item, keep)),
        "RA": lambda keep: per_student(lambda ls: reflection(ls, scoring), _of(by_item, keep)),
        "CA": lambda keep: comprehensive(_of(by_item, keep)),
    }
    rng = random.Random(seed)
    draws = [[rng.choice(items) for _ in items] for _ in range(resamples)] if items else []
    resampled = _Resampled(lessons, teacher_correct, items, draws, scoring)
    out: dict[str, Estimate | dict[str, list[float]]] = {}
    for name, metric in metrics.items():
        values = [v for v in resampled.values(name) if v is not None]
        out[name] = Estimate(value=metric(items), interval=_percentiles(values))
    out["student_accuracy_by_turn"] = _accuracy_by_turn(lessons)
    return cast(Abilities, out)


class _Resampled:
    """The metrics of every bootstrap resample, from counts: a resample is how many times it drew each item,
    and each metric a ratio of sums over the drawn items' lessons, so one integer product of the draws' counts
    with per-(item, student) counts gives every resample's sums at once. Each value is then computed with the
    same integer sums, divisions and summation order as the metric functions on the resample's lesson list
    (which took 1.05 s for two scorings at 200 items x 3 students, now 0.16 s; tests/test_teaching.py holds
    the two equal)."""

    def __init__(self, lessons: Sequence[Lesson], teacher_correct: dict[str, bool], items: list[str],
                 draws: list[list[str]], scoring: str) -> None:
        import numpy as np

        self.scoring = scoring
        self.students = list(dict.fromkeys(le.student for le in lessons))
        row, col = {i: k for k, i in enumerate(items)}, {s: k for k, s in enumerate(self.students)}
        n_items, n_students = len(items), len(self.students)
        turns = max((len(le.correct) for le in lessons), default=1)
        counts = np.array([np.bincount([row[i] for i in draw], minlength=n_items) for draw in draws],
                          dtype=np.int64).reshape(len(draws), n_items)

        def table(value: Callable[[Lesson], int]) -> Any:  # per item and student, summed over its lessons
            t = np.zeros((n_items, n_students), dtype=np.int64)
            for le in lessons:
                t[row[le.item], col[le.student]] += value(le)
            return counts @ t

        self.lessons = table(lambda le: 1)
        self.matches = table(lambda le: _judged_truly(le, scoring))
        self.wrong = table(lambda le: not le.correct[0] and len(le.correct) > 1)
        self.guided = table(lambda le: not le.correct[0] and len(le.correct) > 1 and le.correct[1])
        self.first = table(lambda le: le.correct[0])
        self.last = table(lambda le: le.correct[-1])
        self.by_turn = [table(lambda le, t=t: len(le.correct) > t and le.correct[t])
                        for t in range(turns)]
        shortest = np.full((n_items, n_students), np.iinfo(np.int64).max)
        for le in lessons:
            k = (row[le.item], col[le.student])
            shortest[k] = min(shortest[k], len(le.correct))
        self.shortest = np.where(counts[:, :, None] > 0, shortest[None], np.iinfo(np.int64).max).min(axis=1)
        self.answered = counts @ np.array([i in teacher_correct for i in items], dtype=np.int64)
        self.right = counts @ np.array([teacher_correct.get(i, False) for i in items], dtype=np.int64)
        students_of: dict[str, dict[int, None]] = {}  # per item, its students in lesson order
        for le in lessons:
            students_of.setdefault(le.item, {})[col[le.student]] = None
        self.orders = [_first_seen(draw, students_of, n_students) for draw in draws]
        """Per resample, its students in the order their first lesson comes in its lesson list: per_student
        and comprehensive average in that order."""

    def values(self, name: str) -> list[float | None]:
        if name == "AA":
            return [_share(int(k), int(n)) for k, n in zip(self.right, self.answered)]
        if name == "CA":
            return [_mean([(int(self.last[r, s]) - int(self.first[r, s])) / int(self.lessons[r, s])
                           for s in order]) for r, order in enumerate(self.orders)]
        per = {"JA": self._judgment, "GA": self._guidance, "RA": self._reflection}[name]
        return [_mean([v for v in (per(r, s) for s in order) if v is not None])
                for r, order in enumerate(self.orders)]

    def _judgment(self, r: int, s: int) -> float | None:
        return _share(int(self.matches[r, s]), int(self.lessons[r, s]))

    def _guidance(self, r: int, s: int) -> float | None:
        return _share(int(self.guided[r, s]), int(self.wrong[r, s]))

    def _reflection(self, r: int, s: int) -> float | None:
        turns = int(self.shortest[r, s]) - 1
        if turns < 2:
            return None
        ratios = []
        for t in range(2, turns + 1):
            before, after = int(self.by_turn[t - 1][r, s]), int(self.by_turn[t][r, s])
            if before == 0:
                return None
            ratios.append(after / before)
        return _combined(ratios, self.scoring)


def _first_seen(draw: list[str], taught: dict[str, dict[int, None]], everyone: int) -> list[int]:
    seen: dict[int, None] = {}
    for i in draw:
        seen.update(taught.get(i, {}))
        if len(seen) == everyone:
            break
    return list(seen)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def per_student(metric: Callable[[Sequence[Lesson]], float | None], lessons: Sequence[Lesson]) -> float | None:
    """`metric` of each student's lessons, averaged over the students for whom it is defined."""
    by_student: dict[str, list[Lesson]] = {}
    for le in lessons:
        by_student.setdefault(le.student, []).append(le)
    values = [v for v in (metric(ls) for ls in by_student.values()) if v is not None]
    return sum(values) / len(values) if values else None


def _of(by_item: dict[str, list[Lesson]], keep: list[str]) -> list[Lesson]:
    return [le for i in keep for le in by_item.get(i, [])]


def _accuracy_by_turn(lessons: Sequence[Lesson]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for student in sorted({le.student for le in lessons}):
        ls = [le for le in lessons if le.student == student]
        turns = min(len(le.correct) for le in ls)
        out[student] = [sum(le.correct[t] for le in ls) / len(ls) for t in range(turns)]
    return out


def _percentiles(values: list[float]) -> list[float] | None:
    if len(values) < 2:
        return None
    values = sorted(values)
    return [values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]]


def _share(k: int, n: int) -> float | None:
    return k / n if n else None
