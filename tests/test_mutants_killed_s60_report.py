"""JudgeAgent's report package (protocols/judgeagent/report/) by hand: its tables and the check of the files it reads.
Written for #47 after a seed-61 mutation sample of the package (never run before) was scored: 8 of 20 mutants killed.
The runs of test_validate.py and test_evaluate.py read a few words of report.md; these read every figure and label."""
from __future__ import annotations

import pytest

from judgeagent.errors import JudgeAgentError
from judgeagent.protocols.judgeagent.records import JudgedAs, QuestionRecord
from judgeagent.protocols.judgeagent.report.build import paths_markdown, validation_markdown
from judgeagent.protocols.judgeagent.report.checked import check_report_inputs
from judgeagent.protocols.judgeagent.report.gaps import GapSections, Names, gaps_markdown, weak_markdown
from judgeagent.protocols.judgeagent.validity.gaps import Weak
from judgeagent.protocols.judgeagent.validity.irt import Ability
from judgeagent.runs import Run


def _record(n, batch, rnd, path):
    return QuestionRecord(f"b{batch}-r{rnd}-q{n}", batch, "extension", rnd, None, "easy", f"Question {n}?", "gold",
                          "answer", True, JudgedAs("exact"), 1.0, path=path)


def _run(tmp_path, records=(), manifest=None):
    import json

    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r.to_dict()) + "\n" for r in records))
    return Run(tmp_path, manifest or {})


def test_the_paths_table_by_hand(tmp_path):
    records = [_record(0, 0, 1, {"relevance": 0.4567, "seed_kind": "named"}),
               _record(1, 0, 1, {"relevance": 0.9}),  # the round's first record gives its path
               _record(0, 0, 2, {"relevance": 0.6123, "seed_kind": "question"}),
               _record(0, 1, 1, {"relevance": 0.5, "seed_kind": "named"}),
               _record(0, 1, 2, {"relevance": 0.25, "dense": True}),
               _record(0, 2, 1, {"relevance": 0.125, "random": True})]
    out = paths_markdown(_run(tmp_path, records))
    assert out[out.index("| chunks from | rounds | min | median | max |") + 2:] == [
        "| graph | 3 | 0.46 | 0.50 | 0.61 |", "| dense (--path dense) | 1 | 0.25 | 0.25 | 0.25 |",
        "| random (--no-graph) | 1 | 0.12 | 0.12 | 0.12 |", "", "Graph paths by seed: named 2, question 1."]


def test_the_validation_table_by_hand():
    row = {"n": 4, "acc1": 0.25, "acc2": 0.75, "cr": 0.5, "cte": 0.0, "delta": 0.5}
    v = {"intervals": {"acc1": [0.1, 0.4]}, "overall": {**row, "cr_given_wrong": 2 / 3, "cte_given_right": 0.0,
                                                       "mcnemar_p": 0.5, "wrong_to_right": 2, "right_to_wrong": 0},
         "by_difficulty": {"easy": row}, "by_question_type": {"comparison": {**row, "n": 1, "cte": None}},
         "held_out": {**row, "n": 2}, "seen": {**row, "n": 2}, "leakage": {"batches_with_leaks": 1, "redacted": 3},
         "batches": 2}
    assert validation_markdown(v) == [
        "## Validation", "", "| | n | ACC1 | ACC2 | CR | CtE | Δ = CR - CtE |", "|---|---|---|---|---|---|---|",
        "| all | 4 | 25.0% [10.0%, 40.0%] | 75.0% | 50.0% | 0.0% | 50.0% |",
        "| difficulty easy | 4 | 25.0% | 75.0% | 50.0% | 0.0% | 50.0% |",
        "| type comparison | 1 | 25.0% | 75.0% | 50.0% | - | 50.0% |",
        "| seen by the interviewer | 2 | 25.0% | 75.0% | 50.0% | 0.0% | 50.0% |",
        "| held out | 2 | 25.0% | 75.0% | 50.0% | 0.0% | 50.0% |", "",
        "CR over the initially wrong 66.7%; CtE over the initially right 0.0%; exact McNemar p = 0.5 (2 wrong→right, "
        "0 right→wrong). Intervals: 95% bootstrap.", "Leakage guard: leaks caught in 1 of 2 batches, 3 redacted."]


