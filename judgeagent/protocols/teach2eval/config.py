"""The Teach2Eval protocol's options (`-o key=value`)."""
from __future__ import annotations

from typing import Literal

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
    scoring: Literal["paper", "geometric"] = Field(
        "paper", description="paper: as the paper's tables (the authors' result_statistics.py): RA is the product of "
        "the per-turn ratios minus 1 (x100 in the report), and a reply without a judgment is read as 'wrong'; "
        "geometric: RA is their geometric mean (1: no change), and a missing judgment is a wrong one.")
    reflection: bool = Field(
        True, description="From the second guidance turn the teacher is asked, if it judges the latest solution "
        "wrong, to reflect first on whether its previous guidance was at fault (the paper's reflection; the "
        "authors' prompt_teacher.py); false: every turn asks the same.")
    tell_answer: bool = Field(
        False, description="true: the authors' runs (main.sh, can_tell_answer=True): the teacher is not told to "
        "withhold the answer and its guidance reaches the student as written (statements of the answer are counted, "
        "not redacted); false: it is told not to state the answer, and the leakage guard redacts one that does.")
    history: Literal["chat", "transcript"] = Field(
        "chat", description="How the teacher sees the lesson so far: chat, as a conversation holding its own earlier "
        "replies in full; transcript, as the authors' dialogue_teacher.py: one prompt a turn with the question and "
        "the lesson written out, its earlier guidance without its reasoning (<think>...</think>).")
