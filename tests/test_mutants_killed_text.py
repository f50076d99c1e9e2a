"""The free-text checker's own steps (grading/free_text.py: the empty reply, the exact match, the refusal, token F1
and its list and negation guards), multiple-choice conversion (grading/mcq.py) and judge calibration
(grading/calibration.py), by hand: written to kill the surviving mutants of scripts/mutants.py (issue 47). Each
test goes through a public function with inputs whose verdict is clear, and says which rule detail it depends on."""
from __future__ import annotations

import asyncio
import dataclasses
import json
import re

import pytest

from judgeagent.benchmark import Item
from judgeagent.config import CheckerConfig
from judgeagent.entities import CONCEPT
from judgeagent.grading.calibration import (
    Calibration,
    Pair,
    calibrate,
    calibration_calls,
    pairs_from_items,
    summarise,
    unvetted,
    vetted_checker,
    warn_if_unvetted,
)
from judgeagent.grading.case import Case, Reply
from judgeagent.grading.free_text import check_free_text
from judgeagent.grading.mcq import DistractorBuilder, check_options
from judgeagent.grading.rivals import rivals
from judgeagent.grading.text import (
    NEGATIONS,
    ZH_NEGATIONS,
    best_f1,
    has_cjk,
    is_refusal,
    normalise_answer,
    numbers,
    token_f1,
    zh_letters,
)
from judgeagent.grading.verdict import Verdict
from judgeagent.models.testing import FunctionModel
from tests.conftest import FOUND

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


# --- mcq.py: options built for free-text items (real HotpotQA-small graph, real spaCy and encoder) ------------

@pytest.fixture(scope="module")
def builder(request):
    """The HotpotQA-small graph's builder; without the shared datasets the mcq tests skip, the others run."""
    if FOUND is None:
        pytest.skip("the shared datasets are missing: docs/testing.md says where to put them")
    return DistractorBuilder(request.getfixturevalue("hotpot_graph"), seed=0)


def options_of(builder, gold, n=1, question="Which one is it?", **kw):
    """The options built for `n` items asking `question` with this gold (each its own qid, so its own draw)."""
    made = builder.convert([Item(qid=f"q{k}", question=question, gold=gold, **kw) for k in range(n)])
    return made


def test_check_options_names_what_is_wrong_word_for_word():
    assert check_options({"A": "Rome", "B": "Berlin"}, "A", ["Paris"]) == "options matching the gold: none"
    assert check_options({"A": "Paris", "B": "Lyon"}, "A", ["Paris", "Lyon"]) == \
        "options matching the gold: ['A', 'B']"
    assert check_options({"A": "Paris", "B": "Lyon"}, "B", ["Paris"]) == "options matching the gold: ['A']"
    assert check_options({"A": "Rome", "B": "Paris"}, "B", ["Paris"]) == ""


@pytest.mark.parametrize("gold, other", [("Yes", "No"), ("no", "yes"), ("True", "False"), ("false", "true"),
                                         ("agree", "disagree"), ("Disagree", "Agree")])
def test_a_binary_gold_gets_its_opposite_cased_like_it(builder, gold, other):
    (made,) = options_of(builder, gold)
    assert made.source == "yes_no" and sorted(made.item.options.values()) == sorted([gold, other])
    assert made.item.options[made.item.gold_letter] == gold


def test_an_item_whose_options_cannot_have_one_gold_is_skipped_with_the_reason(builder):
    # "No" is also acceptable: both binary options are golds
    (made,) = options_of(builder, "Yes", aliases=("No",))
    assert made.item is None and made.source == "skipped"
    assert made.reason == "options matching the gold: ['A', 'B']"


def _values(made):
    return [v for m in made for k, v in m.item.options.items() if k != m.item.gold_letter]


