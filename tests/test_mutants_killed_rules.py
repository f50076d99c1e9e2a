"""The free-text rules (grading/phrase_rules.py, name_rules.py, number_rules.py, numeric.py, yes_no.py,
free_text.py), the checker around them (answers.py) and the verdict's legend (verdict.py), by hand: written to kill
the surviving mutants of scripts/mutants.py (issue 47). Each test names the rule and the inputs that tell a working
rule from a broken one."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from judgeagent.grading.answers import AnswerChecker, check_answer, check_free_text, other_golds
from judgeagent.grading.case import Case, Reply
from judgeagent.grading.name_rules import acronym, name_part
from judgeagent.grading.phrase_rules import (
    contained,
    other_answer,
    phrase,
    spelled,
    two_candidates,
    word_form,
)
from judgeagent.grading.text import best_f1, normalise_answer
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
    }
    # `number_mismatch` keeps its line for runs recorded before #46 removed the rule
    assert reached == {"letter", "option_text", "several_options", "empty", "exact", "refusal", "other_answer"}


def test_the_checkers_names_are_all_exported():
    from judgeagent.grading import answers

    # what `from judgeagent.grading.answers import *` reads: a blank or unknown name there fails the import
    assert [name for name in answers.__all__ if not hasattr(answers, name)] == []
    assert {"METHODS", "AnswerChecker", "JudgeDecision", "Verdict", "check_answer", "check_choice", "check_free_text",
            "check_options", "extract_letter", "is_refusal", "judge_answer", "judge_messages", "normalise_answer",
            "numbers", "question_type", "token_f1"} <= set(answers.__all__)


def test_an_empty_verdict_and_one_line():
    assert empty() == Verdict(False, "empty", None, None, "empty answer")
    with pytest.raises(dataclasses.FrozenInstanceError):  # a verdict recorded is never changed afterwards
        empty().correct = True  # type: ignore[misc]
    assert len({empty(), empty()}) == 1  # frozen, hence hashable: verdicts are set members and dict keys
    assert one_line("  a  b\n\tc ") == "a b c"
    assert one_line("x" * 200) == "x" * 200  # at the width: kept whole
    assert one_line("x" * 201) == "x" * 199 + "…" and len(one_line("x" * 201)) == 200
    assert one_line("abcdef", width=4) == "abc…"


# --- phrase_rules.py ------------------------------------------------------------------------------------

def case(reply, gold, question="", others=()):
    """The `Case` every rule reads, as `check_free_text` builds it."""
    golds = [gold] if isinstance(gold, str) else list(gold)
    said = Reply.of(reply)
    return Case(said, golds, [normalise_answer(g) for g in golds], best_f1(said.text, golds), 0.8, question, others)


def test_the_first_sentence_states_the_gold_when_it_opens_or_ends_it():
    # "exact" by the first sentence, not left to the looser whole-phrase rule
    for reply in ("The capital city of France is Paris.", "Paris is the capital of France and its largest city."):
        v = decide(reply, "Paris")
        assert (v.correct, v.method, v.reason) == (True, "exact", "the first sentence states the gold answer"), v
    # the gold opening a list ("Paris; ...", "New York; ...": the pattern matches the gold's words across punctuation)
    assert contained(case("Paris; it is the capital of France and its largest city.", "Paris")) is None
    assert contained(case("New York; it is the largest city of the United States.", "New York")) is None


def test_another_items_gold_framed_by_naming_words_or_sharing_a_link_word():
    v = decide("It was named Frank Drake.", "Carl Sagan", others={"frank drake"})
    assert (v.correct, v.method) == (False, "other_answer"), v
    v = decide("Frank Drake", "Carl Sagan", others={"frank drake"})
    assert v.reason == "answers 'frank drake', another item's answer"
    # "by" links words and is no word of the gold's: "Killed by Death" shares nothing with "Stand by Me"
    v = decide("Killed by Death", "Stand by Me", others={"killed by death"})
    assert (v.correct, v.method) == (False, "other_answer"), v
    # another item's gold that is this gold's initials is no rival ("CS" for "Carl Sagan")
    assert other_answer(case("CS", "Carl Sagan", others={"cs"})) is None


def test_a_spelling_variant_is_one_vowel_inside_a_long_word():
    v = spelled(case("an unsolvable problem", "an unsolveable problem"))
    assert (v.correct, v.method, v.extracted) == (True, "folded", "unsolvable problem"), v
    assert spelled(case("emission", "mission")) is None  # a vowel added at the start: another word
    assert spelled(case("hemattite", "hematite")) is None  # a consonant added inside


def test_the_whole_phrase_rule_skips_a_gold_the_question_opens_with():
    assert phrase(case("In the end the prize went to Paris, as the papers said.", "Paris",
                       "Paris or Rome: which city won?")) is None
    # another item's gold is a rival only as whole words: "Renew York" does not name "new york"
    v = phrase(case("The Renew York plan, a new idea, came to Boston in the end.", "Boston", "Which city?",
                    {"new york"}))
    assert (v.correct, v.method) == (True, "phrase"), v


def test_word_forms_only_in_a_short_reply():
    # 9 words (the article folded away) against a one-word gold: more than 2 * 1 + 6
    assert word_form(case("Many sharecroppers worked all that land in the old south", "Sharecropping")) is None
    v = word_form(case("Many sharecroppers worked that land in the old south", "Sharecropping"))
    assert (v.correct, v.method) == (True, "word_form"), v


def test_two_candidates_the_others_first_name_with_the_golds_surname_names_neither():
    # the question opens with the other candidate: its first name is the question's first word
    assert two_candidates(case("Sid Darchinyan", "Vic Darchinyan", "Sid Haig or Vic Darchinyan")) is None
    v = two_candidates(case("Vic Darchinyan", "Vic Darchinyan", "Sid Haig or Vic Darchinyan"))
    assert (v.correct, v.method) == (True, "choice"), v


# --- name_rules.py --------------------------------------------------------------------------------------

def test_initials_leave_out_connecting_words_and_stop_at_eight_letters():
    v = acronym(case("LV", "Leonardo da Vinci"))  # "da" connects: the content words' initials
    assert (v.correct, v.method, v.reason) == (True, "acronym", "the gold's initials, or the gold spelled out"), v
    assert acronym(case("ABCDEFGHI", "Alpha Beta Charlie Delta Echo Foxtrot Golf Hotel India")) is None
    assert acronym(case("ABCDEFGH", "Alpha Beta Charlie Delta Echo Foxtrot Golf Hotel")).method == "acronym"


def test_a_surname_after_a_title_is_the_persons_name():
    for reply, gold, question in [("Sir Churchill", "Winston Churchill", "Who led Britain in 1940?"),
                                  ("Lord Tennyson", "Alfred Tennyson", "Who wrote In Memoriam?"),
                                  ("Professor Hawking", "Stephen Hawking", "Who wrote A Brief History of Time?"),
                                  ("Reverend Spooner", "William Spooner", "Who gave his name to spoonerisms?")]:
        v = name_part(case(reply, gold, question))
        assert (v.correct, v.method, v.extracted) == (True, "name_part", gold.split()[-1].lower()), (reply, v)


def test_a_regnal_title_takes_a_given_name_and_a_suffix_is_no_surname():
    # "Emperor Bonaparte": after a regnal title comes a given name, not the gold's surname
    assert name_part(case("Emperor Bonaparte", "Napoleon Bonaparte", "Who won at Austerlitz?")) is None
    v = name_part(case("Ford", "Henry Ford II", "Who ran the carmaker in 1960?"))  # "II" is no surname
    assert (v.correct, v.method, v.extracted) == (True, "name_part", "ford"), v


def test_a_reply_in_lower_case_gives_no_sign_against_a_name():
    v = name_part(case("sir churchill", "Winston Churchill", "Who led Britain in 1940?"))
    assert (v.correct, v.method) == (True, "name_part"), v
    # the surname in lower case, and capitalised only inside a longer word ("Churchillian"): not written as a name
    assert name_part(case("It was churchill, the Churchillian leader.", "Winston Churchill",
                          "Which Churchillian leader led Britain in 1940?")) is None


# --- answers.py -----------------------------------------------------------------------------------------

def test_the_checker_is_frozen_and_says_why_an_answer_stayed_undecided():
    checker = AnswerChecker()
    with pytest.raises(dataclasses.FrozenInstanceError):  # one checker serves every reply of a run, unchanged
        checker.judge = None  # type: ignore[misc]
    v = asyncio.run(checker.check("Who wrote Cosmos?", "Carl Sagan", "a scientist of some note"))
    assert (v.correct, v.method, v.reason) == (False, "undecided", "no rule decided and no judge: token F1 0.00 vs 0.8")


def test_other_golds_leave_out_yes_no_and_maybe():
    assert other_golds(["Yes", "no.", "Maybe", "Paris", "The Nile", ""]) == frozenset({"paris", "nile"})
