"""`SynthesisConfig`: the knobs of `judgeagent synthesize`. Everything here is part of the set's identity."""
from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from ....config import Frozen
from ....limits import MAX_HOPS

Tier = Literal["easy", "medium", "hard"]
QUESTION_TYPE: dict[str, str] = {"easy": "recall", "medium": "understanding", "hard": "analysis"}
"""What each tier asks for (the generation prompt's difficulty rules), stored as the item's question type."""


class SynthesisConfig(Frozen):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    n: int = Field(100, ge=1, le=1_000_000)
    """Items wanted, spread evenly over `difficulties` (fewer when the graph runs out of fresh questions)."""
    difficulties: tuple[Tier, ...] = ("easy", "medium", "hard")
    hops: int = Field(3, ge=1, le=MAX_HOPS)
    seed: int = Field(0, ge=0)
    duplicate_similarity: float = Field(0.9, gt=0, le=1)
    """Cosine similarity (the graph's encoder) at or above which a question is a near-duplicate of one kept
    before it. 0.9 on MiniLM: the same sentence with the blank moved, or one word changed."""
    contamination_similarity: float = Field(0.8, gt=0, le=1)
    """`--from-run`: cosine similarity at or above which an item is too close to a question the run asked
    (lower than the duplicate bar: a paraphrase of a test question is contamination too)."""
    max_answer_words: int = Field(8, ge=1)
    generation_attempts: int = Field(2, ge=1, le=10)
    """Requests to the interviewer per medium or hard slot before the slot is given up."""
    self_check: bool = True
    """Medium and hard items must be answered right by the interviewer from the path text (one call each)."""
    max_slots_per_item: float = Field(4.0, ge=1)
    """Paths tried per wanted item before stopping short (a small graph runs out of fresh sentences)."""

    @field_validator("difficulties")
    @classmethod
    def _distinct(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("give at least one difficulty (easy, medium, hard)")
        if len(set(value)) != len(value):
            raise ValueError(f"difficulty listed twice in {','.join(value)}")
        return value

    @property
    def needs_model(self) -> bool:
        return any(d != "easy" for d in self.difficulties)

    def quotas(self) -> dict[str, int]:
        """Items per difficulty: `n` split evenly, the remainder to the first ones listed."""
        base, extra = divmod(self.n, len(self.difficulties))
        return {d: base + (i < extra) for i, d in enumerate(self.difficulties)}