def test_a_year_moves_by_one_to_ten_years_either_way(builder):
    made = options_of(builder, "1993", n=40)
    assert {m.source for m in made} == {"numeric"} and all(len(m.item.options) == 4 for m in made)
    moved = {int(v) - 1993 for v in _values(made)}
    assert moved == {-10, -5, -3, -2, -1, 1, 2, 3, 5, 10}
    for bound in ("1000", "2100"):  # the first and last plausible year still move by years, not by a factor
        assert all(abs(int(v) - int(bound)) <= 10 for v in _values(options_of(builder, bound, n=10))), bound
    for outside in ("999", "2101"):  # just outside them a number is no year: it moves by a factor (at least 0.25x)
        assert all(abs(int(v) - int(outside)) >= 249 for v in _values(options_of(builder, outside, n=10))), outside


def test_a_small_count_moves_by_one_to_five_and_stays_positive(builder):
    assert set(_values(options_of(builder, "2", n=40))) == {"1", "3", "4", "5", "6", "7"}


def test_a_large_number_moves_by_a_factor_written_like_the_gold(builder):
    made = options_of(builder, "5000", n=40)
    assert set(_values(made)) == {"2500", "3750", "6250", "7500", "10000", "15000"}
    commas = set(_values(options_of(builder, "12,000 people", n=40)))
    assert commas == {f"{n} people" for n in ("6,000", "9,000", "15,000", "18,000", "24,000", "36,000")}
    decimals = set(_values(options_of(builder, "2.4 km", n=40)))
    assert decimals == {f"{x} km" for x in ("1.2", "1.8", "3.0", "3.6", "4.8", "7.2")}


def test_a_number_inside_a_longer_gold_or_no_number_is_not_a_numeric_item(builder):
    long, word = builder.convert([Item(qid="l", question="Who fought?", gold="about 1,200 soldiers and sailors"),
                                  Item(qid="w", question="Who taught him?", gold="Plato")])
    assert long.source != "numeric" and word.source == "graph"


def _labels(builder):
    """Each entity's graph label under the text an option shows (its first surface form, maybe capitalised)."""
    out = {}
    for forms, label in zip(builder.surfaces, builder.labels):
        if forms:
            out.setdefault(forms[0], label)
            out.setdefault(forms[0][:1].upper() + forms[0][1:], label)
    return out


def test_graph_distractors_are_of_the_golds_kind_a_capitalised_gold_a_name(builder):
    labels = _labels(builder)
    # "Plato" is an ORG entity of the graph (spaCy's label for its sentence there): its distractors are ORGs
    (plato,) = options_of(builder, "Plato")
    wrong = [v for k, v in plato.item.options.items() if k != plato.item.gold_letter]
    assert plato.source == "graph" and {labels[w] for w in wrong} == {"ORG"}, wrong
    # capitalised golds that are no graph entity, or a concept: any named kind, never a concept
    for gold in ("Socrates", "Metaphysics", "Logic", "Gold medal"):
        (made,) = options_of(builder, gold)
        assert made.source == "graph", (gold, made.reason)
        wrong = [v for k, v in made.item.options.items() if k != made.item.gold_letter]
        assert all(labels[w] != CONCEPT for w in wrong), (gold, wrong)


def test_the_graphs_first_entity_can_be_a_distractor(builder):
    # row 0 of the entity index is an entity like any other (FAISS marks "no result" with -1, not 0)
    assert builder.graph.entity_names[0] == "aristotle"  # the data this test rests on
    (plato,) = options_of(builder, "Plato")
    assert "Aristotle" in plato.item.options.values()


def test_a_distractor_is_never_a_word_of_the_question_but_may_be_inside_one(builder):
    # `_acceptable` and `_display` (below) are read directly: through `convert`, which candidates reach them
    # depends on the whole graph's ranking
    item = Item(qid="q", question="Where is Romeo buried?", gold="Verona")
    assert builder._acceptable("Rome", item, []) and builder._acceptable("Romeo's", item, [])
    assert not builder._acceptable("Romeo", item, [])
    assert builder._acceptable("Rome", Item(qid="q", question="Where is Jerome buried?", gold="Verona"), [])
    for question in ("Paris hosted which games?", "Which games were held in Paris?"):
        assert not builder._acceptable("Paris", Item(qid="q", question=question, gold="1924 Summer Olympics"), [])
    assert builder._acceptable("Paris", Item(qid="q", question="Which games were held there?", gold="Athens"), [])


