"""The report states what the judge's calibration bounds: its false-positive rate on the hard negative probes
(a near number, another entity of the asked kind, part of the answer, another question's answer about the same
subject) with the interval's upper end, or that its wrong answers were easy ones that bound nothing (#46)."""
from __future__ import annotations

from judgeagent.protocols.judgeagent.report.judging import Judging, judging_markdown


def _calibration(by_kind):
    n = sum(row["n"] for row in by_kind.values())
    right = sum(row["right"] for row in by_kind.values())
    return {"pairs": n, "accuracy": right / n, "fpr": 0.0, "fnr": 0.0, "intervals": {}, "failures": 0,
            "passed": True, "used": True, "policy": "calibrated", "note": "judge passed calibration", "by_kind": by_kind,
            "errors": []}


def _report(by_kind):
    return "\n".join(judging_markdown(Judging({"judge": 3}, _calibration(by_kind), 0, 3, [])))


def test_the_report_gives_the_bound_of_the_hard_negatives():
    by_kind = {"restated": {"n": 20, "right": 20}, "changed_number": {"n": 12, "right": 12},
               "same_subject": {"n": 5, "right": 4}, "other_gold": {"n": 3, "right": 3}}
    text = _report(by_kind)
    # 1 of 17 hard probes accepted: Wilson's 95% upper end is 27%
    assert "Hard negatives (changed_number, same_subject): 1 of 17 accepted, so at most 27%" in text


def test_the_report_says_when_no_probe_was_hard():
    text = _report({"restated": {"n": 20, "right": 20}, "other_gold": {"n": 20, "right": 20}})
    assert "bound no false-positive rate on plausible wrong replies" in text and "Hard negatives (" not in text


def _record(n, method):
    from judgeagent.protocols.judgeagent.records import JudgedAs, QuestionRecord

    return QuestionRecord(f"r{n}", 0, "grading", 0, f"q{n}", None, f"Question {n}?", "gold", "answer", True,
                          JudgedAs(method), 1.0)


def test_the_sections_data_counts_shaky_verdicts_and_spot_checks_only_the_judges_by_hand():
    """`judging`: undecided verdicts always rest on no decision; the judge's rest on an uncalibrated one when it was used
    without passing (trust, or a failed calibration), not when it passed; the spot-checks are drawn from the judge's
    verdicts (decided or failed) only (#47: both survived a mutation sample)."""
    from judgeagent.protocols.judgeagent.report.judging import judging

    records = [_record(1, "exact"), _record(2, "judge"), _record(3, "judge"), _record(4, "judge_failed"),
               _record(5, "undecided"), _record(6, "f1")]
    trusted = {"used": True, "passed": False, "pairs": 0}
    passed = {"used": True, "passed": True, "pairs": 20}
    j = judging(records, {"judge_calibration": trusted, "config": {"seed": 3}})
    assert (j.shaky, j.total) == (1 + 2, 6) and j.methods == {"judge": 2, "exact": 1, "judge_failed": 1,
                                                              "undecided": 1, "f1": 1}
    assert sorted(r.record_id for r in j.sample) == ["r2", "r3", "r4"]
    assert judging(records, {"judge_calibration": passed}).shaky == 1
    assert judging(records, {"judge_calibration": {**trusted, "used": False}}).shaky == 1
    assert judging(records, {}).shaky == 1 and judging(records, {}).calibration is None


def test_the_spot_checks_are_a_table_of_the_judges_decisions():
    from judgeagent.protocols.judgeagent.records import JudgedAs, QuestionRecord

    record = QuestionRecord("r1", 0, "grading", 0, "q1", None, "Who led?", "Ada | Lovelace", " Ada ", False,
                            JudgedAs("judge", "names another person"), 0.0)
    text = judging_markdown(Judging({"judge": 1}, None, 1, 1, [record]))
    assert text[-5:-3] == ["### 1 judge decisions to spot-check", ""]
    assert text[-3:] == ["| question | gold | answer | verdict | reason |", "|---|---|---|---|---|",
                         "| Who led? | Ada \\| Lovelace | Ada | wrong | names another person |"]