NAMES = Names({"Rosetta": ("PRODUCT", 0.9, ["d1", "d2", "d3"]), "land": ("CONCEPT", 0.1, ["d1"])},
              {"d1": "Rosetta launch", "d2": "Comet landing"})


def test_the_weak_tables_by_hand_with_and_without_the_graphs_names():
    sections = GapSections([Weak("d1", 2.5, 1.25)], [Weak("Rosetta", 3.0, 1.0)], Ability(0.5, 0.25, 6), {}, NAMES)
    out = weak_markdown(sections)
    assert out[3:] == [
        "| document | title | questions | failed | failure rate |", "|---|---|---|---|---|",
        "| d1 | Rosetta launch | 2.5 | 1.2 | 50% |", "",
        "| entity | kind | in documents | questions | failed | failure rate |", "|---|---|---|---|---|---|",
        "| Rosetta | PRODUCT | Rosetta launch; Comet landing (+1) | 3.0 | 1.0 | 33% |", ""]
    bare = weak_markdown(GapSections([Weak("d1", 2.75, 1.25)], [], Ability(0.5, 0.25, 6), {}, None))
    assert bare[3:] == ["| document | questions | failed | failure rate |", "|---|---|---|---|",
                        "| d1 | 2.8 | 1.2 | 45% |", "", "- (no entity was on a question's path)", ""]


def test_the_gap_rows_by_hand():
    from judgeagent.protocols.judgeagent.report.gaps import Gap

    gaps = [Gap("Rosetta", 3, NAMES.kind("Rosetta"), NAMES.documents("Rosetta")), Gap("land", 1, NAMES.kind("land"))]
    assert gaps_markdown(gaps, named=False) == ["- Rosetta (3)", "- land (1)"]
    assert gaps_markdown(gaps, named=True) == [
        "| entity | kind | in documents | failed questions |", "|---|---|---|---|",
        "| Rosetta | PRODUCT | Rosetta launch; Comet landing (+1) | 3 |", "| land | concept |  | 1 |"]
    assert gaps_markdown([], named=True) == ["- (no failed question named a specific graph entity)"]


ROLE = {"name": "m", "model": "m"}
MANIFEST = {"models": {"target": ROLE, "interviewer": ROLE, "judge": ROLE}, "config": {"seed": 0},
            "judge_calibration": {"pairs": 8, "note": "passed", "accuracy": 0.5, "fpr": 1.0, "fnr": 0.0,
                                  "intervals": {"accuracy": [0.2, 0.8]}, "policy": "calibrated", "failures": 0}}
SUMMARY = {"overall_score": 0.5, "questions": 2, "batches": 1, "trajectories": {"0": ["easy"]},
           "accuracy": {"all": {"n": 2, "correct": 1, "accuracy": 0.5}}}


def test_the_report_refuses_a_damaged_field_naming_its_file_and_the_fix(tmp_path):
    check_report_inputs(_run(tmp_path, manifest=MANIFEST), SUMMARY)  # whole: no error
    restore = "; it is written once, when the run starts: restore it from a copy of the run"

    def refused(manifest, summary=SUMMARY):
        with pytest.raises(JudgeAgentError) as e:
            check_report_inputs(_run(tmp_path, manifest=manifest), summary)
        return str(e.value)

    # strict: a number written as a string is refused, not read as one
    calibration = MANIFEST["judge_calibration"]
    assert refused({**MANIFEST, "judge_calibration": {**calibration, "pairs": "8"}}) == (
        f"{tmp_path / 'manifest.json'}: field 'judge_calibration.pairs' should be a whole number, got a string{restore}")
    # a calibration that ran: its rates are read too, and the field is named in full, in the manifest
    message = refused({**MANIFEST, "judge_calibration": {**calibration, "accuracy": "high"}})
    assert message.startswith(f"{tmp_path / 'manifest.json'}: field 'judge_calibration.accuracy' ") and message.endswith(restore)
    assert refused(MANIFEST, {**SUMMARY, "questions": "2"}).startswith(
        f"{tmp_path / 'summary.json'}: field 'questions' should be a whole number, got a string; judgeagent evaluate --resume")
