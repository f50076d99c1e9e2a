"""The free-text rules (grading/phrase_rules.py, name_rules.py, number_rules.py, numeric.py, yes_no.py,
free_text.py), the checker around them (answers.py) and the verdict's legend (verdict.py), by hand: written to kill
the surviving mutants of scripts/mutants.py (issue 47). Each test names the rule and the inputs that tell a working
rule from a broken one."""
from __future__ import annotations

import asyncio

from judgeagent.grading.answers import check_answer, check_free_text
from judgeagent.grading.verdict import METHODS, Verdict, empty, one_line


def decide(reply, gold, question="", others=()):
    return check_free_text(reply, gold, question=question, others=others)


# --- verdict.py: the report's legend ---------------------------------------------------------------------

LEGEND = ["letter", "option_text", "no_letter", "several_options", "empty", "exact", "f1", "folded", "phrase",
          "corrected", "word_form", "choice", "acronym", "name_part", "number_range", "period", "yes_no", "refusal",
          "number_mismatch", "other_answer", "judge", "learned", "judge_failed", "undecided"]


def test_every_method_a_verdict_can_carry_has_a_legend_line_in_order():
    # the report's legend (report/judging.py) prints METHODS[m] beside each method's count: a method missing or
    # described by nothing leaves a row that says nothing
    assert list(METHODS) == LEGEND
    assert all(len(METHODS[m].split()) >= 3 for m in LEGEND), [m for m in LEGEND if len(METHODS[m].split()) < 3]
    reached = {
        asyncio.run(check_answer("Capital?", "Paris", "B", options={"A": "London", "B": "Paris"},
                                 gold_letter="B")).method,
        asyncio.run(check_answer("Capital?", "Paris", "Paris", options={"A": "London", "B": "Paris"},
                                 gold_letter="B")).method,
        asyncio.run(check_answer("Capital?", "Paris", "A. London\nB. Paris", options={"A": "London", "B": "Paris"},
                                 gold_letter="B")).method,
        decide("", "Paris").method, decide("Paris", "Paris").method, decide("I don't know.", "Carl Sagan").method,
        decide("Frank Drake", "Carl Sagan", others={"frank drake", "carl sagan"}).method,
        decide("The mission ended in 2018.", "2016", "In which year did the mission end?").method,
        asyncio.run(check_answer("Who?", "Carl Sagan", "a scientist of some note")).method,
    }
    assert reached == {"letter", "option_text", "several_options", "empty", "exact", "refusal", "other_answer",
                       "number_mismatch", "undecided"}


def test_an_empty_verdict_and_one_line():
    assert empty() == Verdict(False, "empty", None, None, "empty answer")
    assert one_line("  a  b\n\tc ") == "a b c"
    assert one_line("x" * 200) == "x" * 200  # at the width: kept whole
    assert one_line("x" * 201) == "x" * 199 + "…" and len(one_line("x" * 201)) == 200
    assert one_line("abcdef", width=4) == "abc…"
