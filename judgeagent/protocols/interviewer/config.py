"""The Interviewer protocol's options (`-o key=value`)."""
from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

FollowUpKind = Literal["rationale", "elaboration", "clarification", "additional_information"]
FOLLOWUP_KINDS: tuple[FollowUpKind, ...] = ("rationale", "elaboration", "clarification", "additional_information")


class InterviewerConfig(BaseModel):
    """LLM-as-an-Interviewer (Kim et al.): modify each item, interview on it, ask follow-ups."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    revisions: int = Field(2, ge=0, le=5)
    """N: feedback-and-revise rounds after a wrong answer (Score@1..N+1 is reported)."""
    followups: int = Field(2, ge=0, le=4)
    """Follow-up questions per item, asked after the seed question whether it was solved or not."""
    followup_policy: Literal["paper", "rotate"] = "paper"
    """paper: the kind follows the outcome (paper Section 6.2, Table 4): rationale questions after a solved item,
    clarification questions (how it reads the question, a concept it needs) after a failed one; rotate: the kinds
    of `followup_kinds` in turn from a seeded start per item, whatever the outcome (this toolkit's first design)."""
    followup_tries: int = Field(1, ge=1, le=4)
    """M (Algorithm 1's FOLLOWUP_interactions_MAX): a follow-up is asked again after a reply the judge finds
    inadequate, at most M times in all; it scores 1 when any try is adequate. 1: asked once (the authors' code)."""
    followup_kinds: tuple[FollowUpKind, ...] = Field(FOLLOWUP_KINDS, min_length=1)
    """Kinds of follow-up question (paper Appendix A.2) for followup_policy=rotate."""
    modify: bool = True
    """Pre-interview query modification: paraphrased stem (and shuffled options for multiple choice)."""
    modification: Literal["paraphrase", "quantities", "unclarifying", "modifying"] = "paraphrase"
    """paraphrase; quantities: free-text items with a numeric gold get changed numbers and a gold we recompute
    from the interviewer's checked formula; unclarifying (the paper's MATH setting): the interviewer removes a
    key piece of information, which it gives back when the interviewee asks for it or after an answer without
    it; modifying (the paper's DepthQA setting): a new question answered by a part of the reference answer, which
    becomes its gold. Free-text items only; the rest (and rejected changes) get a paraphrase."""
    verify_modified: bool = True
    """The interviewer answers its own modified free-text question; a wrong answer rejects the modification."""
    max_copy_f1: float = Field(0.9, gt=0, le=1)
    """A modified question this close to the original (token F1) is a copy and is rejected."""
    probe: bool = True
    """Contamination probe: also ask each item in its original form, single turn, to compare accuracy."""
    reply_tokens: int | None = Field(None, ge=8)
    """Most tokens for a free-text reply: the interviewee's answers, the interviewer's clarifications, self-check
    answers and summary (None: the model's own setting). Never on JSON replies (modification, feedback, follow-up
    questions, judging), where a cut would leave unparsable JSON."""
    clarifications: int = Field(1, ge=0, le=3)
    """Clarifying questions the interviewee may ask per item (answered without revealing the answer)."""
    summary: bool = True
    """The interviewer writes the report's comprehensive summary from the transcripts."""
    summary_items: int = Field(12, ge=1, le=100)
    """At most this many items' transcripts go into the summary prompt."""
    answers: Literal["auto", "math", "text"] = "auto"
    """How a free-text answer is compared: math (MATH-style: the reply's last \\boxed{}, both sides' LaTeX
    normalised, equal numbers equal), text (the shared answer checker only), auto (math for a gold written in
    LaTeX or a reply with a \\boxed{} answer, else text). An answer math does not accept still goes to the checker."""
    facts: bool = False
    """Atomic-fact scoring for long answers (paper: DepthQA, FActScore-style): the interviewer splits the gold into
    atomic facts once per item, the judge labels each supported / partially / not supported by a reply; a reply
    scores (supported + 0.5 partially) / facts (the authors' recall) and counts as correct at `fact_threshold`."""
    fact_threshold: float = Field(0.5, gt=0, le=1)
    """The fact score at which a reply counts as correct (Score@n); the mean fact score is reported too."""
    judge_policy: Literal["calibrated", "trust", "off"] = "calibrated"
    """Free-text grading: calibrated (probe the judge first, use it only if it passes), trust, or off (rules only)."""
    hard_probes: bool = False
    """Calibrate the judge with hard negatives (a near number, another gold of the asked kind, part of the
    answer, another question's gold about the same subject): passing then bounds its false-positive rate on
    such replies."""
    seed: int = Field(0, ge=0)
    """Seed of option shuffles, follow-up kinds and the bootstrap."""
    resamples: int = Field(2000, ge=100, le=100000)
    """Bootstrap resamples for the contamination probe's interval."""

    @model_validator(mode="after")
    def _modification_needs_modify(self) -> Self:
        if self.modification != "paraphrase" and not self.modify:
            raise ValueError(f"modification={self.modification} changes each item, but modify=false asks for items as "
                             "they are: drop one of the two")
        return self

    def limit(self) -> dict[str, int]:
        """`reply_tokens` as a call setting; none when unset, so that the call (and its journal key) is unchanged."""
        return {} if self.reply_tokens is None else {"max_tokens": self.reply_tokens}
