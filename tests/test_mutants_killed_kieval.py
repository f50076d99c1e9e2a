"""KIEval's report (protocols/kieval/report.py) by hand, written to kill the surviving mutants of scripts/mutants.py
(issue 47): the sections' text for a summary computed here, the examples chosen from one, two and three
conversations, the scoring note for each scoring, and the bar. The scripted runs of test_kieval.py read a few
words of report.md; these read every figure and label."""
from __future__ import annotations

import pytest

from judgeagent.protocols.kieval.report import bar, examples, numbers, scoring_note, sections
from judgeagent.protocols.kieval.rubric import ASPECTS


def ev(score=3, stop=False, reason="none"):
    return {**{a: {"comment": "c", "score": score} for a in ASPECTS}, "overall_comment": "fine <b>",
            "overall_score": score, "stop_conversation": stop, "stop_reason": reason}


def row(qid, evaluations, correct=True, stop="none", path=None):
    rounds = [{"round": i, "evaluation": e, "stop_reason": "none" if e is None or not e["stop_conversation"]
               else e["stop_reason"], "failure": "" if e else "not JSON"} for i, e in enumerate(evaluations, 1)]
    turns = [t for i in range(1, len(evaluations) + 1) for t in (
        {"speaker": "interactor", "content": f"question {i}", "round": i},
        {"speaker": "candidate", "content": f"answer {i}", "round": i})]
    return {"qid": qid, "verified": True, "correct": correct, "rounds": rounds, "turns": turns, "stop_reason": stop,
            "valid_rounds": len(rounds) - (stop != "none"), "path": path}


ROWS = [row("a", [ev(4), ev(4)], path={"seed": "x", "entities": ["Montreux", "Jazz <Festival>"], "chunk_ids": [],
                                       "text": ""}),
        row("b", [ev(1, stop=True, reason="empty_response")], False, "empty_response"),
        row("c", [ev(3), None], True),
        {"qid": "d", "verified": False, "dropped": "interactor_wrong"},
        {"qid": "e", "verified": False, "dropped": "interactor_wrong"},
        {"qid": "f", "verified": False, "dropped": "both_wrong"}]


def test_the_report_sections_carry_every_figure_of_a_summary_computed_by_hand():
    s = numbers(ROWS, 2)  # paper scoring: 10/30/70/100 points, weights exp(-0.2 j)
    c_score = 0.7  # c: one evaluated turn (3 -> 70), its failed one left out
    assert s["kieval"]["overall"] == pytest.approx((1.0 + 0.1 + c_score) / 3)
    titles = [x.title for x in sections(s)]
    assert titles == ["KIEval scores", "Verification and early stops", "The best conversation (a)",
                      "The median conversation (c)", "The worst conversation (b)", "Judge calibration"]
    scores, stops, best, median, worst, calibration = (x.body for x in sections(s))
    assert calibration == "Judge calibration: not recorded (a run made before calibration existed)."
    assert scores.splitlines()[0] == ("3 conversations scored (of 3 verified items; 6 items in all), at most 2 "
                                      "rounds each. " + scoring_note(s))
    overall = 100 * (1.0 + 0.1 + 0.7) / 3
    assert f"| overall | {overall:.1f} | {(4 + 4 + 1 + 3) / 4:.2f} | `{bar((1.0 + 0.1 + 0.7) / 3)}` |" in scores
    assert "| accuracy | 60.0 | 3.00 | `" + "█" * 18 + "·" * 12 + "` |" in scores
    assert "- mean valid rounds: 1.67 of 2" in scores  # paper: 2, 1, 2 turns
    assert "- benchmark accuracy on the same items: 66.7" in scores
    assert "- evaluations: 5, failed (no valid scores after one repair): 1" in scores
    assert stops.splitlines() == ["Verification kept 3 of 6 items; dropped 3.", "- interactor_wrong: 2",
                                  "- both_wrong: 1", "", "Early stops: 1 of 3 conversations.", "",
                                  "| reason | conversations |", "|---|---|", "| empty_response | 1 |"]
    assert best.splitlines()[:2] == [
        "KIEval: accuracy 100.0, logic 100.0, relevance 100.0, coherence 100.0, conciseness 100.0, overall 100.0; "
        "benchmark answer correct; early stop: none.", "Knowledge path: Montreux -&gt; Jazz &lt;Festival&gt;"]
    assert "**interactor** (round 1):\n\n> question 1" in best and "**candidate** (round 2):\n\n> answer 2" in best
    assert ("*evaluator: accuracy 4, logic 4, relevance 4, coherence 4, conciseness 4, overall 4; stop: none. "
            "fine &lt;b&gt;*") in best
    assert "benchmark answer wrong; early stop: empty_response." in worst and "Knowledge path" not in worst
    assert "stop: empty_response." in worst
    assert median.count("*evaluation failed: not JSON*") == 1 and median.count("*evaluator:") == 1
    # an interactor's turn carries no evaluation line
    assert "> question 1\n\n**candidate**" in best


