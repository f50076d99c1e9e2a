"""The interviewer's reply grading (protocols/interviewer/grade.py) and JudgeAgent's scores (protocols/judgeagent/
scoring.py) by hand, written to kill the surviving mutants of scripts/mutants.py (issue 47). The scripted protocol
runs reach `check_reply` with math golds or with plain ones, never with the switch between them forced, and never
ask for the score of no questions."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

from judgeagent.grading.verdict import Verdict
from judgeagent.protocols.interviewer.grade import MATH_EQUAL, answer_of, check_reply, is_math
from judgeagent.protocols.judgeagent.scoring import overall


def test_the_answer_is_the_first_non_empty_line_without_its_label():
    assert answer_of("\n  \n  Sydney  \nbecause it hosted them") == "Sydney"
    assert answer_of("Answer: Sydney\nMelbourne was second") == "Sydney"
    assert answer_of("ANSWER:   Sydney") == "Sydney"
    assert answer_of("Answer: 12:30 pm") == "12:30 pm"  # the label's colon only
    assert answer_of("My answer: Sydney") == "My answer: Sydney"  # only a leading label is taken off
    assert answer_of("") == "" and answer_of("\n\n") == ""


def test_math_grading_applies_by_choice_or_when_the_gold_or_the_reply_is_latex():
    assert is_math("math", ["Sydney"], "Sydney") is True
    assert is_math("text", [r"\frac{1}{2}"], r"\boxed{1/2}") is False
    assert is_math("auto", ["Sydney", r"\frac{1}{2}"], "one half") is True  # a LaTeX gold, a plain reply
    assert is_math("auto", ["12"], r"It is \boxed{12}") is True  # a plain gold, a boxed reply
    assert is_math("auto", ["12"], "It is 12") is False


class Checker:
    """The shared checker's seam: what it was asked to grade, and a fixed verdict back."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def check(self, question, golds, answer, options=None, gold_letter=None):  # type: ignore[no-untyped-def]
        self.asked.append(answer)
        return Verdict(answer == golds[0], "exact", answer)


def _check(reply: str, golds=("Sydney",), answers="auto", **kwargs):  # type: ignore[no-untyped-def]
    checker = Checker()
    ctx = SimpleNamespace(config=SimpleNamespace(facts=False, answers=answers), state=SimpleNamespace(checker=checker))
    verdict = asyncio.run(check_reply(ctx, "Which city?", golds, reply, **kwargs))  # type: ignore[arg-type]
    return verdict, checker.asked


def test_a_reply_is_graded_on_its_first_line_unless_asked_for_the_whole():
    reply = "Sydney\nMelbourne was the other bid"
    assert _check(reply) == (Verdict(True, "exact", "Sydney"), ["Sydney"])
    assert _check(reply, first_line=False)[1] == [reply]


def test_a_math_answer_equal_after_normalisation_is_right_without_the_checker():
    verdict, asked = _check(r"The answer is \boxed{0.5}", golds=(r"\frac{1}{2}",))
    assert verdict == Verdict(True, MATH_EQUAL, "0.5", None, "the same MATH answer after LaTeX normalisation")
    assert asked == []
    verdict, asked = _check(r"\boxed{0.5}", golds=(r"\frac{1}{2}",), answers="text")
    assert verdict.method == "exact" and asked == [r"\boxed{0.5}"]
    verdict, asked = _check(r"\boxed{3}", golds=(r"\frac{1}{2}",))  # not equal: the checker has the last word
    assert verdict.method == "exact" and asked == ["3"]


def test_the_score_of_no_questions_is_zero():
    assert overall([], []) == 0.0 and overall([2.0], [0]) == 0.0
    assert overall([3.0, 1.5], [2, 1]) == 1.5
