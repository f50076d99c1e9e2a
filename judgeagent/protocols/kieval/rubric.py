"""Aspect scores of a conversational turn (KIEval's evaluator) and the decay-weighted dialogue score.

An evaluator model rates each candidate turn on five aspects, 1 (poor) to 4 (strong), with a comment
written before each score, and may stop the conversation for a named reason. A conversation's score
weights early turns more: w_i = exp(-i / n) over the n planned rounds. Two scorings: `paper` (what the
paper's tables report) and `linear` (judgeagent's earlier one); `dialogue_score` says how they differ.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

ASPECTS = ("accuracy", "logic", "relevance", "coherence", "conciseness")
STOP_REASONS = ("none", "off_topic", "empty_response", "rule_violation", "repetition", "unpermitted_role_shift",
                "hallucination")
LOWEST, HIGHEST = 1, 4

Rating = Literal[1, 2, 3, 4]
"""An enum rather than a bounded int: constrained decoding (llama.cpp's JSON grammar) enforces it, where
it ignores an integer's minimum and maximum."""
StopReason = Literal["none", "off_topic", "empty_response", "rule_violation", "repetition",
                     "unpermitted_role_shift", "hallucination"]


# No class docstrings below: they would go into the JSON schema the evaluator is shown, and small models
# copy them into their comments.
class AspectScore(BaseModel):
    # One aspect: the comment comes first, so the score follows from it (as in the judge's schema).

    model_config = ConfigDict(extra="ignore")
    comment: str = ""
    score: Rating


class TurnEvaluation(BaseModel):
    # The evaluator's structured reply for one candidate turn.

    model_config = ConfigDict(extra="ignore")
    accuracy: AspectScore
    logic: AspectScore
    relevance: AspectScore
    coherence: AspectScore
    conciseness: AspectScore
    overall_comment: str = ""
    overall_score: Rating
    stop_conversation: bool = False
    stop_reason: StopReason = "none"

    def scores(self) -> dict[str, int]:
        """Aspect -> score, plus `overall`."""
        return {**{a: getattr(self, a).score for a in ASPECTS}, "overall": self.overall_score}


def parse_evaluation(data: Mapping[str, object] | str) -> tuple[TurnEvaluation | None, str]:
    """(evaluation, "") or (None, why): an out-of-range or missing score is a failure, never clamped,
    so that a repair turn can ask again and a second failure is recorded, not counted as a score."""
    try:
        if isinstance(data, str):
            return TurnEvaluation.model_validate_json(data), ""
        return TurnEvaluation.model_validate(data), ""
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        return None, f"{where}: {first['msg']}"


def decay_weights(n: int) -> list[float]:
    """w_i = exp(-i / n) for i = 1..n: the first turn weighs e^((n-1)/n) times as much as the last."""
    if n < 1:
        raise ValueError("a dialogue score needs at least one planned round")
    return [math.exp(-i / n) for i in range(1, n + 1)]


def paper_weights(turns: int) -> list[float]:
    """The authors' weights exp(-0.2 j), j = 0..turns-1 (get_scores.py `weighted_mean`), at any round count."""
    return [math.exp(-0.2 * j) for j in range(turns)]


def normalise(score: float) -> float:
    """1..4 onto 0..1, so that 1.0 is a perfect turn and 0.0 the poorest."""
    return (score - LOWEST) / (HIGHEST - LOWEST)


PAPER_POINTS = {1: 0.1, 2: 0.3, 3: 0.7, 4: 1.0}
"""A turn score as the paper's tables count it, on 0..1: the authors' get_scores.py maps 1/2/3/4 to 1/3/7/10 of
10 (zhuohaoyu/KIEval@0543f69, `score_mapper`); shown x100, a perfect turn is 100 and the poorest 10."""


def dialogue_score(scores: Sequence[float | None], rounds: int, scoring: str = "paper", decay: bool = True) -> float:
    """The KIEval score of one conversation planned for `rounds` rounds, in 0..1 (reports show it x100).

    `scores` are the turn scores (1..4) in order; None marks a turn whose evaluation failed.
    - `paper`, as the paper's tables (the authors' `weighted_mean`): each turn counts `PAPER_POINTS`, and the
      weighted mean runs over the turns the conversation had, failed evaluations left out, so a conversation
      stopped after one strong turn scores 1.0 (the early stop shows in the valid rounds instead). The weights are
      the authors' exp(-0.2 j), j = 0.., whatever `rounds` (at 5 rounds they are exp(-i/5) up to a factor).
    - `linear`: 1..4 evenly onto 0..1, and rounds never reached (after an early stop) and failed turns count as
      the poorest score, so that a conversation stopped after one good turn does not score as a perfect one.
    `decay=False` weighs every turn the same (the paper's ablation without decaying weights).
    """
    if len(scores) > rounds:
        raise ValueError(f"{len(scores)} turn scores for a dialogue of {rounds} rounds")
    if scoring == "paper":
        points = [PAPER_POINTS[int(s)] for s in scores if s is not None]
        if not points:
            raise ValueError("a paper-scored dialogue needs one evaluated turn")
        weights = paper_weights(len(points)) if decay else [1.0] * len(points)
        return sum(w * p for w, p in zip(weights, points)) / sum(weights)
    weights = decay_weights(rounds) if decay else [1.0] * rounds
    filled = [normalise(s) if s is not None else 0.0 for s in scores] + [0.0] * (rounds - len(scores))
    return sum(w * s for w, s in zip(weights, filled)) / sum(weights)
