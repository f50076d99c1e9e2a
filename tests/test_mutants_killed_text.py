"""The free-text checker's own steps (grading/free_text.py: the empty reply, the exact match, the refusal, token F1
and its list and negation guards), multiple-choice conversion (grading/mcq.py) and judge calibration
(grading/calibration.py), by hand: written to kill the surviving mutants of scripts/mutants.py (issue 47). Each
test goes through a public function with inputs whose verdict is clear, and says which rule detail it depends on."""
from __future__ import annotations

import pytest

from judgeagent.grading.free_text import check_free_text
from judgeagent.grading.text import best_f1
from judgeagent.grading.verdict import Verdict

# --- free_text.py -----------------------------------------------------------------------------------------


def test_an_empty_or_blank_reply_is_wrong_and_a_gold_of_nothing_leaves_it_to_the_judge():
    empty = Verdict(False, "empty", None, None, "empty answer")
    assert check_free_text("", "Paris") == empty and check_free_text("   \n", "Paris") == empty
    assert check_free_text("Paris", "Paris") != empty  # a reply with words is read
    assert check_free_text("Paris", "") is None and check_free_text("Paris", ["", " "]) is None


def test_the_exact_match_is_right_and_says_so():
    assert check_free_text("Paris.", "Paris") == Verdict(True, "exact", "paris", 1.0, "matches the gold answer")
    assert check_free_text("Paris", ["Lyon", "Paris"]).method == "exact"  # any of the golds


@pytest.mark.parametrize("gold", ["unknown", "Unknown", "none", "None", "Cannot be determined"])
def test_a_refusal_is_right_only_where_the_gold_refuses_too(gold):
    # depends on `is_refusal` reading "I don't know." and "The text does not say." as refusals (grading/text.py)
    for reply in ("I don't know.", "The text does not say."):
        verdict = check_free_text(reply, gold)
        assert (verdict.correct, verdict.method, verdict.reason) == (
            True, "refusal", "declines to answer, as the gold does"), (reply, gold)
        wrong = check_free_text(reply, "Paris")
        assert (wrong.correct, wrong.method, wrong.reason) == (False, "refusal", "declines to answer"), reply
    assert check_free_text("Paris", "unknown") is None or check_free_text("Paris", "unknown").method != "refusal"


def test_token_f1_at_the_threshold_accepts_and_says_its_score_and_threshold():
    # a middle name left out: no earlier rule decides it (depends on the rule order of `check_free_text`)
    reply, gold = "Jean Baptiste Emile Dupont", "Jean Baptiste Emile Marie Dupont"
    score = best_f1(reply, [gold])
    assert score == pytest.approx(8 / 9)
    assert check_free_text(reply, gold) == Verdict(True, "f1", "jean baptiste emile dupont", score,
                                                   "token F1 0.89 >= 0.8")
    at = check_free_text(reply, gold, f1_threshold=score)  # exactly at the threshold: accepted, `:g` in the reason
    assert at == Verdict(True, "f1", "jean baptiste emile dupont", score, f"token F1 0.89 >= {score:g}")
    assert f"{score:g}" == "0.888889"
    assert check_free_text(reply, gold, f1_threshold=score + 1e-9) is None  # just above it: the judge's
    assert check_free_text("Jean", gold) is None  # F1 0.33, no negation: not accepted


@pytest.mark.parametrize("reply", ["not Jean Baptiste Emile Marie Dupont", "Jean Baptiste Emile Marie Dupont never"])
def test_a_negated_reply_is_not_accepted_by_token_f1(reply):
    assert best_f1(reply, ["Jean Baptiste Emile Marie Dupont"]) >= 0.8
    assert check_free_text(reply, "Jean Baptiste Emile Marie Dupont") is None


def test_a_gold_that_lists_things_needs_every_one_of_them():
    # "&", "and" or two commas in a gold of at most 8 words: each listed thing must be said (F1 alone takes
    # "Malcolm Campbell" at 0.8); "and" itself need not be said
    assert check_free_text("Malcolm Campbell", "Malcolm & Donald Campbell") is None
    both = check_free_text("Malcolm and Donald Campbell", "Malcolm & Donald Campbell")
    assert (both.correct, both.method) == (True, "f1")
    assert check_free_text("Malcolm Campbell", "Malcolm Donald Campbell") == Verdict(
        True, "f1", "malcolm campbell", pytest.approx(0.8), "token F1 0.80 >= 0.8")  # no list: F1 decides
    all_four = check_free_text("War Famine Pestilence Death", "War, Famine, Pestilence and Death")
    assert (all_four.correct, all_four.method) == (True, "f1")
    assert check_free_text("War Famine Death", "War, Famine, Pestilence and Death") is None
    # 8 words is a list, 9 a sentence that F1 grades as a whole
    eight = "red green blue yellow purple orange and pink"
    assert best_f1("red green blue yellow orange pink", [eight]) >= 0.8
    assert check_free_text("red green blue yellow orange pink", eight) is None
    nine = "red green blue yellow purple orange white and pink"
    nine_said = check_free_text("red green blue yellow purple orange pink", nine)
    assert (nine_said.correct, nine_said.method) == (True, "f1")