def test_unvetted_scores_say_so_first_and_an_empty_run_shows_dashes():
    s = numbers(ROWS, 2)
    marked = sections({**s, "trust": {"kieval": "from an uncalibrated evaluator"}})[0].body
    assert marked.startswith("**Unvetted:** these scores are from an uncalibrated evaluator; read them as the "
                             "evaluator's opinion, not a measurement.\n\n3 conversations scored")
    assert not sections({**s, "trust": {"kieval": None}})[0].body.startswith("**Unvetted")
    empty = numbers([{"qid": "d", "verified": False, "dropped": "interactor_wrong"}], 2)
    body = sections(empty)[0].body
    assert "| overall | - | - | `` |" in body and "- mean valid rounds: - of 2" in body
    assert "- benchmark accuracy on the same items: -" in body
    stops = sections(empty)[1].body
    assert stops.splitlines()[-1] == "Early stops: 0 of 0 conversations." and "| reason |" not in stops
    assert [x.title for x in sections(empty)] == ["KIEval scores", "Verification and early stops", "Judge calibration"]


def test_examples_show_each_conversation_once_ranked_by_overall():
    scored = [(row(q, [ev(3)]), {"overall": v}) for q, v in (("p", 0.5), ("q", 0.9), ("r", 0.1), ("s", 0.7))]
    picked = examples(scored)
    assert list(picked) == ["best", "median", "worst"]
    assert {k: v["qid"] for k, v in picked.items()} == {"best": "q", "median": "p", "worst": "r"}  # ranks 0, 2, 3
    assert picked["best"]["scores"] == {"overall": 0.9} and picked["best"]["correct"] is True
    assert picked["best"]["stop_reason"] == "none" and picked["best"]["path"] is None
    assert picked["best"]["rounds"] == scored[1][0]["rounds"] and picked["best"]["turns"] == scored[1][0]["turns"]
    two = examples(scored[:2])
    assert {k: v["qid"] for k, v in two.items()} == {"best": "q", "worst": "p"} and list(two) == ["best", "worst"]
    one = examples(scored[:1])
    assert {k: v["qid"] for k, v in one.items()} == {"best": "p"}
    assert examples([]) == {}
    # ties keep benchmark order
    tied = examples([(row(q, [ev(3)]), {"overall": 0.5}) for q in "xyz"])
    assert {k: v["qid"] for k, v in tied.items()} == {"best": "x", "median": "y", "worst": "z"}


def test_the_scoring_note_names_each_scoring_and_ablation():
    paper = scoring_note({"scoring": {"scoring": "paper", "decay": True, "early_stop": True}})
    assert paper == ("Scoring `paper`, as the paper's tables (the authors' get_scores.py): KIEval score = "
                     "sum(s_i w_i) / sum(w_i) over the turns the conversation had, w_j = exp(-0.2 j) for the j-th "
                     "turn, j = 0.., turn scores 1/2/3/4 counted 10/30/70/100; failed evaluations left out; valid "
                     "rounds count the stopping turn.")
    flat = scoring_note({"scoring": {"scoring": "paper", "decay": False, "early_stop": False}})
    assert "w_i = 1 (no decaying weights: the paper's DW ablation)" in flat
    assert flat.endswith(" Early stop off (the paper's ES ablation): every conversation ran all its rounds.")
    linear = scoring_note({"scoring": {"scoring": "linear", "decay": True, "early_stop": True}})
    assert linear.startswith("Scoring `linear`: KIEval score = sum(s_i w_i) / sum(w_i) over the n planned rounds, "
                             "w_i = exp(-i/n), turn scores 1..4")
    assert scoring_note({}) == linear  # a run summarised before 0.2: linear, decay, early stop


def test_the_bar_is_the_value_in_thirty_cells():
    assert bar(None) == "" and bar(0.0) == "·" * 30 and bar(1.0) == "█" * 30
    assert bar(0.5) == "█" * 15 + "·" * 15 and bar(0.51, width=10) == "█" * 5 + "·" * 5
    assert bar(0.34) == "█" * 10 + "·" * 20
