"""The KIEval protocol's options (`-o key=value`)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class KIEvalConfig(BaseModel):
    """KIEval (Yu et al.): a knowledge-grounded multi-round dialogue per item, scored turn by turn."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    rounds: int = Field(5, ge=1, le=10)
    """R: interactor questions (and candidate replies) per item at most; the evaluator may stop earlier."""
    verify: bool = True
    """Keep only items the interactor and the evaluator answer correctly themselves (Algorithm 1, line 3)."""
    reply_tokens: int | None = Field(None, ge=8)
    """Most tokens for a candidate's, an interactor's or a verification answer (None: the model's own setting)."""
    judge_policy: Literal["calibrated", "trust", "off"] = "calibrated"
    """Free-text grading by the evaluator: calibrated (probed first, used only if it passes), trust, or off."""
    hard_probes: bool = False
    """Calibrate the judge with hard negatives (a near number, another gold of the asked kind, part of the
    answer, another question's gold about the same subject): passing then bounds its false-positive rate on
    such replies."""
    hops: int = Field(3, ge=1, le=8)
    """With --graph: entities on the knowledge path that grounds the interactor's questions."""
    seed: int = Field(0, ge=0)
    """Seed of the knowledge paths (items are sampled with evaluate's --sample and --seed)."""
    scoring: Literal["paper", "linear"] = "paper"
    """paper: as the paper's tables (the authors' get_scores.py): turn scores 1/2/3/4 count 1/3/7/10 (of 10), the
    decay-weighted mean runs over the turns the conversation had, failed evaluations left out; linear: 1..4 onto
    0..1 evenly, unreached turns and failed evaluations counted as the poorest (judgeagent's earlier scoring)."""
    decay: bool = True
    """Decaying turn weights (scoring=paper: the authors' exp(-0.2 j), j = 0..; linear: exp(-i/n), i = 1..n); false:
    every turn weighs the same (the paper's DW ablation)."""
    early_stop: bool = True
    """The evaluator may end a conversation; false: it always runs all rounds (the paper's ES ablation)."""
    shots: int = Field(0, ge=0, le=10)
    """Solved examples before the candidate's first answer, drawn from the benchmark's other items (5: the paper's
    5-shot benchmark accuracy); only that answer's call sees them, never the dialogue that follows."""
