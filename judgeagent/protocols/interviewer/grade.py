"""Grading a reply to the interview question: MATH-style answers first where they apply, then the shared checker."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...grading.verdict import Verdict
from . import facts, mathanswer

if TYPE_CHECKING:
    from ..base import Episode, EpisodeContext

MATH_EQUAL = "math_equal"
"""The Verdict method of a reply accepted by `mathanswer.equal` (this protocol's own method)."""


def answer_of(reply: str) -> str:
    """The final answer: the reply's first non-empty line, without an "Answer:" label."""
    line = next((x.strip() for x in reply.splitlines() if x.strip()), "")
    return line.split(":", 1)[1].strip() if line.lower().startswith("answer:") else line


def is_math(answers: str, golds: tuple[str, ...] | list[str], reply: str) -> bool:
    if answers != "auto":
        return answers == "math"
    return any(mathanswer.looks_like_math(g) for g in golds) or bool(mathanswer.BOX.search(reply))


async def check_reply(ctx: EpisodeContext, question: str, golds: tuple[str, ...] | list[str], reply: str,
                      first_line: bool = True, options: dict[str, str] | None = None,
                      gold_letter: str | None = None, episode: Episode | None = None) -> Verdict:
    """Right or wrong. `first_line`: the answer is the reply's first line (the interviewee's format), else the
    whole reply (the interviewer's self-check). With `facts` on, a long gold is checked fact by fact against the
    whole reply (an interview answer, given with its `episode`)."""
    if ctx.config.facts and episode is not None and not options and facts.is_long(golds[0]):
        verdict = await facts.check_facts(ctx, episode, question, golds[0], reply)
        if verdict is not None:
            return verdict
    answer = answer_of(reply) if first_line else reply
    if not options and is_math(ctx.config.answers, golds, reply):
        answer = mathanswer.final_answer(reply, answer)
        if any(mathanswer.equal(answer, g) for g in golds):
            return Verdict(True, MATH_EQUAL, mathanswer.normalise(answer), None,
                           "the same MATH answer after LaTeX normalisation")
    return await ctx.state.checker.check(question, list(golds), answer, options=options, gold_letter=gold_letter)
