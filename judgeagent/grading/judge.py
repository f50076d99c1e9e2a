"""The judge role: a model decides whether a free-text answer says what the gold says."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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
    """The judge's reasoning, or a plain note that it gave none (never a schema word or sentence, or a
    sentence of the prompt, standing in for one)."""
    text = one_line(decision.reasoning)
    if normalise_answer(text).replace(" ", "") in _ECHOES or len(text.split()) < 3 or copies_instructions(text):
        return "(the judge gave no reasoning)"
    return text


def _instructions() -> list[str]:
    """The sentences a judge is shown that are no reasoning of its own: the schema's field descriptions,
    the system prompt, the question-type rules and the closing question."""
    return instruction_sentences(JudgeDecision, _SYSTEM, *_TYPE_RULES.values(), "Is the candidate correct?")


_COPIED = 0.8
"""Token F1 with one instruction sentence at which a reason counts as copied (measured: the copied
"True only if the candidate gives the reference's answer." reaches 1.0; a real reason that reuses a few
of its words, "The candidate gives Paris, the reference's answer.", 0.63)."""


_LOOSELY = 0.6


def copies_instructions(reason: str) -> bool:
    """The reason repeats a sentence of the schema or the prompt (copied, perhaps with a word changed)
    instead of comparing the two answers: "True only if the candidate gives the reference's answer."."""
    return copies(reason, _instructions())


def instruction_sentences(schema: Any = None, *texts: str) -> list[str]:
    """A model's instructions, normalised, whole and sentence by sentence: the schema's field descriptions and
    the given prompt texts (its instructions, not the material it is asked about)."""
    found = [f.description or "" for f in schema.model_fields.values()] if schema is not None else []
    found += list(texts)
    sentences = [s for t in found for s in re.split(r"(?<=[.?!:])\s+", t) if len(s.split()) >= 3]
    return [normalise_answer(s) for s in found + sentences if s.strip()]


def echoes(text: str, schema: Any = None, *instructions: str) -> bool:
    """A model's output (a reason, a suggestion, a question) that is its schema's field description or its
    prompt's instruction said back (copied, perhaps with a word changed), not something of its own. Such output
    is recorded as empty wherever it appears."""
    return bool(text.strip()) and copies(text, instruction_sentences(schema, *instructions))


def copies(reason: str, sentences: list[str]) -> bool:
    said = normalise_answer(reason)
    if not said or not sentences:
        return False
    if any(said in s for s in sentences):
        return True
    vocabulary = {w for s in sentences for w in s.split()}
    parts = [p for p in re.split(r"(?<=[.?!;:])\s+", reason) if normalise_answer(p)]
    return all(_copied(p, sentences, vocabulary) for p in parts)


def _copied(part: str, sentences: list[str], vocabulary: set[str]) -> bool:
    words = set(normalise_answer(part).split())
    if len(words) <= 2 and words <= vocabulary:
        return True  # "Correct:", "Incorrect."
    closest = max(token_f1(part, s) for s in sentences)
    # Below `_COPIED`, a part is copied only if it names nothing of its own (no answer, name or number).
    return closest >= _COPIED or (closest >= _LOOSELY and words <= vocabulary)