def test_a_lowercase_entity_is_shown_capitalised_beside_a_capitalised_gold(builder):
    row = next(i for i, forms in enumerate(builder.surfaces) if forms and forms[0][:1].islower() and len(forms[0]) > 3)
    text = builder.surfaces[row][0]
    assert builder._display(row, "Latin") == text[0].upper() + text[1:]
    assert builder._display(row, "latin") == text


# --- calibration.py: probe pairs, the judge's rates and notes, the policies (scripted judges in process) -------

RIVERS = [Item("r1", "Which river flows through Cairo?", "Nile"), Item("r2", "Which river flows through Paris?", "Seine"),
          Item("r3", "Which river flows through Vienna?", "Danube"), Item("p1", "Who wrote Hamlet?", "William Shakespeare"),
          Item("p2", "Who discovered radium?", "Marie Curie"), Item("p3", "Who first walked on the Moon?", "Neil Armstrong")]


def _faithful(messages):
    """Right when the candidate names a reference answer (every probe here is right or wrong by construction)."""
    prompt = messages[-1]["content"]
    reference = re.search(r"Reference answer: (.*)", prompt).group(1)
    candidate = re.search(r"Candidate answer: (.*)", prompt).group(1).lower()
    golds = re.split(r" \(also acceptable: |; ", reference.rstrip(")"))
    return json.dumps({"reasoning": "it names the reference or it does not", "correct": any(
        g.lower() in candidate for g in golds)})


def _yes(messages):
    return json.dumps({"reasoning": "it looks right to me", "correct": True})


def _garbled(messages):
    return "I would rather not say."


def _calibrate(reply, pairs, **settings):
    return asyncio.run(calibrate(FunctionModel(reply), pairs, CheckerConfig(**settings)))


def test_two_usable_golds_are_enough_for_balanced_pairs_and_yes_no_maybe_are_not_usable():
    two = pairs_from_items(RIVERS[:2], 10, seed=0)
    assert len(two) == 10 and sum(p.accept for p in two) == 5
    assert pairs_from_items([RIVERS[0], Item("y", "Is it?", "yes"), Item("m", "Is it?", "Maybe")], 10) == []


def test_an_alias_that_is_yes_no_or_maybe_is_never_a_probe():
    items = [Item(f"q{k}", f"Question {k}?", gold, aliases=("Maybe", "yes", "No"))
             for k, gold in enumerate(["Nile", "Seine", "Danube"])]
    assert not [p for p in pairs_from_items(items, 40, seed=0) if p.kind == "alias"]
    named = [Item(f"q{k}", f"Question {k}?", gold, aliases=(alias, "maybe"))
             for k, (gold, alias) in enumerate([("Nile", "the Nile River"), ("Seine", "La Seine")])]
    aliases = [p for p in pairs_from_items(named, 40, seed=0) if p.kind == "alias"]
    assert aliases and all("maybe" not in p.answer.lower() for p in aliases)


def test_a_number_in_words_gets_a_numeral_of_two_to_nine_added():
    items = [Item("w", "How many moons?", "twelve"), Item("n", "Which river?", "Nile")]
    added = {int(m.group(1)) for p in pairs_from_items(items, 400, seed=0) if p.kind == "changed_number"
             for m in [re.search(r"twelve plus (\d+)", p.answer)]}
    assert added == set(range(2, 10))


def test_a_choice_item_is_probed_with_its_other_options_never_its_own():
    options = {"A": "Nile", "B": "Amazon", "C": "Yangtze", "D": "Mississippi"}
    items = [Item("c", "Which river flows through Cairo?", "Nile", options=options, gold_letter="A"), RIVERS[4]]
    wrong = [p for p in pairs_from_items(items, 40, seed=0) if p.kind == "other_option"]
    assert wrong and all(not p.accept and "Nile" not in p.answer for p in wrong)
    assert all(any(other in p.answer for other in ("Amazon", "Yangtze", "Mississippi")) for p in wrong)


