"""The judge role: a model decides whether a free-text answer says what the gold says."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from .text import normalise_answer, numbers, token_f1
from .verdict import Verdict, one_line

if TYPE_CHECKING:
    from ..models.base import ChatModel

QUESTION_TYPES = ("yes_no", "number", "date", "entity", "description")
_MONTHS = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:1[5-9]\d\d|20\d\d)\b")
_TYPE_RULES = {
    "yes_no": "The reference is yes, no or maybe: the candidate must commit to the same one.",
    "number": "The reference is a number: the candidate must state the same number (any notation).",
    "date": "The reference is a date or year: the candidate must give the same date (any format).",
    "entity": ("The reference names an entity: the candidate must name the same one (a full name, "
               "short name, alias or abbreviation of it counts; a different entity does not)."),
    "description": ("The reference is a description: the candidate must state the same facts; "
                    "wording may differ, missing or contradicting key facts is incorrect."),
}


class JudgeDecision(BaseModel):
    # Field order is the order the model writes in: reasoning before the verdict, so that the
    # verdict follows from it (a verdict written first was often contradicted by its own reason).
    reasoning: str = Field(description="One or two sentences comparing the candidate with the reference.")
    correct: bool = Field(description="True only if the candidate gives the reference's answer.")


# What a weak model writes when it copies the schema instead of reasoning (seen: "JudgeDecision" in 150
# of 212 replies of the embedded model).
_ECHOES = frozenset({"judgedecision", "reasoning", "reason", "correct", "string", "true", "false", "none"})

_SYSTEM = (
    "You grade answers against a reference answer. Decide whether the candidate answer gives the same "
    "answer as the reference for this question. Rewordings, synonyms, abbreviations and extra correct "
    "details count as correct. A candidate that names a different entity, number or date, contradicts "
    "the reference, hedges between several answers, answers only part of the question, or does not "
    "answer is incorrect. First write your reasoning, then the verdict.")


def question_type(golds: Sequence[str]) -> str:
    """What kind of answer the gold is, from the gold's text alone (one of `QUESTION_TYPES`)."""
    gold = golds[0].strip()
    norm = normalise_answer(gold)
    if norm in ("yes", "no", "maybe"):
        return "yes_no"
    if numbers(gold) and len(norm.split()) <= 4 and (_MONTHS.search(gold) or _YEAR.search(gold)):
        return "date"
    if numbers(gold) and len(norm.split()) <= 3:
        return "number"
    return "entity" if len(norm.split()) <= 6 else "description"


def judge_messages(question: str, golds: Sequence[str], answer: str) -> list[dict[str, str]]:
    reference = golds[0] if len(golds) == 1 else f"{golds[0]} (also acceptable: {'; '.join(golds[1:])})"
    user = (f"Question: {question}\n\nReference answer: {reference}\n\nCandidate answer: {answer}\n\n"
            f"{_TYPE_RULES[question_type(golds)]}\nIs the candidate correct?")
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


async def judge_answer(model: ChatModel, question: str, gold: str | Sequence[str], answer: str) -> Verdict:
    """Ask the judge model; a reply it cannot parse is recorded as `judge_failed`, never raised."""
    golds = [gold] if isinstance(gold, str) else list(gold)
    result = await model.complete(judge_messages(question, golds, answer), schema=JudgeDecision)
    decision = result.parsed if result.ok else None
    if not isinstance(decision, JudgeDecision):
        return Verdict(False, "judge_failed", None, None, one_line(result.error or "judge gave no decision"))
    score = max(token_f1(answer, g) for g in golds)
    return Verdict(decision.correct, "judge", None, score, _reason(decision))


def _reason(decision: JudgeDecision) -> str:
    """The judge's reasoning, or a plain note that it gave none (never a schema word standing in for one)."""
    text = one_line(decision.reasoning)
    if normalise_answer(text).replace(" ", "") in _ECHOES or len(text.split()) < 3:
        return "(the judge gave no reasoning)"
    return text
