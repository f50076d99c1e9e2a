"""Tests written against surviving mutants (scripts/mutants.py, #47 part B): the learned equivalence step, the hard
negative probes, the judge role and the interviewer, Teach2Eval and DynaEval reports. Each reads an outcome through
the public function or the report a user reads."""
from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from judgeagent.benchmarks.item import Item
from judgeagent.config import DEFAULT_EMBEDDING_MODEL
from judgeagent.errors import JudgeAgentError
from judgeagent.grading import equivalence as eq
from judgeagent.metrics import wilson

# --- grading/equivalence.py -------------------------------------------------------------------------------------


def _features(reply: str, golds=("Paris",), question: str = "What is the capital of France?") -> dict[str, float]:
    return {k: float(v) for k, v in zip(eq.FEATURES, eq.features(question, list(golds), reply, cosine=False))}


def test_every_feature_of_one_reply_by_hand():
    f = _features("Shakespeare wrote it. Not Marlowe.", ("William Shakespeare", "Shakespeare"), "Who wrote Hamlet?")
    # said: shakespeare wrote it not marlowe (5 words); first sentence: shakespeare wrote it (3 words)
    assert f == pytest.approx({
        "f1": 1 / 3,  # with "shakespeare": precision 1/5, recall 1
        "gold_recall": 1.0, "reply_precision": 0.2, "gold_phrase": 1.0, "first_recall": 1.0,
        "first_f1": 0.5,  # precision 1/3, recall 1
        "numbers_agree": 0.0, "numbers_clash": 0.0, "negation": 1.0, "hedge": 0.0,
        "log_reply_words": np.log1p(5), "log_gold_words": np.log1p(1),  # the best gold: "shakespeare"
        "spelling": 2 * 11 / (20 + 11),  # "shakespeare wrote it" against "shakespeare"
        "cosine": 0.0})
    year = _features("In 1945, after the war.", ("1945",), "When did the war end?")
    assert (year["numbers_agree"], year["numbers_clash"], year["reply_precision"]) == (1.0, 0.0, 0.25)
    none = _features("After the war.", ("1945",), "When did the war end?")
    assert (none["numbers_agree"], none["numbers_clash"]) == (0.0, 0.0)  # no number said: no clash either


def test_the_gold_as_a_phrase_at_either_end_of_the_reply_or_inside_a_longer_word():
    assert _features("Paris is the capital.")["gold_phrase"] == 1.0
    assert _features("The capital is Paris")["gold_phrase"] == 1.0
    assert _features("Parisian food is good.")["gold_phrase"] == 0.0


def test_each_hedge_word_is_a_hedge_in_the_first_sentence_only():
    for word in ("or", "possibly", "perhaps", "maybe", "might", "unsure", "unclear", "either"):
        assert eq.hedged(f"Paris {word} Lyon.") and _features(f"Paris {word} Lyon.")["hedge"] == 1.0, word
    assert not eq.hedged("Paris is the capital. Lyon might be bigger.")
    assert not eq.hedged("Paris.") and _features("Paris.")["hedge"] == 0.0
    assert eq.hedged("It is not Paris.")  # a negation


def test_calibration_notes_word_for_word_and_the_fifty_wrong_answers_it_needs():
    scores = [0.9, 0.8, 0.7, 0.6, 0.5] * 20 + [0.65] * 4 + [0.55] * 6 + [0.3] * 90
    c = eq.calibrate(scores, [True] * 100 + [False] * 100, max_fpr=0.05)
    assert c.note == ("threshold 0.600: false-positive rate 0.040 (<= 0.05), recall 0.800, accuracy 0.880 on 200 "
                      "held-out pairs")
    assert (c.positives, c.negatives, c.accuracy, c.max_fpr) == (100, 100, 0.88, 0.05)
    assert c.to_dict() == {**c.__dict__}
    assert eq.MIN_NEGATIVES == 50
    fifty = eq.calibrate([0.9] * 10 + [0.1] * 50, [True] * 10 + [False] * 50)
    assert fifty.passed and (fifty.threshold, fifty.fpr, fifty.recall) == (0.9, 0.0, 1.0)
    few = eq.calibrate([0.9] * 10 + [0.1] * 49, [True] * 10 + [False] * 49)
    assert not few.passed and few.threshold == 1.0 and few.note == (
        "calibration failed: 49 wrong and 10 right answers held out (needs >= 50 wrong and some right)")
    hopeless = eq.calibrate([0.9] * 60 + [0.1] * 5, [False] * 60 + [True] * 5)
    assert hopeless.note == "calibration failed: no threshold keeps the false-positive rate <= 0.05"
    third = eq.calibrate(scores, [True] * 100 + [False] * 100, max_fpr=1 / 3)  # the bound in six digits (:g)
    assert "(<= 0.333333), recall 1.000" in third.note


def test_the_fit_is_the_penalised_optimum_in_its_own_standardisation():
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(5, 2, 200), rng.normal(-3, 0.5, 200), np.full(200, 7.0)])  # a constant column
    y = rng.random(200) < 1 / (1 + np.exp(-(x[:, 0] - 5)))
    w, mean, scale = eq.fit(x, y, l2=1.0)
    assert np.allclose(mean, x.mean(axis=0)) and np.allclose(scale[:2], x.std(axis=0)[:2]) and scale[2] == 1.0
    z = np.hstack([np.ones((200, 1)), (x - mean) / scale])
    p = 1 / (1 + np.exp(-(z @ w)))
    assert np.allclose(z.T @ (p - y) + np.r_[0.0, w[1:]], 0, atol=1e-6)  # the gradient of the penalised loss
    step = eq.Equivalence(w, mean, scale, eq.calibrate([0.0], [False]))
    assert step.probabilities(x).mean() == pytest.approx(y.mean(), abs=1e-6)  # the unpenalised bias's mark
    assert w[1] > 1.0 and w[3] == 0.0


