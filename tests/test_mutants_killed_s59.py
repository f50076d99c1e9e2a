"""Tests for the survivors of stop 59's fresh mutation sample (scripts/mutants.py --sample 5 --seed 59, issue 47): each
names the rule and the input that tells the working rule from the mutant. Written after the sample was scored, so
they do not change its estimate (bench/mutants.md)."""
from __future__ import annotations

from judgeagent.grading.case import Case, Reply
from judgeagent.grading.number_rules import _same_unit
from judgeagent.grading.numeric import compare_numbers, numbers, unit
from judgeagent.grading.phrase_rules import _leads_or_concludes, other_answer, two_candidates
from judgeagent.grading.text import best_f1, normalise_answer
from judgeagent.grading.yes_no import restated


def case(reply, gold, question="", others=()):
    golds = [gold] if isinstance(gold, str) else list(gold)
    said = Reply.of(reply)
    return Case(said, golds, [normalise_answer(g) for g in golds], best_f1(said.text, golds), 0.8, question, others)


def test_pounds_are_one_unit_with_lb():
    # numeric._UNIT_NAMES: "12 pounds" and "12 lb" are one unit, so they are compared, not set apart as two units
    assert unit("about 12 pounds") == unit("12 lb") == "lb"


def test_a_whole_number_in_a_range_reason_reads_as_a_whole_number():
    # compare_numbers' reason prints values with :g ("11", not "11.0")
    match = compare_numbers("about 11 years", "10-12 years", numbers("about 11 years"), numbers("10-12 years"))
    assert match == (True, "states 11, inside the gold's range 10-12")


def test_trillion_is_a_scale_word_not_a_unit():
    # number_rules.SCALE_WORDS: the unit of "2 trillion dollars" is "dollar", as for "2 billion dollars"
    assert _same_unit("2 trillion dollars", "2 trillion dollars")
    assert not _same_unit("2 trillion dollars", "2 trillion yen")


def test_a_claim_is_not_restated_as_a_yes_or_no_when_the_question_itself_negates():
    # yes_no.restated: a question with a negation ("Isn't ...?") leaves a restating reply undecided, even with no
    # negation added by the reply; and two added negations leave it undecided too
    assert restated(case("Both magazines are British publications.", "yes",
                         "Aren't both magazines not British publications?")) is None
    assert restated(case("Both magazines are never not British publications.", "yes",
                         "Are both magazines British publications?")) is None
    v = restated(case("Both magazines are British publications.", "yes", "Are both magazines British publications?"))
    assert v is not None and v.correct


def test_a_sentence_of_more_than_30_words_is_not_read_as_concluding_with_the_gold():
    long = " ".join(["word"] * 28) + " was Neil Armstrong."  # 31 words
    assert not _leads_or_concludes(Reply.of(long), "neil armstrong")
    assert _leads_or_concludes(Reply.of(" ".join(["word"] * 27) + " was Neil Armstrong."), "neil armstrong")  # 30
    assert _leads_or_concludes(Reply.of("The first man on the Moon was Neil Armstrong."), "neil armstrong")


def test_a_shared_link_word_is_no_shared_word_with_another_items_gold():
    # phrase_rules._LINKS: "on" in both "Stratford on Avon" and "Rostov on Don" does not make the reply a form of
    # this item's gold: the reply answers the other item's gold
    v = other_answer(case("Rostov on Don", "Stratford on Avon", "Where was Shakespeare born?",
                          others={"rostov on don"}))
    assert v is not None and (v.correct, v.method) == (False, "other_answer")


def test_two_candidates_where_the_second_is_one_word():
    # two_candidates: "or" second to last ("..., Sid Haig or Vic?") still offers two candidates
    v = two_candidates(case("Sid Haig", "Sid Haig", "Who is older, Sid Haig or Vic?"))
    assert v is not None and v.correct
    # the second candidate is named by the question's last word: "Darchinyan" names the other candidate
    v = two_candidates(case("Darchinyan", "Sid Haig", "Who is older, Sid Haig or Vic Darchinyan?"))
    assert v is not None and (v.correct, v.reason) == (False, "names the question's other candidate")


def test_the_cosine_compares_question_and_gold_with_question_and_reply_spaced_alike():
    # equivalence.features_many: "QUESTION GOLD" against "QUESTION FIRST-SENTENCE", one space each; a question
    # without a final "?" and a reply that is the gold give the same text twice, so a cosine of 1
    from judgeagent.grading.equivalence import FEATURES, features

    row = features("Name the capital of France", ["Paris"], "Paris")
    assert row[FEATURES.index("cosine")] > 0.9999


def test_a_threshold_that_accepts_no_right_answer_fails_calibration():
    # equivalence.calibrate: the top score is one wrong answer (FPR 1 of 100 <= 5%), every right one is below the
    # next, which lets all wrong ones in: the best threshold accepts no right answer, so recall 0 fails
    from judgeagent.grading.equivalence import calibrate

    result = calibrate([0.9] + [0.5] * 99 + [0.5] * 10, [False] * 100 + [True] * 10)
    assert result.recall == 0.0 and not result.passed


def test_an_unfinished_reproduce_run_is_finished_by_its_own_command(tmp_path):
    from judgeagent.runs import finish_hint

    assert finish_hint(tmp_path, {"kind": "reproduce"}) == \
        f"run the same reproduce command again (same --run-dir {tmp_path})"
    assert finish_hint(tmp_path, {"kind": "run"}) == f"judgeagent evaluate --resume {tmp_path}"


# --- the second fresh sample's survivors (bench/mutants.md, "Stop 59, fresh sample") -----------------------

def test_a_judge_reason_that_repeats_the_closing_question_is_no_reasoning():
    # judge._instructions holds the prompt's closing question
    from judgeagent.grading.judge import copies_instructions

    assert copies_instructions("Is the candidate correct?")


def test_a_surname_after_justice_or_that_is_the_persons_name():
    # name_rules.TITLES ("justice") and _SUBJECTS ("that"): words around the surname that name no one else
    from judgeagent.grading.name_rules import name_part

    for reply in ("Justice Ginsburg", "That was Ginsburg."):
        v = name_part(case(reply, "Ruth Bader Ginsburg", "Who wrote the dissent?"))
        assert v is not None and (v.correct, v.method) == (True, "name_part"), reply


def test_approximately_in_the_gold_is_no_word_the_reply_must_say():
    # number_rules.APPROX_WORDS: "300 people" states "approximately 300 people"
    from judgeagent.grading.number_rules import _only_number

    assert _only_number("approximately 300 people", "300 people")


def test_a_range_needs_two_different_ends():
    # numeric.gold_range: "10-10" is one value, not a range
    from judgeagent.grading.numeric import gold_range

    assert gold_range("10-10 years") is None and gold_range("10-12 years") == (10.0, 12.0)
