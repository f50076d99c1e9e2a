"""Tests for the survivors of stop 60's fresh mutation sample (scripts/mutants.py --sample 5 --seed 61, issue 47),
written after that sample was scored (bench/mutants.md, "Stop 60"): they do not change its estimate. (The report
frame's survivors, protocols/reports.py, are checked in tests/test_run_reports.py's interviewer report test, which
already makes the run.)"""
from __future__ import annotations

from judgeagent.protocols.rows import line_of


def test_a_row_not_in_its_file_has_no_line(tmp_path):
    # protocols/rows.line_of: a refused row is looked for in its file; a row the file does not hold is line "?"
    path = tmp_path / "records.jsonl"
    path.write_text('{"a": 1}\nnot json\n{"a": 2}\n')
    assert line_of(path, {"a": 2}) == 3
    assert line_of(path, {"a": 3}) == "?"
    assert line_of(tmp_path / "missing.jsonl", {"a": 1}) == "?"


# --- the survivors of the 21 modules' sample (each written after the whole pass was scored) ---------------------

def test_a_name_part_of_several_words_is_said_with_spaces():
    # name_rules.name_part's extracted words, joined by one space
    from judgeagent.grading.case import Case, Reply
    from judgeagent.grading.name_rules import name_part
    from judgeagent.grading.text import best_f1, normalise_answer

    said, gold = Reply.of("Ruth Ginsburg"), "Ruth Bader Ginsburg"
    v = name_part(Case(said, [gold], [normalise_answer(gold)], best_f1(said.text, [gold]), 0.8,
                       "Who wrote the dissent?", ()))
    assert v is not None and (v.correct, v.extracted) == (True, "ruth ginsburg")


def test_token_f1_at_the_threshold_is_right_when_nothing_else_decides():
    # answers.AnswerChecker without a judge or a learned step: "Toll House" for "Toll House cookie" (F1 0.8, which
    # the F1 rule leaves alone: the gold's head "cookie" is not said) is right at a threshold of 0.8
    import asyncio

    from judgeagent.grading.answers import AnswerChecker

    v = asyncio.run(AnswerChecker().check("What did she bake?", "Toll House cookie", "Toll House"))
    assert (v.correct, v.method, v.score) == (True, "undecided", 0.8)


def test_a_changed_number_moves_either_way():
    # calibration._changed_number: moved by -9..9, not 0; only a move below zero is turned upwards
    import random

    from judgeagent.grading.calibration import _changed_number

    moved = [int(_changed_number("50", random.Random(seed))) for seed in range(12)]
    assert any(m < 50 for m in moved) and any(m > 50 for m in moved) and 50 not in moved
    assert all(int(_changed_number("3", random.Random(seed))) > 0 for seed in range(12))


def test_the_spelling_feature_reads_the_first_200_characters():
    # equivalence.features: the reply's first sentence is compared with the gold up to its 200th character
    from judgeagent.grading.equivalence import FEATURES, features

    assert features("Which letter?", ["b"], "a" * 200 + "b", cosine=False)[FEATURES.index("spelling")] == 0.0
    assert features("Which letter?", ["b"], "a" * 199 + "b", cosine=False)[FEATURES.index("spelling")] > 0.0


def test_a_two_word_reason_made_of_all_the_instructions_words_is_copied():
    # judge._copied: a part of at most two words, every one of them the instructions', is copied, even when it is
    # near no one sentence ("X Y" against "X X" and "Y Y": token F1 0.5)
    from judgeagent.grading.judge import echoes

    assert echoes("X Y", None, "X X", "Y Y")
    assert not echoes("X Z", None, "X X", "Y Y")


def test_a_resume_with_other_models_names_each_difference_apart():
    # runs._differences: up to four model differences, "; " between them
    from judgeagent.runs import _differences

    old = {"models": {"a": {"name": "x"}, "b": {"name": "y"}}}
    new = {"models": {"a": {"name": "x2"}, "b": {"name": "y2"}}}
    assert _differences(old, new) == 'models a name: "x" there, "x2" now; b name: "y" there, "y2" now'


# --- survivors of the second fresh sample (seed 62), written after it was scored --------------------------------

def test_a_run_says_how_its_command_goes_on(tmp_path):
    # runs.Run.resume_hint (in the message of a write that fails mid-run): each kind of command its own way on
    from judgeagent.runs import Run

    assert Run(tmp_path, {"kind": "run"}).resume_hint() == \
        f"resume the run where it stopped: judgeagent evaluate --resume {tmp_path}"
    assert Run(tmp_path, {"kind": "reproduce"}).resume_hint() == \
        f"run the same reproduce command again (same --run-dir {tmp_path}): finished calls are not made again"