def test_the_default_checker_probes_with_other_golds_and_hard_negatives_only_when_asked():
    judge = FunctionModel(_faithful)
    _, basic = asyncio.run(vetted_checker(CheckerConfig(), judge, RIVERS, seed=2))
    _, hard = asyncio.run(vetted_checker(CheckerConfig(hard_probes=True), judge, RIVERS, seed=2))
    assert not {"same_kind", "partial"} & set(basic.by_kind) and "other_gold" in basic.by_kind
    assert {"same_kind", "partial"} & set(hard.by_kind)


def test_the_calls_a_dry_run_counts_follow_the_policy():
    n = len({(p.question, p.gold, p.answer) for p in pairs_from_items(RIVERS, 40, seed=0)})
    assert n > 8
    assert calibration_calls(RIVERS, "off") == (0, 0)
    assert calibration_calls(RIVERS, "trust") == (n, n)
    assert calibration_calls(RIVERS, "calibrated") == (8, n)


def test_a_faithful_judge_passes_at_the_bounds_and_is_used():
    pairs = pairs_from_items(RIVERS, 40, seed=0)
    cal = _calibrate(_faithful, pairs, min_judge_accuracy=1.0, max_judge_fpr=0.0)
    assert (cal.pairs, cal.accuracy, cal.fpr, cal.fnr, cal.failures, cal.errors) == (40, 1.0, 0.0, 0.0, 0, [])
    assert cal.passed and cal.used and cal.policy == "calibrated"
    assert set(cal.intervals) == {"accuracy", "fpr", "fnr"} and cal.intervals["fpr"][0] == 0.0
    assert cal.note == "judge passed calibration (accuracy 100%, false-positive rate 0% on 40 pairs)"
    assert sum(k["n"] for k in cal.by_kind.values()) == 40 == sum(k["right"] for k in cal.by_kind.values())


def test_a_judge_that_accepts_everything_fails_and_says_what_was_needed():
    pairs = pairs_from_items(RIVERS, 40, seed=0)
    strict = _calibrate(_yes, pairs)
    assert strict.pairs == 8 and not strict.passed and not strict.used and strict.fpr == 1.0
    assert strict.note == ("judge FAILED calibration (accuracy 50%, false-positive rate 100% on 8 pairs; needs "
                           "accuracy >= 90% and false positives <= 5%): not used, undecided answers settled by token "
                           "F1 (stopped after 8 of 40 pairs: it could no longer pass)")
    trusted = _calibrate(_yes, pairs, judge_policy="trust")
    assert trusted.pairs == 40 and trusted.used and not trusted.passed
    assert trusted.note == ("judge FAILED calibration (accuracy 50%, false-positive rate 100% on 40 pairs; needs "
                            "accuracy >= 90% and false positives <= 5%) but is trusted (--judge-policy trust)")
    assert len(trusted.errors) == 10 and all(e["accepted"] for e in trusted.errors)  # the first 10 of 20


def test_a_judge_that_gives_no_decision_counts_every_pair_as_an_error_and_stops_the_strict_policy():
    pairs = pairs_from_items(RIVERS, 40, seed=0)
    strict = _calibrate(_garbled, pairs)
    assert (strict.pairs, strict.failures, strict.accuracy, strict.fnr) == (8, 8, 0.0, 1.0)
    assert strict.fpr == 0.0 and "stopped after 8 of 40 pairs" in strict.note  # failures are errors, not accepts
    assert len(strict.errors) == 8 and not any(e["accepted"] for e in strict.errors)


def test_rates_without_a_negative_pair_show_a_dash_and_do_not_pass():
    pair = Pair("Which river?", "Nile", "It is Nile.", True, "restated")
    cal = summarise([pair], [(True, False, "names it")], CheckerConfig())
    assert (cal.accuracy, cal.fpr, cal.fnr, cal.passed, cal.used) == (1.0, None, 0.0, False, False)
    assert cal.note.startswith("judge FAILED calibration (accuracy 100%, false-positive rate - on 1 pairs;")


