"""The Teach2Eval protocol's options (`-o key=value`)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Teach2EvalConfig(BaseModel):
    """Teach2Eval: the target teaches weak students multiple-choice items over T turns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turns: int = Field(3, ge=1, le=6, description="T: guidance turns per lesson (the paper uses 3; RA needs 2 or more).")
    max_tokens: int | None = Field(None, ge=8, description="Reply length limit for teacher and students (None: each "
                                   "model's own setting).")
    distractors: int = Field(3, ge=1, le=7, description="Distractors built from the graph for a free-text item "
                             "(needs --graph).")
    lessons_shown: int = Field(2, ge=0, le=10, description="Lessons the report shows in full.")
    seed: int = Field(0, ge=0, description="Seed of the distractors and their order, and of the bootstrap.")
    resamples: int = Field(1000, ge=100, le=100000, description="Bootstrap resamples (over items) of each "
                           "ability's interval.")
