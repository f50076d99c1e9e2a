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
