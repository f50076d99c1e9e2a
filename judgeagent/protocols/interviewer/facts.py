"""Atomic-fact scoring of long answers (paper: DepthQA, after FActScore, Min et al. 2023).

The interviewer splits a gold answer into atomic facts once (a recorded step, so a resumed run does not ask
again); the judge labels each fact supported, partially supported or not supported by a reply. The reply scores
(supported + 0.5 x partially) / facts: the authors' recall (interview-eval experiments/src/base_grader.py,
acc_counter_stem with recall=True).
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...grading.verdict import Verdict, one_line
from ..record import Record
from . import prompts

if TYPE_CHECKING:
    from ..base import Episode, EpisodeContext

MIN_GOLD_WORDS = 12
"""A gold shorter than this is not a long answer: the usual checker grades it."""
ATOMIC_FACTS = "atomic_facts"
"""The Verdict method of a reply scored by atomic facts (this protocol's own method)."""
CREDIT = {"supported": 1.0, "partially supported": 0.5, "not supported": 0.0}


def fact_score(labels: Sequence[str], n: int) -> float:
    """(supported + 0.5 partially) / n; a fact the judge left unlabelled counts as not supported."""
    return sum(CREDIT.get(label, 0.0) for label in list(labels)[:n]) / n if n else 0.0


def is_long(gold: str) -> bool:
    return len(gold.split()) >= MIN_GOLD_WORDS


async def atomic_facts(ctx: EpisodeContext, episode: Episode, gold: str) -> list[str]:
    """The gold's atomic facts, split once per episode and gold (read back on a resumed run)."""
    step = "facts/" + hashlib.sha256(gold.encode()).hexdigest()[:12]

    async def make() -> Record:
        messages = prompts.atomic_facts_messages(gold)
        result = await ctx.roles["interviewer"].complete(messages, schema=prompts.AtomicFacts)
        facts = [f.strip() for f in result.parsed.facts if f.strip()] \
            if isinstance(result.parsed, prompts.AtomicFacts) else []
        return ctx.record(episode, step, 0, "interviewer", messages[-1]["content"], result.text, stage="facts",
                          facts=facts, error=result.error)

    done = await ctx.recorded(episode, step, make)
    return list(done.meta.get("facts") or [])


async def check_facts(ctx: EpisodeContext, episode: Episode, question: str, gold: str, reply: str) -> Verdict | None:
    """The reply scored by the gold's atomic facts; None when the gold gave no facts (the checker decides)."""
    facts = await atomic_facts(ctx, episode, gold)
    if not facts:
        return None
    if not reply.strip():
        return Verdict(False, ATOMIC_FACTS, None, 0.0, "empty answer")
    result = await ctx.roles["judge"].complete(prompts.fact_check_messages(question, facts, reply),
                                               schema=prompts.FactLabels)
    if not isinstance(result.parsed, prompts.FactLabels):
        return Verdict(False, ATOMIC_FACTS, None, 0.0, "the judge gave no fact labels (all unsupported): "
                       + one_line(result.error or "not the requested fields"))
    labels = [x.label for x in result.parsed.labels]
    score = fact_score(labels, len(facts))
    supported, partial = labels[:len(facts)].count("supported"), labels[:len(facts)].count("partially supported")
    return Verdict(score >= ctx.config.fact_threshold, ATOMIC_FACTS, None, score,
                   f"{supported} supported, {partial} partially, of {len(facts)} facts: {score:.2f}")