def test_without_calibration_the_judge_is_used_only_when_trusted():
    judge = FunctionModel(_faithful)
    one = [RIVERS[0], Item("y", "Is it?", "yes")]  # one usable gold: no pairs can be built
    checker, off = asyncio.run(vetted_checker(CheckerConfig(judge_policy="off"), judge, RIVERS))
    assert checker.judge is None and off == Calibration(0, None, None, None, {}, 0, False, False, "off",
                                                         "judge policy off: deterministic rules only", {}, [])
    checker, strict = asyncio.run(vetted_checker(CheckerConfig(), judge, one))
    assert checker.judge is None and not strict.used and not strict.passed and strict.pairs == 0
    assert strict.note == "no calibration pairs could be built (fewer than 2 usable gold answers)"
    # trust: the judge is used whatever calibration says, so also when there was nothing to calibrate it on
    checker, trusted = asyncio.run(vetted_checker(CheckerConfig(judge_policy="trust"), judge, one))
    assert checker.judge is judge and trusted.used and not trusted.passed and not judge.calls
    checker, none = asyncio.run(vetted_checker(CheckerConfig(judge_policy="trust"), None, one))
    assert checker.judge is None and not none.used


def test_unvetted_names_why_word_for_word():
    assert unvetted({"passed": False, "pairs": 0, "policy": "off", "note": ""}) == \
        "graded by a judge that was not calibrated (off)"
    assert unvetted({"passed": False, "pairs": 0, "policy": "trust", "note": "no calibration pairs"}) == \
        "graded by a judge that was not calibrated (no calibration pairs)"
    assert unvetted({"passed": False, "pairs": 1, "accuracy": 1.0, "fpr": None}) == \
        "graded by a judge that failed calibration (accuracy 1.00)"
    assert unvetted({"passed": False, "pairs": 8, "accuracy": 0.5, "fpr": 1.0}) == \
        "graded by a judge that failed calibration (accuracy 0.50, false-positive rate 1.00)"


def test_a_failed_calibration_is_said_once_when_there_is_someone_to_tell():
    pairs = pairs_from_items(RIVERS, 40, seed=0)
    failed, passed = _calibrate(_yes, pairs), _calibrate(_faithful, pairs)
    off = asyncio.run(vetted_checker(CheckerConfig(judge_policy="off"), FunctionModel(_yes), RIVERS))[1]
    said: list[str] = []
    for cal in (failed, passed, off):
        warn_if_unvetted(cal, said.append)
        warn_if_unvetted(cal, None)  # no one to tell: nothing happens
    assert said == [f"warning: {failed.note}"]


# --- text.py, case.py, rivals.py: the text helpers every free-text rule reads -----------------------------------

@pytest.mark.parametrize("word", sorted(NEGATIONS))
def test_each_negation_word_keeps_a_short_reply_from_matching_the_gold(word):
    # without the word among NEGATIONS, "It isnt Paris" is read as a short reply stating the gold ("exact")
    for reply in (f"It {word} Paris", f"Paris {word}"):
        assert check_free_text(reply, "Paris") is None, reply
    assert check_free_text("It is Paris", "Paris").correct  # the same reply without the negation is right


@pytest.mark.parametrize("word", sorted(ZH_NEGATIONS))
def test_each_chinese_negation_keeps_a_reply_from_matching_the_gold(word):
    for reply in (f"北京{word}", f"{word}北京", f"答案是{word}北京大学"):
        gold = "北京大学" if "大学" in reply else "北京"
        assert check_free_text(reply, gold) is None, reply
    assert check_free_text("答案是北京大学", "北京大学").correct


