"""Decide whether a model's answer is correct: option letters, deterministic free-text rules, then a
judge that has earned trust, recording how every verdict was reached."""
from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config import CheckerConfig
from .choice import check_choice, check_options, extract_letter
from .free_text import check_free_text
from .judge import JudgeDecision, judge_answer, judge_messages, question_type
from .text import best_f1, is_refusal, normalise_answer, numbers, token_f1
from .verdict import METHODS, Verdict

if TYPE_CHECKING:
    from ..models.base import ChatModel

__all__ = ["METHODS", "AnswerChecker", "JudgeDecision", "Verdict", "check_answer", "check_choice",
           "check_free_text", "check_options", "extract_letter", "is_refusal", "judge_answer", "judge_messages",
           "normalise_answer", "numbers", "question_type", "token_f1"]


@dataclass(frozen=True)
class AnswerChecker:
    """Choice items by letter; free text by the deterministic rules, then the judge for the rest.

    A choice reply that names no option letter is read as free text against the gold option's text.

    `judge` is None when the policy is `off` or the judge failed calibration: what no rule decides is
    then `undecided` (wrong unless token F1 reaches the threshold), and `judge_note` says why.
    """

    settings: CheckerConfig = CheckerConfig()
    judge: ChatModel | None = None
    others: frozenset[str] = frozenset()
    """Normalised golds of the benchmark's items: a reply that is only another item's gold is wrong."""
    judge_note: str = "no judge"
    equivalence: Any = None
    """A calibrated `equivalence.Equivalence` (the learned step) for what no rule decides when no judge is used;
    None: such answers stay `undecided` (see `equivalence.load`, off unless calibrated weights exist)."""

    async def check(self, question: str, gold: str | Sequence[str], reply: str, *,
                    options: Mapping[str, str] | None = None, gold_letter: str | None = None) -> Verdict:
        golds = [gold] if isinstance(gold, str) else list(gold)
        others, exclusive = self.others, False
        if options:
            verdict = check_options(reply, options, gold_letter, golds[0])
            if verdict.method != "no_letter":
                return verdict
            # No letter is not a wrong reply: "Pulsus paradoxus." may be the gold option in words.
            # The reply is checked as free text against the gold option; the other options are wrong.
            gold_text = options.get(gold_letter, golds[0]) if gold_letter else golds[0]
            golds = [gold_text]
            others = frozenset(normalise_answer(t) for k, t in options.items() if k != gold_letter
                               and normalise_answer(t) != normalise_answer(gold_text))
            exclusive = True
        threshold = self.settings.f1_threshold
        verdict = check_free_text(reply, golds, threshold, question=question, others=others, options=exclusive)
        if verdict is not None:
            return verdict
        if self.judge is None and self.equivalence is not None:
            # on a worker thread: MiniLM's encode (~30-40 ms a reply; its first load, seconds) would hold up every
            # other coroutine of the run (#46); the verdict is the same on any thread
            return await asyncio.to_thread(self.equivalence.decide, question, golds, reply)
        if self.judge is None:
            score = best_f1(reply, golds)
            return Verdict(score >= threshold, "undecided", normalise_answer(reply), score,
                           f"no rule decided and {self.judge_note}: token F1 {score:.2f} vs {threshold:g}")
        return await judge_answer(self.judge, question, golds, reply)


def other_golds(golds: Collection[str]) -> frozenset[str]:
    """The `others` of an `AnswerChecker` over a benchmark's gold answers (yes/no golds excluded)."""
    return frozenset(n for n in map(normalise_answer, golds) if n and n not in ("yes", "no", "maybe"))


async def check_answer(question: str, gold: str | Sequence[str], reply: str, *,
                       options: Mapping[str, str] | None = None, gold_letter: str | None = None,
                       judge: ChatModel | None = None, f1_threshold: float = 0.8,
                       others: Collection[str] = ()) -> Verdict:
    """One answer checked as an `AnswerChecker` with these settings would check it."""
    checker = AnswerChecker(CheckerConfig(f1_threshold=f1_threshold), judge, frozenset(others))
    return await checker.check(question, gold, reply, options=options, gold_letter=gold_letter)