def _step(path: Path | None = None, *, passed: bool = True, fpr: float = 0.0, max_fpr: float = 0.05,
          **extra) -> eq.Equivalence:
    """A step that says "right" when the reply holds the gold's words (gold_recall), else "wrong"."""
    n = len(eq.FEATURES)
    w = np.zeros(n + 1)
    w[0], w[1 + eq.FEATURES.index("gold_recall")] = -5.0, 10.0
    cal = eq.Calibration(0.5, max_fpr, fpr, 1.0, 1.0, 60, 60, passed, "threshold 0.500 on 120 test pairs")
    step = eq.Equivalence(w, np.zeros(n), np.ones(n), cal, "test pairs", extra=extra)
    if path is not None:
        step.save(path)
    return step


def test_the_steps_reasons_word_for_word(encoder):
    eq._Cosine._encoders.setdefault(DEFAULT_EMBEDDING_MODEL, encoder)
    step = _step()
    right = step.decide("What is the capital of France?", ["Paris"], "It is Paris.")
    assert (right.correct, right.method, right.extracted) == (True, "learned", "it is paris")
    assert right.reason == "learned equivalence 0.99 at or above its calibrated threshold 0.50"
    wrong = step.decide("What is the capital of France?", ["Paris"], "It is Lyon.")
    assert not wrong.correct and wrong.reason == "learned equivalence 0.01 below its calibrated threshold 0.50"
    hedge = step.decide("What is the capital of France?", ["Paris"], "Paris or Lyon.")
    assert not hedge.correct and hedge.score > 0.99 and hedge.reason == (
        "learned equivalence 0.99 at or above its calibrated threshold 0.50, but the reply's first sentence hedges "
        "or negates: not accepted")


def test_a_weights_file_keeps_its_extra_fields_and_bad_ones_are_named_word_for_word(tmp_path):
    path = tmp_path / "eq.json"
    _step(path, source_rows=120)
    back = eq.read(path)
    assert (back.trained_on, back.source, back.extra, back.encoder) == ("test pairs", str(path), {"source_rows": 120},
                                                                        DEFAULT_EMBEDDING_MODEL)
    assert back.calibration == _step().calibration
    data = json.loads(path.read_text())
    for key in ("weights", "mean", "scale"):
        short = {**data, key: data[key][:-1]}
        path.write_text(json.dumps(short))
        with pytest.raises(JudgeAgentError) as e:
            eq.read(path)
        assert str(e.value) == (f"equivalence weights {path} unreadable (ValueError: wrong lengths): retrain them with "
                                "scripts/train_equivalence.py")
    path.write_text(json.dumps({**data, "features": data["features"][::-1]}))
    with pytest.raises(JudgeAgentError) as e:
        eq.read(path)
    assert str(e.value) == (f"equivalence weights {path} name other features than this version computes: retrain "
                            "them with scripts/train_equivalence.py")


def test_the_gate_says_why_word_for_word(tmp_path):
    path = tmp_path / "eq.json"
    assert eq.load(path) == (None, f"learned step off: no weights at {path}")
    _step(path, fpr=0.03, max_fpr=0.10)  # measured under the bound, but for a looser one
    assert eq.load(path) == (None, "learned step off: calibrated for a false-positive rate of 0.030 (bound 0.1), "
                                   "above 0.05")
    _step(path, fpr=0.05, max_fpr=0.05)  # at the bound: on
    step, note = eq.load(path)
    assert step is not None and note == "learned step on (threshold 0.500 on 120 test pairs; trained on test pairs)"