def test_what_turns_the_cjk_reading_on():
    assert not has_cjk("Paris, 1999 -- the end") and not has_cjk("Dáin Ironfoot")
    for text in ("北京", "ひらがな", "한국", "「x」", "ＡＢＣ", "x。"):  # ideographs, kana, hangul, punctuation, full width
        assert has_cjk(text), text
    assert normalise_answer("The Answer: Paris!") == "answer paris"
    assert normalise_answer("答案是“北京”。") == "答 案 是 北 京"


@pytest.mark.parametrize("text, value", [
    ("one", 1), ("five", 5), ("nine", 9), ("first", 1), ("third", 3), ("sixth", 6), ("thirteenth", 13),
    ("sixteenth", 16), ("Twenty-one", 21), ("a dozen", 12), ("the 3rd", 3), ("1,200 people", 1200)])
def test_a_number_word_or_numeral_is_read_as_its_value(text, value):
    assert numbers(text) == {float(value)}


def test_a_scaled_number_counts_under_both_readings():
    assert numbers("2 thousand") == {2.0, 2000.0}
    assert numbers("twelve hundred") == {12.0, 1200.0}
    assert numbers("two million people") == {2.0, 2e6}
    assert numbers("1,200,000 and 3,45") == {1200000.0, 3.0, 45.0}  # a comma before three digits only


def test_token_f1_of_empty_answers_and_by_hand():
    assert token_f1("", "") == 1.0 and token_f1("", "Paris") == 0.0 and token_f1("Paris", "") == 0.0
    assert token_f1("the Paris", "Paris") == 1.0
    assert token_f1("Paris France", "Paris") == pytest.approx(2 / 3)  # precision 1/2, recall 1
    assert token_f1("x y z", "y z v w") == pytest.approx(2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4))


def test_a_refusal_has_at_most_thirty_words():
    filler = "about who painted the portrait that hangs in the long gallery of the old house by the river".split()

    def refusal(n):
        return " ".join((["I", "do", "not", "know"] + filler * 2)[:n])
    assert is_refusal(refusal(30)) and len(refusal(30).split()) == 30
    assert not is_refusal(refusal(31))


def test_zh_letters_reads_the_committed_letter():
    assert zh_letters("答案是C") == ["C"] and zh_letters("选b") == ["B"] and zh_letters("A项正确") == ["A"]
    assert zh_letters("不选A") == [] and zh_letters("A或B") == []


def test_a_reply_keeps_its_first_sentence_apart():
    english = Reply.of("The answer is Paris. Lyon is not.")
    assert (english.raw, english.text, english.first) == ("The answer is Paris. Lyon is not.", "paris lyon is not",
                                                          "paris")
    assert Reply.of("Paris").first == "paris" and Reply.of("Paris\nLyon").first == "paris"
    assert Reply.of("It is e.g. paris. Lyon").first == "it is eg paris"  # a sentence ends before a capital only
    chinese = Reply.of("答案是北京。上海不是。")
    assert (chinese.text, chinese.first) == ("北 京 上 海 不 是", "北 京")
    assert Reply.of("北京").first == "北 京" and Reply.of("北京\n上海").first == "北 京"


def test_a_reply_its_case_and_the_rivals_index_are_frozen():
    reply = Reply.of("Paris")
    case = Case(reply, ["Paris"], ["paris"], 1.0, 0.8, "Where?", {"lyon"})
    index = rivals({"lyon"})
    for thing, name in ((reply, "text"), (case, "score"), (index, "normalised")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(thing, name, None)


def test_the_rivals_within_a_reply_are_those_all_of_whose_words_it_says():
    index = rivals(["new york", "york", "", "Nuevo León".lower(), "san josé"])
    assert "" not in index.normalised and "" not in index.folded
    assert sorted(index.within(["new", "york"])) == ["new york", "york"]  # a rival that is all the reply's words
    assert index.within(["york", "city"]) == ["york"] and index.within(["new"]) == []
    assert index.folded_within(["san", "jose"]) == ["san jose"] and index.within(["san", "jose"]) == []
    assert sorted(index.folded_with("york")) == ["new york", "york"] and index.folded_with("paris") == ()
    assert rivals(frozenset({"york"})).within(["york"]) == ["york"]
