"""The paper's two other query modifications (Appendix A.1, Table 9), each checked in code before it is used.

unclarifying (MATH): the interviewer removes a key piece of information (a value becomes x, a rate "a certain
rate"); the question keeps its gold, and the removed information is what the interviewer gives back when asked.
modifying (DepthQA): a new question that a section of the reference answer answers; that section is the gold.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ...benchmark import Item
from ...grading.leakage import leaked_strings
from ...grading.text import normalise_answer, token_f1
from . import prompts

if TYPE_CHECKING:
    from ..base import Episode, EpisodeContext

MIN_REFERENCE_WORDS = 12
"""A reference shorter than this holds no second question (a short gold such as "Canberra")."""
MIN_SECTION_SHARE = 0.8
"""Share of the new gold's words that must come from the reference: a section of it, not new text."""


class Rewritten(NamedTuple):
    question: str
    golds: tuple[str, ...]
    withheld: str
    """unclarifying: the removed information; '' for modifying."""


def reference(item: Item) -> str:
    """What a new question is made from: the item's passage when it has one, else its gold answer."""
    return item.passage or item.gold


def eligibility(item: Item, how: str) -> str:
    """'' when the item allows the rewrite, else why not."""
    if item.is_choice:
        return "a multiple-choice item"
    if how == "modifying" and len(reference(item).split()) < MIN_REFERENCE_WORDS:
        return f"the reference answer is under {MIN_REFERENCE_WORDS} words"
    return ""


def _revealed(text: str, item: Item) -> set[str]:
    golds = [(g, None, None) for g in item.golds]
    return set(leaked_strings(text, golds)) - set(leaked_strings(item.question, golds))


def unclarified_problem(item: Item, question: str, withheld: str) -> str:
    """Why an unclarified question is unusable ('' when it is fine)."""
    if len(question.split()) < 3:
        return "empty or too short"
    if normalise_answer(question) == normalise_answer(item.question):
        return "nothing was removed (a copy of the original)"
    if not withheld.strip():
        return "it names no removed information"
    if normalise_answer(withheld) and normalise_answer(withheld) in normalise_answer(question):
        return "the removed information is still in the question"
    revealed = _revealed(question, item) | _revealed(withheld, item)
    if revealed:  # the removed information is told to the interviewee: it must not be the answer
        return f"states the answer ({'; '.join(sorted(revealed))})"
    return ""


def section_share(section: str, ref: str) -> float:
    """Share of `section`'s words found in `ref`."""
    words = normalise_answer(section).split()
    pool = set(normalise_answer(ref).split())
    return sum(w in pool for w in words) / len(words) if words else 0.0


def modified_problem(item: Item, question: str, gold: str, max_copy_f1: float) -> str:
    """Why a new question from the reference is unusable ('' when it is fine)."""
    if len(question.split()) < 3:
        return "empty or too short"
    overlap = token_f1(question, item.question)
    if overlap >= max_copy_f1:
        return f"too close to the original (token F1 {overlap:.2f} >= {max_copy_f1:g})"
    if len(gold.split()) < 3:
        return "its answer is empty or too short"
    share = section_share(gold, reference(item))
    if share < MIN_SECTION_SHARE:
        return f"its answer is not a section of the reference ({share:.0%} of its words are in it)"
    if normalise_answer(gold) in normalise_answer(question):
        return "the question states its answer"
    return ""


async def rewrite(ctx: EpisodeContext, episode: Episode, item: Item, how: str) -> tuple[Rewritten | None, str]:
    """Two tries at an unclarified or modified question that passes the checks; else (None, why not)."""
    why = eligibility(item, how)
    if why:
        return None, why
    for attempt in range(2):
        if how == "unclarifying":
            messages = prompts.unclarify_messages(item.question, item.gold, why)
            result = await ctx.roles["interviewer"].complete(messages, schema=prompts.Unclarified)
            got: Any = result.parsed if isinstance(result.parsed, prompts.Unclarified) else None
            candidate = None if got is None else Rewritten(got.revised_question.strip(), item.golds,
                                                           got.deleted_information.strip())
            check = (lambda c: unclarified_problem(item, c.question, c.withheld))
        else:
            messages = prompts.modifying_messages(item.question, reference(item), why)
            result = await ctx.roles["interviewer"].complete(messages, schema=prompts.NewQuestion)
            got = result.parsed if isinstance(result.parsed, prompts.NewQuestion) else None
            candidate = None if got is None else Rewritten(got.new_question.strip(), (got.new_solution.strip(),), "")
            check = (lambda c: modified_problem(item, c.question, c.golds[0], ctx.config.max_copy_f1))
        why = f"no usable reply ({result.error or 'not the requested fields'})" if candidate is None else check(candidate)
        ctx.record(episode, f"modify/{how}/{attempt}", 0, "interviewer", messages[-1]["content"], result.text,
                   stage="modify", method=how, original=item.question,
                   modified=candidate.question if candidate else "", withheld=candidate.withheld if candidate else None,
                   gold=candidate.golds[0] if candidate else None, rejected=why or None)
        if candidate is not None and not why:
            return candidate, ""
    return None, why