def test_a_run_records_the_weights_bytes_and_off_is_a_name_not_a_file(tmp_path, monkeypatch):
    path = tmp_path / "eq.json"
    _step(path)
    run = eq.for_run(path)
    assert run.record == {"weights": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                          "used": True, "note": run.note} and run.step is not None
    assert eq.sha256_of(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(JudgeAgentError) as e:
        eq.for_run(tmp_path / "missing.json")
    assert str(e.value) == (f"equivalence weights {tmp_path / 'missing.json'} not found: give a weights file written "
                            "by scripts/train_equivalence.py, a shipped name (evouna-tq), or none")
    assert eq.is_off("none") and eq.is_off(Path("NONE")) and not eq.is_off(None) and not eq.is_off("evouna-tq")
    assert eq.for_run("None") == eq.RunStep(None, "learned step off (equivalence weights none)", None)
    monkeypatch.chdir(tmp_path)
    Path("none").write_text("{}")  # a file named none is a file
    assert not eq.is_off("none")
    with pytest.raises(JudgeAgentError, match="unreadable"):
        eq.for_run("none")
    record = run.record
    path.unlink()
    with pytest.raises(JudgeAgentError) as e:
        eq.for_manifest(record)
    assert str(e.value) == (f"the run graded with the learned step's weights {path}, which is missing: restore that "
                            "file to grade as the run did")


# --- grading/hard_negatives.py ----------------------------------------------------------------------------------


def test_the_asked_kind_is_read_from_the_opening_words():
    from judgeagent.grading.hard_negatives import asked_kind

    assert [asked_kind(q) for q in (
        "Which river flows through Paris?", "What year did the war end?", "How many moons has Mars?",
        "In which year did the war end?", "On which day was it signed?", "Who wrote Hamlet?", "Which?",
        "Name the river.", "?")] == [
        "which river", "what year", "how many", "in which year", "on which", "who", "which", "name", ""]


RIVERS = [Item("seine", "Which river flows through Paris?", "Seine"),
          Item("thames", "Which river flows through London?", "Thames"),
          Item("tiber", "Which river flows through Rome?", "Tiber"),
          Item("seine2", "Which river flows through Paris?", "Sequana"),  # the same question asked again
          Item("rhone", "Which river flows through Lyon?", "Seine river"),  # too like the gold "Seine"
          Item("route", "Which river is named after a road?", "Route 66"),  # a number: not for a gold without one
          Item("hamlet", "Who wrote Hamlet?", "Shakespeare")]


def test_same_kind_draws_only_golds_of_the_asked_kind_unlike_this_one():
    from judgeagent.grading.hard_negatives import same_kind

    drawn = {same_kind(RIVERS[0], RIVERS, random.Random(seed)) for seed in range(40)}
    assert drawn == {"Thames", "Tiber"}
    numbered = Item("m1", "Which river is 1000 km long?", "1000")
    assert {same_kind(numbered, RIVERS, random.Random(s)) for s in range(10)} == {"Route 66"}
    assert same_kind(RIVERS[-1], RIVERS, random.Random(0)) is None  # no other "who" question
    assert same_kind(Item("x", "?", "Seine"), RIVERS, random.Random(0)) is None


def test_partial_drops_exactly_one_listed_item():
    """It drew the dropped index once per part: a quarter of its probes kept every item (the whole answer, which a
    faithful judge accepts, counted as the judge's false positive), others kept one item or none."""
    from judgeagent.grading.hard_negatives import partial

    item = Item("lux", "Which countries border Luxembourg?", "France, Germany and Belgium")
    drawn = Counter(partial(item, random.Random(seed)) for seed in range(60))
    assert set(drawn) == {"Germany and Belgium", "France and Belgium", "France and Germany"}
    two = Item("two", "Which two cities?", "Paris & Lyon")
    assert {partial(two, random.Random(s)) for s in range(20)} == {"Paris", "Lyon"}


def test_partial_gives_a_persons_first_name_only_for_a_two_to_four_word_name():
    from judgeagent.grading.hard_negatives import partial

    rng = random.Random(0)
    who = "Who first walked on the Moon?"
    assert partial(Item("a", who, "Neil Armstrong"), rng) == "Neil"
    assert partial(Item("b", who, "Neil Alden Armstrong Jr"), rng) == "Neil"  # four words
    assert partial(Item("c", who, "Armstrong"), rng) is None  # one word
    assert partial(Item("d", who, "Neil Alden Armstrong Junior Senior"), rng) is None  # five
    assert partial(Item("e", who, "Sir Edmund Hillary"), rng) is None  # a title is no first name
    assert partial(Item("f", who, "neil armstrong"), rng) is None  # not written as a name
    assert partial(Item("g", who, "Neil Armstrong", aliases=("Neil",)), rng) is None  # the part is a gold
    assert partial(Item("h", "Who was Neil's crewmate on Apollo 11?", "Neil Armstrong"), rng) is None  # asked
    assert partial(Item("i", "Which city is the capital?", "Buenos Aires"), rng) is None  # no person asked


def test_the_hard_false_positive_rate_counts_each_hard_kind_and_no_other():
    from judgeagent.grading.hard_negatives import HARD_KINDS, FprBound, hard_fpr

    assert HARD_KINDS == {"same_kind", "changed_number", "partial", "near_miss", "other_option", "same_subject"}
    for kind in HARD_KINDS:
        by_kind = {kind: {"n": 4, "right": 1}, "other_gold": {"n": 10, "right": 10}, "alias": {"n": 5, "right": 0}}
        assert hard_fpr(by_kind) == FprBound(3, 4, 0.75, wilson(3, 4)), kind
    assert hard_fpr({"other_gold": {"n": 3, "right": 3}}) == FprBound(0, 0, None, wilson(0, 0))


# --- grading/judge.py -------------------------------------------------------------------------------------------

_GOLDS_OF_EACH_TYPE = {"yes_no": "Maybe", "date": "12 March", "number": "67", "entity": "Neil Armstrong",
                       "description": "Too little sunlight far from the Sun to power the craft"}


def test_each_gold_gets_its_question_type_and_the_rule_of_that_type_in_the_prompt():
    from judgeagent.grading.judge import QUESTION_TYPES, judge_messages, question_type

    assert {question_type([g]): g for g in _GOLDS_OF_EACH_TYPE.values()} == _GOLDS_OF_EACH_TYPE  # a day, no year
    assert set(QUESTION_TYPES) == set(_GOLDS_OF_EACH_TYPE)
    assert question_type(["1969"]) == "date" and question_type(["May 1969, at dawn"]) == "date"
    assert question_type(["67 moons"]) == "number" and question_type(["Apollo 11 crew of three"]) == "entity"
    rules = {kind: judge_messages("Q?", [gold], "A.")[1]["content"].splitlines()[-2]
             for kind, gold in _GOLDS_OF_EACH_TYPE.items()}
    assert rules == {
        "yes_no": "The reference is yes, no or maybe: the candidate must commit to the same one.",
        "number": "The reference is a number: the candidate must state the same number (any notation).",
        "date": "The reference is a date or year: the candidate must give the same date (any format).",
        "entity": ("The reference names an entity: the candidate must name the same one (a full name, short name, "
                   "alias or abbreviation of it counts; a different entity does not)."),
        "description": ("The reference is a description: the candidate must state the same facts; wording may "
                        "differ, missing or contradicting key facts is incorrect.")}


def test_the_judges_messages_word_for_word():
    from judgeagent.grading.judge import judge_messages

    system, user = judge_messages("Which city is the capital of France?", ["Paris", "City of Light", "Lutece"],
                                  "It is Paris.")
    assert system["role"] == "system" and system["content"].startswith("You grade answers against a reference")
    assert user == {"role": "user", "content": (
        "Question: Which city is the capital of France?\n\nReference answer: Paris (also acceptable: City of Light; "
        "Lutece)\n\nCandidate answer: It is Paris.\n\nThe reference names an entity: the candidate must name the "
        "same one (a full name, short name, alias or abbreviation of it counts; a different entity does not).\n"
        "Is the candidate correct?")}
    assert judge_messages("Q?", ["Paris"], "A.")[1]["content"].startswith("Question: Q?\n\nReference answer: Paris\n\n")


def _judged(reasoning: str, answer: str = "Lutece, I think") -> object:
    from judgeagent.grading.judge import judge_answer
    from judgeagent.models.testing import FunctionModel

    model = FunctionModel(lambda m: json.dumps({"reasoning": reasoning, "correct": True}), "judge")
    return asyncio.run(judge_answer(model, "Which city is the capital of France?", ["Paris", "Lutece"], answer))


def test_a_judges_verdict_carries_its_best_f1_and_a_reason_of_three_words_or_more():
    v = _judged("Both name Lutece.")
    assert (v.correct, v.method, v.extracted, v.score, v.reason) == (True, "judge", None, 0.5, "Both name Lutece.")
    assert _judged("Names Lutece.").reason == "(the judge gave no reasoning)"  # two words
    # a schema word written in pieces is still the schema's word (spaces are dropped before the comparison)
    for pieces in ("Rea son ing.", "Rea so n.", "Judge Deci sion", "Cor re ct."):
        assert _judged(pieces).reason == "(the judge gave no reasoning)", pieces


def test_a_reason_is_copied_when_every_part_is_an_instruction_or_its_words():
    from judgeagent.grading.judge import JudgeDecision, copies_instructions, echoes

    assert echoes("Candidate, reference.", JudgeDecision)  # two words, each an instruction's
    assert not echoes("Candidate Paris.", JudgeDecision) and not echoes("   ", JudgeDecision)
    assert copies_instructions("Reference, candidate. True only if the candidate gives the reference's answer.")
    assert not copies_instructions("Reference, candidate. The candidate names Lutece, as the reference does.")
    assert not copies_instructions("")


# --- protocols/interviewer/report.py ----------------------------------------------------------------------------

# Four items of an interview with one revision, each part of the report reached: a solve at the second attempt
# (a follow-up asked again), a failure with three errors (two of one type: two examples kept), a solve at once, an
# item never asked in its original form; two items with the key information removed, two scored by atomic facts.
INTERVIEW_ROWS = [
    {"qid": "q1", "attempts": [False, True], "solved": True, "original_correct": True,
     "versions": {"changed": True, "note": "", "method": "paraphrase"},
     "followups": [{"kind": "rationale", "score": 1.0}, {"kind": "clarification", "score": 0.0, "tries": 2}],
     "errors": [{"error_type": "calculation", "attempt": 1, "answer": "41", "feedback": "Off by one."}],
     "fact_scores": [0.5, 1.0], "unclarified": {"asked": True, "given_at": "clarify-1", "right_without": None}},
    {"qid": "q2", "attempts": [False, False], "solved": False, "original_correct": False,
     "versions": {"changed": False, "note": "no number to change"},
     "followups": [{"kind": "clarification", "score": 0.5}],
     "errors": [{"error_type": "calculation", "attempt": 1, "answer": "7", "feedback": "Wrong sum."},
                {"error_type": "calculation", "attempt": 2, "answer": "8", "feedback": "Still wrong."},
                {"error_type": "misread", "attempt": 2, "answer": "9", "feedback": "Read the question."}],
     "unclarified": {"asked": False, "given_at": None, "right_without": True}},
    {"qid": "q3", "attempts": [True], "solved": True, "original_correct": False,
     "versions": {"changed": True, "note": "", "method": "quantities"}, "followups": [], "errors": [],
     "fact_scores": [0.25]},
    {"qid": "q4", "attempts": [False, False], "solved": False, "original_correct": None,
     "versions": {"changed": False, "note": ""}, "followups": [], "errors": []},
]


def test_the_interview_reports_numbers_by_hand():
    from judgeagent.protocols.interviewer.report import numbers, probe

    s = numbers(INTERVIEW_ROWS, revisions=1, resamples=200, seed=0)
    assert (s["items"], s["score_at"], s["adaptability"]) == (4, {"@1": 0.25, "@2": 0.5}, 0.25)
    assert s["followup"] == {"retried": {"questions": 1, "adequate": 0.0}, "all": {"n": 3, "score": 0.5},
                             "seed_solved": {"n": 2, "score": 0.5}, "seed_failed": {"n": 1, "score": 0.5},
                             "by_kind": {"clarification": {"n": 2, "score": 0.25}, "rationale": {"n": 1, "score": 1.0}}}
    assert s["errors"]["counts"] == {"calculation": 3, "misread": 1} and s["errors"]["wrong_answers_with_feedback"] == 4
    assert s["errors"]["rates"] == {"calculation": 0.75, "misread": 0.25}
    assert [(x["qid"], x["attempt"]) for x in s["errors"]["examples"]["calculation"]] == [("q1", 1), ("q2", 1)]
    assert {k: v for k, v in s["probe"].items() if k != "gap_interval"} == {
        "n": 3, "original_accuracy": 1 / 3, "modified_accuracy": 1 / 3, "gap": 0.0, "only_original": 1,
        "only_modified": 1, "mcnemar_p": 1.0}
    assert (s["modified"], s["modification_notes"]) == (2, {"": 3, "no number to change": 1})
    assert s["modification_methods"] == {"paraphrase": 1, "none": 2, "quantities": 1}
    assert s["fact_score_at"] == {"items": 2, "@1": 0.375, "@2": 0.625}
    assert s["unclarified"] == {"items": 2, "asked": 1, "given_by_clarification": 1, "answered_without": 1,
                                "right_without": 1}
    empty = numbers([], revisions=2)
    assert (empty["score_at"], empty["adaptability"], empty["probe"]) == ({"@1": None, "@2": None, "@3": None},
                                                                          None, {"n": 0})
    # right in both forms twice, only in the modified form once: one item "only modified", not three
    both = [{"original_correct": True, "attempts": [True]}] * 2 + [{"original_correct": False, "attempts": [True]}]
    p = probe(both, resamples=20)
    assert (p["only_original"], p["only_modified"], p["original_accuracy"], p["modified_accuracy"], p["gap"]) == (
        0, 1, 2 / 3, 1.0, -1 / 3)


def test_the_interview_report_word_for_word():
    from judgeagent.protocols.interviewer.report import numbers, sections

    s = numbers(INTERVIEW_ROWS, revisions=1, resamples=200, seed=0)
    s["scoring"] = {"followups": "paper", "answers": "auto", "modification": "quantities", "facts": True}
    s["trust"] = {"followup": "unvetted (no calibration)"}
    text = {section.title: section.body for section in sections(s)}
    assert text["Performance scores"] == (
        "Scoring: follow-ups by outcome, as the paper (rationale after a solve, clarification after a failure); "
        "answers MATH-normalised where the gold is LaTeX or the reply boxed; modification quantities; long answers "
        "scored by atomic facts.\n\n"
        "Atomic-fact score over 2 long-answer items ((supported + 0.5 partially) / facts): @1 37.5, @2 62.5.\n\n"
        "Over 4 items (%; Score@n keeps an item's score once it is solved).\n\n"
        "| Score@1 | Score@2 |\n|---|---|\n| 25.0 | 50.0 |\n\n"
        "Adaptability (Score@N - Score@1): +25.0\n\n"
        "**Unvetted:** the follow-up scores below are unvetted (no calibration); read them as the judge's opinion, "
        "not a measurement.\n\n"
        "Follow-up score: 50.0 over 3 questions; after a solved seed 50.0 (n=2), after a failed seed 50.0 (n=1). "
        "1 follow-ups were asked again after an inadequate reply, 0 then answered adequately.\n\n"
        "| kind | score | n |\n|---|---|---|\n| clarification | 25.0 | 2 |\n| rationale | 100.0 | 1 |")
    assert text["Error types and examples"] == (
        "4 wrong answers received feedback.\n\n| error type | share | count |\n|---|---|---|\n"
        "| calculation | 0.75 | 3 |\n| misread | 0.25 | 1 |\n\n**calculation**\n"
        "- `q1` attempt 1: answered \"41\"; feedback: Off by one.\n"
        "- `q2` attempt 1: answered \"7\"; feedback: Wrong sum.\n\n**misread**\n"
        "- `q2` attempt 2: answered \"9\"; feedback: Read the question.")
    assert text["Contamination probe"] == (
        "3 items asked in original and modified form (first attempt).\n\n"
        "- accuracy original 33.3, modified 33.3\n"
        "- gap (original - modified) +0.0 points, 95% paired bootstrap interval [-100.0, +100.0]\n"
        "- right only in the original 1, only in the modified 1; exact McNemar p = 1\n\n"
        "A large positive gap suggests the original items (or their answers) were seen in training.")
    assert text["Query modification"] == (
        "2 of 4 items asked in a modified form (by method: none 2, paraphrase 1, quantities 1). Changed quantities "
        "carry a gold recomputed from the interviewer's checked formula.\n\n"
        "Key information removed from 2 items: the interviewee asked for it before answering in 1 and got it in a "
        "clarification in 1; it answered without it in 1 (not counted as attempts; then told the information), 1 of "
        "them right, which suggests a recalled item.\n\n- unchanged: 3\n- no number to change: 1")
    assert text["Summary by the interviewer"] == "(not written)"
    s["probe"] = {"n": 3, "original_accuracy": 2 / 3, "modified_accuracy": 1 / 3, "gap": 1 / 3,
                  "gap_interval": [0.05, 2 / 3], "only_original": 1, "only_modified": 0, "mcnemar_p": 1.0}
    assert ("- gap (original - modified) +33.3 points, 95% paired bootstrap interval [+5.0, +66.7]\n" in
            {section.title: section.body for section in sections(s)}["Contamination probe"])


def test_the_interview_report_of_nothing_and_each_scoring_described():
    from types import SimpleNamespace

    from judgeagent.protocols.interviewer.report import describe_scoring, numbers, scoring, sections

    text = {section.title: section.body for section in sections(numbers([], revisions=0))}
    assert text["Error types and examples"] == "No wrong answers received feedback."
    assert text["Contamination probe"] == "Not run (no item was asked in both forms)."
    assert text["Query modification"] == "0 of 0 items asked in a modified form.\n\n"
    assert "| - |\n\nAdaptability (Score@N - Score@1): -\n\n" in text["Performance scores"]
    cfg = SimpleNamespace(followup_policy="rotate", answers="math", modification="paraphrase", facts=False)
    assert scoring(cfg) == {"followups": "rotate", "answers": "math", "modification": "paraphrase", "facts": False}
    assert describe_scoring(scoring(cfg)) == ("follow-ups kinds rotated whatever the outcome; answers "
                                              "MATH-normalised; modification paraphrase")
    assert describe_scoring({"followups": "paper", "answers": "text", "modification": "none"}).endswith(
        "answers the shared checker; modification none")


# --- protocols/teach2eval/report.py -----------------------------------------------------------------------------

def _t2e_step(turn, reply, letter, correct, judged=None, teacher=None, guidance=None, old=False):
    """A student answer, with the teacher's judgment and guidance after it when `teacher` is given (`old`: the
    letter under its name before 0.2)."""
    s = {"turn": turn, "reply": reply, ("letter" if old else "reply_letter"): letter, "correct": correct}
    if teacher is not None:  # guidance: what the student was shown (the teacher's words unless redacted)
        s.update(judged_right=judged, teacher=teacher, guidance=guidance if guidance is not None else teacher)
    return s
# Two items, two students, one guidance turn: a lesson repaired (a leak caught after a wrong answer), one right
# throughout, one that stayed wrong (no judgment read; the answer redacted; keys as runs before 0.2 wrote them), one
# right then wrong without a teacher's judgment.
T2E_ROWS = [
    {"qid": "a", "question": "Which planet is largest?", "options": {"A": "Mars", "B": "Jupiter"}, "gold_letter": "B",
     "options_from": "choice", "teacher_correct": True, "lessons": [
        {"student": "s1", "model": "m1", "correct": [False, True], "judgments": [False], "no_letter": 0,
         "leaks": [{"turn": 1, "strings": ["Jupiter"], "student_right": False}],
         "steps": [_t2e_step(0, "A. Mars", "A", False, False, "No. Think about size. ", "No. Think about size."),
                   _t2e_step(1, "B", "B", True)]},
        {"student": "s2", "model": "m2", "correct": [True, True], "judgments": [True], "no_letter": 1, "leaks": [],
         "steps": [_t2e_step(0, "B", "B", True, True, "Right."), _t2e_step(1, "I keep B", None, True)]}]},
    {"qid": "b", "question": "What is 2+2?", "options": {"A": "4", "B": "5"}, "answer_letter": "A",
     "options_from": "numeric", "teacher_correct": False, "lessons": [
        {"student": "s1", "model": "m1", "correct": [False, False], "judgments": [None], "no_letter": 0, "leaks": [],
         "steps": [_t2e_step(0, "No idea.", None, False, None, "It is A, 4.", "[the answer removed]", old=True),
                   _t2e_step(1, "B", "B", False, old=True)]},
        {"student": "s2", "model": "m2", "correct": [True, False], "judgments": [], "no_letter": 0, "leaks": [],
         "steps": [_t2e_step(0, "A", "A", True), _t2e_step(1, "B", "B", False)]}]},
]


def test_the_teach2eval_reports_counts_by_hand():
    from judgeagent.protocols.teach2eval.report import numbers

    s = numbers(T2E_ROWS, turns=1, resamples=50, seed=0)
    assert (s["items"], s["turns"], s["students"], s["scoring"], s["baseline"]) == (2, 1, 2, "paper", 0.5)
    assert s["judgments"] == {"right": {"judged_right": 1, "judged_wrong": 0, "no_judgment": 0},
                              "wrong": {"judged_right": 0, "judged_wrong": 1, "no_judgment": 1}}
    assert {k: s[k] for k in ("answers", "no_letter", "teacher_turns", "unparsed_judgments", "leaks",
                              "leaks_after_wrong")} == {"answers": 8, "no_letter": 1, "teacher_turns": 3,
                                                        "unparsed_judgments": 1, "leaks": 1, "leaks_after_wrong": 1}
    assert s["options_from"] == {"choice": 1, "numeric": 1}
    one = s["per_student"]["s1"]
    assert (one["model"], one["lessons"], one["accuracy_by_turn"], one["baseline"]) == ("m1", 2, [0.0, 0.5], 0.0)
    assert (one["teacher_turns"], one["unparsed_judgments"], one["leaks"]) == (2, 1, 1)
    assert s["per_student"]["s2"]["accuracy_by_turn"] == [1.0, 0.5]
    # AA: the teacher right on one item of two; CA: accuracy 0.5 at turn 0 and at the end; s1 repaired one of two
    assert (s["abilities"]["AA"]["value"], s["abilities"]["CA"]["value"], one["abilities"]["GA"]["value"]) == (
        0.5, 0.0, 0.5)
    # shown: the repaired lesson, then the one that stayed wrong (its gold letter under the older name); a third
    # only when asked for
    assert [(x["qid"], x["student"], x["gold_letter"]) for x in s["shown"]] == [("a", "s1", "B"), ("b", "s1", "A")]
    assert [(x["qid"], x["student"]) for x in numbers(T2E_ROWS, turns=1, resamples=10, shown=3)["shown"]] == [
        ("a", "s1"), ("b", "s1"), ("a", "s2")]


def test_the_teach2eval_report_word_for_word():
    from judgeagent.protocols.teach2eval.report import numbers, sections

    s = numbers(T2E_ROWS, turns=1, resamples=50, seed=0)
    text = {section.title: section.body for section in sections(s)}
    assert list(text) == ["Teaching abilities", "Student accuracy by turn", "The teacher's judgments (first turn)",
                          "Items", "Lessons"]
    assert text["Teaching abilities"] == (
        "2 items, 2 student(s), 1 guidance turns. AA, JA, GA in %, CA in points of student accuracy, RA the product "
        "of accuracy(t)/accuracy(t-1) over turns 2..T minus 1, in % (0: later turns neither help nor harm); a "
        "teacher reply without a judgment read as 'wrong' (scoring `paper`, as the paper's tables: the authors' "
        "result_statistics.py); 95% bootstrap intervals over items.\n\n"
        "| ability | value | 95% interval |\n|---|---|---|\n"
        "| Comprehensive (CA) | +0.0 | [-50.0, +50.0] |\n| Application (AA) | 50.0 | [0.0, 100.0] |\n"
        "| Judgment (JA) | 75.0 | [50.0, 100.0] |\n| Guidance (GA) | 50.0 | [0.0, 100.0] |\n"
        "| Reflection (RA) | - | - |\n\n"
        "| student | model | baseline acc | CA | JA | GA | RA | no letter | leaks (after a wrong answer) |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| s1 | m1 | 0.0 | +50.0 [+0.0, +100.0] | 100.0 [100.0, 100.0] | 50.0 [0.0, 100.0] | - | 0/4 | 1 (1) |\n"
        "| s2 | m2 | 100.0 | -50.0 [-100.0, +0.0] | 50.0 [0.0, 100.0] | - | - | 1/4 | 0 (0) |\n\n"
        "Students' baseline accuracy (alone, turn 0): 50.0%. Teacher replies with no judgment: 1 of 3. Guidance "
        "that stated the answer (redacted before the student saw it): 1, 1 of them after a wrong answer.")
    assert text["Student accuracy by turn"] == (
        "| student | turn 0 | turn 1 |\n|---|---|---|\n| s1 (m1) | 0.0 | 50.0 |\n| s2 (m2) | 100.0 | 50.0 |\n\n"
        "```\n"
        "s1 turn 0                                           0.0%\n"
        "s1 turn 1  ####################                     50.0%\n"
        "s2 turn 0  ######################################## 100.0%\n"
        "s2 turn 1  ####################                     50.0%\n"
        "```")
    assert text["The teacher's judgments (first turn)"] == (
        "Rows: whether the student's first answer was right; columns: what the teacher said.\n\n"
        "| student's answer | judged right | judged wrong | no judgment |\n|---|---|---|---|\n"
        "| right | 1 | 0 | 0 |\n| wrong | 0 | 1 | 1 |")
    assert text["Items"] == ("Options from: choice 1, numeric 1 (choice: the benchmark's own; graph, numeric, yes_no: "
                             "built from the context graph).")
    assert text["Lessons"] == (
        "**a**, s1 (m1): wrong -> right\n\n> Which planet is largest?\n> A. Mars\n> B. Jupiter\n\n"
        "Gold: B. The teacher saw the question without the options.\n\n"
        "*Student, turn 0* (chose A, wrong):\n\n> A. Mars\n\n"
        "*Teacher, turn 1* (judged: wrong):\n\n> No. Think about size.\n\n"
        "*Student, turn 1* (chose B, right):\n\n> B\n\n"
        "**b**, s1 (m1): wrong -> wrong\n\n> What is 2+2?\n> A. 4\n> B. 5\n\n"
        "Gold: A. The teacher saw the question without the options.\n\n"
        "*Student, turn 0* (chose nothing, wrong):\n\n> No idea.\n\n"
        "*Teacher, turn 1* (judged: no judgment):\n\n> It is A, 4.\n\n"
        "*The student was given:*\n\n> [the answer removed]\n\n"
        "*Student, turn 1* (chose B, wrong):\n\n> B")


def test_the_teach2eval_report_of_an_older_summary_a_told_answer_and_a_conversion():
    from judgeagent.protocols.teach2eval.report import numbers, sections

    s = numbers(T2E_ROWS, turns=1, resamples=50, seed=0)
    del s["scoring"]  # summaries before 0.2 were geometric
    s.update(tell_answer=True, conversion={"items": 5, "taught": 2, "skipped": {"no options": 3}}, shown=[])
    text = {section.title: section.body for section in sections(s)}
    assert ("RA the geometric mean of accuracy(t)/accuracy(t-1) over turns 2..T (1: later turns neither help nor "
            "harm); a reply without a judgment counted as a wrong judgment (scoring `geometric`)"
            in text["Teaching abilities"])
    assert ("Guidance that stated the answer (given to the student as written: tell_answer=true, the authors' "
            "can_tell_answer setting): 1, 1 of them after a wrong answer.") in text["Teaching abilities"]
    assert text["Items"] == ("2 of 5 benchmark items taught. Options from: choice 1, numeric 1 (choice: the "
                             "benchmark's own; graph, numeric, yes_no: built from the context graph).\n"
                             "- skipped 3: no options")
    assert text["Lessons"] == "(none)"


# --- protocols/dynaeval/report.py -------------------------------------------------------------------------------

# An asymmetric run's summary as `numbers` writes it, with every part the report reads: a player without games, a
# role a player never played, a cell without a half-width, a fixed repetition count that the stopping rule would not
# have met, a transcript longer than the report shows.
DYNA = {
    "task": "code", "unit": "pass rate", "symmetric": False, "epsilon": 0.05, "max_runs": 4, "repetitions": 2,
    "games": 4, "converged": False, "scoring": {"repeat": "fixed", "scoring": "paper"},
    "ends": {"failed": 1, "done": 3}, "parsed_by": {"rule": 8},
    "players": {"p1": {"model": "m1", "mean": 0.5, "interval": [0.25, 0.75], "n": 4, "half_width": 0.25},
                "p2": {"model": "m2", "mean": None, "interval": None, "n": 0, "half_width": None}},
    "roles": ["Programmer", "Reviewer"],
    "matrix": {"p1": {"Programmer": {"mean": 0.5, "half_width": 0.1, "n": 2},
                      "Reviewer": {"mean": 0.75, "half_width": None, "n": 1}},
               "p2": {"Reviewer": {"mean": None, "half_width": None, "n": 0}}},
    "running": [{"repetition": 1, "p1": 0.5, "p2": None}, {"repetition": 2, "p1": 0.625, "p2": 0.25}],
    "pairs": [{"Programmer": "p1", "Reviewer": "p2", "games": 2, "score Programmer": 0.5, "score Reviewer": None}],
    "role_measures": {"p1": {"Programmer": {"pass@1": 0.5}}, "p2": {"Reviewer": {"bleu": 0.25}}},
    "measures": {"p1": {"pass@1": 0.5}}, "transcript": "y" * 6001, "isolation": "bubblewrap",
}


def test_the_dynaeval_report_of_an_asymmetric_run_word_for_word():
    from judgeagent.protocols.dynaeval.report import TRANSCRIPT_CHARS, sections

    text = {section.title: section.body for section in sections(DYNA)}
    assert list(text) == ["Scores", "Model x role", "Convergence", "Pairs", "Other measures by role",
                          "A game (repetition 1)"]
    assert text["Scores"] == (
        "Task `code` (asymmetric: pooled over roles here); score: pass rate per game (repeat=fixed, scoring=paper). "
        "2 repetitions, 4 games; ends: done 3, failed 1; moves read by rule 8.\n\n"
        "| player | model | mean | 95% interval | games |\n|---|---|---|---|---|\n"
        "| p1 | m1 | 0.500 | [0.250, 0.750] | 4 |\n| p2 | m2 | - | - | 0 |\n\n"
        "Model-written code ran under isolation: bubblewrap (docs/security.md).")
    assert text["Model x role"] == (
        "Mean score of each model in each role (± 95% half-width, n games); the paper's theta_il.\n\n"
        "| player | model | Programmer | Reviewer |\n|---|---|---|---|\n"
        "| p1 | m1 | 0.500 ± 0.100 (n 2) | 0.750 (n 1) |\n| p2 | m2 | - | - |")
    assert text["Convergence"] == (
        "a fixed 4 repetitions (`repeat=fixed`, the paper's way); judgeagent's stopping rule at epsilon 0.05 was not "
        "met: some 95% interval half-width is not below it, or fewer than min_runs repetitions were played. Running "
        "mean after each repetition:\n\n| repetition | p1 | p2 |\n|---|---|---|\n| 1 | 0.500 | - |\n"
        "| 2 | 0.625 | 0.250 |")
    assert text["Pairs"] == (
        "Each pair of players, by role: the cells of the paper's tables (Table 2 for code, Tables 3, 5 and 6 for "
        "translation), the mean over the pair's games.\n\n"
        "| Programmer | Reviewer | games | score Programmer | score Reviewer |\n|---|---|---|---|---|\n"
        "| p1 | p2 | 2 | 0.500 | - |")
    assert text["Other measures by role"] == (
        "Per player and role, the mean over its games (BLEU on the paper's 0-1 scale, chrF 0-100; `pass@1 round k`: "
        "the code standing after the programmer's k-th turn passes its tests).\n\n"
        "| player | role | bleu | pass@1 |\n|---|---|---|---|\n| p1 | Programmer | - | 0.500 |\n"
        "| p1 | Reviewer | - | - |\n| p2 | Programmer | - | - |\n| p2 | Reviewer | 0.250 | - |")
    game = text["A game (repetition 1)"]
    assert TRANSCRIPT_CHARS == 6000 and game.count("y") == 6000 and game.endswith("y\n...\n```")


def test_the_dynaeval_report_of_a_symmetric_run_word_for_word():
    from judgeagent.protocols.dynaeval.report import sections

    s = {k: v for k, v in DYNA.items() if k not in ("roles", "matrix", "pairs", "role_measures", "isolation")}
    s.update(symmetric=True, converged=True, scoring={"repeat": "until_stable"}, transcript="short",
             measures={"p1": {"hits": 2.0, "valid": 0.5}, "p2": {"hits": 1.0}},
             positions=[{"early": "p1", "late": "p2", "games": 2, "s_E": 0.5, "s_L": 0.5, "hits_E": 1.5,
                         "hits_L": 1.0}])
    text = {section.title: section.body for section in sections(s)}
    assert list(text) == ["Scores", "Convergence", "Early x late", "Other measures", "A game (repetition 1)"]
    assert text["Scores"].startswith("Task `code` (symmetric: every player the same role); score: pass rate per game "
                                     "(repeat=until_stable). 2 repetitions")
    assert text["Convergence"].startswith("epsilon 0.05: every 95% interval half-width is below epsilon. Running mean")
    assert text["Early x late"].endswith("| early | late | games | s_E | s_L | hits_E | hits_L |\n"
                                         "|---|---|---|---|---|---|---|\n| p1 | p2 | 2 | 0.50 | 0.50 | 1.50 | 1.00 |")
    assert text["Other measures"] == ("Per player, the mean over its games.\n\n| player | hits | valid |\n|---|---|---|\n"
                                      "| p1 | 2.000 | 0.500 |\n| p2 | 1.000 | - |")
    assert text["A game (repetition 1)"] == "```text\nshort\n```"
    s.update(converged=False)
    assert {x.title: x.body for x in sections(s)}["Convergence"].startswith(
        "epsilon 0.05: stopped at max_runs 4 before every half-width fell below epsilon. Running mean")
    s.update(converged=True, scoring={"repeat": "fixed"})
    assert {x.title: x.body for x in sections(s)}["Convergence"].startswith(
        "a fixed 4 repetitions (`repeat=fixed`, the paper's way); judgeagent's stopping rule at epsilon 0.05 would "
        "have been met: every 95% interval half-width is below it. Running mean")


def test_dynaeval_scoring_pairs_positions_and_measures_by_hand():
    from types import SimpleNamespace

    from judgeagent.protocols.dynaeval.report import _measures, pairs, positions, scoring

    config = SimpleNamespace(repeat="fixed", scoring="paper", idiom_play="pairwise")
    assert scoring(SimpleNamespace(name="code"), config) == {"repeat": "fixed", "scoring": "paper"}
    assert scoring(SimpleNamespace(name="translation"), config) == {"repeat": "fixed", "scoring": "paper"}
    assert scoring(SimpleNamespace(name="idiom"), config) == {"repeat": "fixed", "idiom_play": "pairwise"}
    assert scoring(SimpleNamespace(name="goods"), config) == {"repeat": "fixed"}
    rows = [{"cast": {"Programmer": "p1", "Reviewer": "p2"}, "scores": {"Programmer": 1.0, "Reviewer": 0.0},
             "metrics": {"Programmer": {"bleu": 0.5, "tests": {"status": "passed"}, "flag": True}}},
            {"cast": {"Programmer": "p1", "Reviewer": "p2"}, "scores": {"Programmer": 0.0, "Reviewer": None},
             "metrics": {"Programmer": {"bleu": 0.25, "tests": {"status": "failed"}}}},
            {"cast": {"Programmer": "p2", "Reviewer": "p1"}, "scores": {"Programmer": 0.5, "Reviewer": 1.0}}]
    assert pairs(rows, ("Programmer", "Reviewer"), ["bleu"]) == [
        {"Programmer": "p1", "Reviewer": "p2", "games": 2, "score Programmer": 0.5, "bleu Programmer": 0.375,
         "score Reviewer": 0.0, "bleu Reviewer": None},
        {"Programmer": "p2", "Reviewer": "p1", "games": 1, "score Programmer": 0.5, "bleu Programmer": None,
         "score Reviewer": 1.0, "bleu Reviewer": None}]
    assert _measures(rows) == {"p1": {"bleu": 0.375, "tests passed": 0.5}, "p2": {}}
    assert _measures(rows, by_role=True) == {"p1/Programmer": {"bleu": 0.375, "tests passed": 0.5},
                                             "p1/Reviewer": {}, "p2/Programmer": {}, "p2/Reviewer": {}}
    games = [{"cast": {"Player A": "p1", "Player B": "p2"}, "scores": {"Player A": 1.0, "Player B": 0.0},
              "metrics": {"Player A": {"hits": 3}, "Player B": {"hits": 1}}},
             {"cast": {"Player A": "p1", "Player B": "p2"}, "scores": {"Player A": 0.5, "Player B": 0.5},
              "metrics": {"Player A": {"hits": 2}, "Player B": {"hits": 2}}},
             {"cast": {"Player A": "p2", "Player B": "p1"}, "scores": {"Player A": 0.0, "Player B": 1.0},
              "metrics": {"Player A": {"hits": 0}, "Player B": {"hits": 4}}}]
    assert positions(games) == [
        {"early": "p1", "late": "p2", "games": 2, "s_E": 0.75, "s_L": 0.25, "hits_E": 2.5, "hits_L": 1.5},
        {"early": "p2", "late": "p1", "games": 1, "s_E": 0.0, "s_L": 1.0, "hits_E": 0.0, "hits_L": 4.0}]
