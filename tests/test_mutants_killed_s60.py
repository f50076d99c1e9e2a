"""Tests for the survivors of stop 59's fresh samples still alive at stop 60, then every word of the grading rules'
word lists named by the verdict it causes (issue 47). Each list below is the test's own copy of the words: a word
emptied from a module's list changes a verdict here."""
from __future__ import annotations

from judgeagent.grading.case import Case, Reply
from judgeagent.grading.numeric import compare_numbers, unit, values
from judgeagent.grading.phrase_rules import contained, word_form
from judgeagent.grading.text import best_f1, normalise_answer
from judgeagent.grading.yes_no import denied


def case(reply, gold, question="", others=(), options=False):
    golds = [gold] if isinstance(gold, str) else list(gold)
    said = Reply.of(reply)
    return Case(said, golds, [normalise_answer(g) for g in golds], best_f1(said.text, golds), 0.8, question, others,
                options)


# --- stop 59's survivors still alive ---------------------------------------------------------------------------

def test_a_short_reply_is_at_most_twice_the_golds_words_and_three():
    # phrase_rules.contained: a two-word gold allows a short reply of 2 * 2 + 3 = 7 words, which states the gold
    # anywhere in it; a longer one must lead or conclude with it
    v = contained(case("Surely Neil Armstrong went first", "Neil Armstrong"))  # 5 words
    assert v is not None and (v.correct, v.reason) == (True, "the short reply states the gold answer")
    v = contained(case("Surely Neil Armstrong went first of all", "Neil Armstrong"))  # 7 words
    assert v is not None and (v.correct, v.reason) == (True, "the short reply states the gold answer")
    assert contained(case("Surely Neil Armstrong went first of them all", "Neil Armstrong")) is None  # 8 words


def test_a_word_form_reply_is_at_most_twice_the_golds_words_and_six():
    # phrase_rules.word_form: a two-word gold allows 2 * 2 + 6 = 10 words
    v = word_form(case("All his life he worked as house painter in Leeds", "painting houses"))  # 10 words
    assert v is not None and (v.correct, v.method) == (True, "word_form")
    assert word_form(case("All his life he worked as house painter in Leeds, England", "painting houses")) is None


def test_on_after_a_number_is_no_unit():
    # numeric._NOT_UNITS: "on" after a number is no unit, so "about 300 on average" is compared with "300 km"
    assert unit("about 300 on average") is None
    said = "about 300 on average"
    assert compare_numbers(said, "300 km", values(said), values("300 km")) == \
        (True, "states about 300, within 5% of the gold's number")


_QUESTION = ("Is the large red brick house on the north corner of the old market square near the stone river bridge "
             "still owned by the city council of Bristol today?")
_DENIAL = ("The large red brick house on the north corner of the old market square near the stone river bridge is not "
           "still owned by the city council of Bristol today, sadly")


def test_a_denying_clause_has_at_most_25_words():
    # yes_no.denied: 25 different words still deny the question's claim; 26 are more than an opening clause
    v = denied(case(_DENIAL + ".", "no", _QUESTION))  # 25 different words
    assert v is not None and (v.correct, v.reason) == (True, "denies the question's claim (no), gold 'no'")
    assert denied(case(_DENIAL + " indeed.", "no", _QUESTION)) is None  # 26
    # a hedge in a short clause is no denial either
    assert denied(case("The house is not still owned by the city council, though.", "no", _QUESTION)) is None
    v = denied(case("The house is not still owned by the city council.", "no", _QUESTION))
    assert v is not None and v.correct
