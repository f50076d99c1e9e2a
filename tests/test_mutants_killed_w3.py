"""Tests written against surviving mutants (scripts/mutants.py, #47 part 2: the modules run whole): the hard negative
probes' subjects, the free-text checker and JudgeAgent's run summary. Each reads an outcome through the public
function or the text a user reads."""
from __future__ import annotations

from judgeagent.protocols.judgeagent.authors import ALL_RIGHT
from judgeagent.protocols.judgeagent.records import FeedbackEntry, JudgedAs, Leakage, QuestionRecord
from judgeagent.protocols.judgeagent.summary import render_summary, summarise

# --- grading/hard_negatives.py ----------------------------------------------------------------------------------


def test_a_capitalised_question_word_or_pronoun_is_no_part_of_a_subject():
    """A question put after a label ("Quiz: When did ...") has its question word capitalised past the first word:
    it neither opens a subject nor joins the name after it."""
    from judgeagent.grading.hard_negatives import subjects

    for word in ("I", "What", "Which", "Who", "Whom", "Whose", "When", "Where", "Why", "How", "In", "On", "Of", "Is",
                 "Was", "Did", "Does", "Do"):
        assert subjects(f"Quiz: {word} Gene Vincent sang?") == {"gene vincent"}, word
    assert subjects("Quiz: Gene Vincent Did sing?") == {"gene vincent"}  # it ends a name, too


# --- protocols/judgeagent/summary.py ----------------------------------------------------------------------------


def _record(n: int, batch: int, stage: str, difficulty: str | None, correct: bool, method: str,
            target_error: str | None = None) -> QuestionRecord:
    return QuestionRecord(f"r{n}", batch, stage, 0, f"q{n}", difficulty, f"Question {n}?", "gold", "answer", correct,
                          JudgedAs(method), 1.0 if correct else 0.0, target_error=target_error)


RECORDS = [_record(1, 0, "grading", "hard", True, "exact"),
           _record(2, 0, "grading", None, False, "judge", target_error="timed out"),
           _record(3, 1, "extension", "medium", True, "exact"),
           _record(4, 1, "extension", "medium", False, "f1")]


def _feedback(batch: int, score: float, asked: int, trajectory: list[str], rounds: list, *, error: str | None = None,
              leak: Leakage = Leakage()) -> FeedbackEntry:
    return FeedbackEntry(batch, [], None, error, leak, score, asked, trajectory, rounds)


FEEDBACK = [  # out of batch order: the summary sorts them
    _feedback(1, 1.5, 2, ["medium", "hard"], [
        {"round": 1, "tier": "hard", "path": {}, "rejected": ["too long", "leaks the gold"], "generator": "graph"},
        {"round": 2, "tier": "hard", "path": {}, "rejected": ["too long"], "skipped": "no path"}],
        leak=Leakage(["Paris"], regenerated=True, redacted=True)),
    _feedback(0, 2.0, 2, ["easy"], [{"round": 1, "tier": "easy", "path": {}, "rejected": []}], error="timed out",
              leak=Leakage([], regenerated=True)),
    _feedback(2, 0.0, 0, ["hard"], [], error=ALL_RIGHT)]


def test_a_runs_summary_by_hand():
    summary = summarise(RECORDS, FEEDBACK)
    assert summary == {
        "overall_score": 3.5 / 4, "questions": 4, "batches": 3,
        "accuracy": {"all": {"n": 4, "correct": 2, "accuracy": 0.5},
                     "extension": {"n": 2, "correct": 1, "accuracy": 0.5},
                     "extension/medium": {"n": 2, "correct": 1, "accuracy": 0.5},
                     "grading": {"n": 2, "correct": 1, "accuracy": 0.5},
                     "grading/hard": {"n": 1, "correct": 1, "accuracy": 1.0},
                     "grading/unlabelled": {"n": 1, "correct": 0, "accuracy": 0.0}},
        "trajectories": {"0": ["easy"], "1": ["medium", "hard"], "2": ["hard"]},
        "rounds": {"run": 2, "skipped": 1, "rejected_questions": 3,
                   "rejected_by_reason": {"leaks the gold": 1, "too long": 2}, "by_generator": {"graph": 1, "llm": 2}},
        "leakage": {"batches_with_leaks": 1, "redacted": 1},
        "feedback_failures": 1, "target_failures": 1, "judged_by": {"exact": 2, "f1": 1, "judge": 1},
        "feedback_skipped": 1}
    # sorted, as summary.json is written and read: batches in order, counts by name
    assert list(summary["trajectories"]) == ["0", "1", "2"]
    assert list(summary["accuracy"]) == ["all", "extension", "extension/medium", "grading", "grading/hard",
                                         "grading/unlabelled"]
    assert list(summary["rounds"]["rejected_by_reason"]) == ["leaks the gold", "too long"]
    assert list(summary["judged_by"]) == ["exact", "f1", "judge"]
    # a run at setting=ours asks feedback on every batch: the key stays out
    assert "feedback_skipped" not in summarise(RECORDS, FEEDBACK[:2])
    nothing = summarise([], [])
    assert (nothing["overall_score"], nothing["accuracy"], nothing["rounds"]["run"]) == (0.0, {}, 0)


def test_a_runs_summary_as_printed_word_for_word():
    summary = {**summarise(RECORDS, FEEDBACK), "judge_calibration": {"note": "judge passed calibration"}}
    usage = {"target": {"calls": 12, "cache_hits": 3, "failures": 1, "input_tokens": 4567, "output_tokens": 890,
                        "cost": 0.01234},
             "interviewer": {"calls": 4, "cache_hits": 0, "failures": 0, "input_tokens": 100, "output_tokens": 20,
                             "cost": 0.0}}
    assert render_summary(summary, "runs/demo", usage).splitlines() == [
        "run runs/demo",
        "  overall score 0.875 over 4 questions in 3 batches",
        "  accuracy all                      0.500  (2/4)",
        "  accuracy extension                0.500  (1/2)",
        "  accuracy extension/medium         0.500  (1/2)",
        "  accuracy grading                  0.500  (1/2)",
        "  accuracy grading/hard             1.000  (1/1)",
        "  accuracy grading/unlabelled       0.000  (0/1)",
        "  batch 0: tiers easy",
        "  batch 1: tiers medium -> hard",
        "  batch 2: tiers hard",
        "  extension rounds run 2, skipped 1, generated questions rejected 3 {'leaks the gold': 1, 'too long': 2}; "
        "feedback leaks caught in 1 batches (1 redacted)",
        "  answers judged by: {'exact': 2, 'f1': 1, 'judge': 1}",
        "  feedback not asked on 1 batches answered all right (setting=authors)",
        "  judge: judge passed calibration",
        "  target       calls    12  cached     3  failed   1  tokens in     4567 out     890  $0.0123",
        "  interviewer  calls     4  cached     0  failed   0  tokens in      100 out      20  $0.0000"]
    plain = render_summary(summarise(RECORDS[:1], FEEDBACK[1:2]), "runs/one")
    assert plain.splitlines()[-2:] == [
        "  extension rounds run 1, skipped 0, generated questions rejected 0 ; feedback leaks caught in 0 batches "
        "(0 redacted)",
        "  answers judged by: {'exact': 1}"]
