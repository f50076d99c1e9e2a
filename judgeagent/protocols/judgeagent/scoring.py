"""Difficulty-weighted scores and the tier they imply (paper §3.1; thresholds from the spec notes)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Tier = Literal["easy", "medium", "hard"]
WEIGHTS: dict[str, float] = {"easy": 1.0, "medium": 1.5, "hard": 2.0}


def points(correct: bool, difficulty: str | None, hard_wrong_penalty: float = 0.0,
           unlabelled_points: float = 1.5) -> float:
    """A correct answer earns its difficulty's weight, an unlabelled one `unlabelled_points` (1.5: as medium, the
    authors' `DifficultyController`, which produced the paper's tables; 1.0: the paper's text, "+1"); a wrong one 0,
    or minus `hard_wrong_penalty` on a hard question (the authors' code used 0.2)."""
    if correct:
        return WEIGHTS[difficulty] if difficulty else unlabelled_points
    return -hard_wrong_penalty if difficulty == "hard" else 0.0


def tier_of(total: float, asked: int) -> Tier:
    """Average points per question: <= 0.5 easy, <= 1.0 medium, above hard (unlabelled data: accuracy
    <= 1/3, <= 2/3, above)."""
    average = total / asked if asked else 0.0
    if average <= 0.5:
        return "easy"
    return "medium" if average <= 1.0 else "hard"


def overall(batch_points: Iterable[float], asked: Iterable[int]) -> float:
    """Algorithm 1's sc: the sum of batch scores over the number of questions asked."""
    n = sum(asked)
    return sum(batch_points) / n if n else 0.0
