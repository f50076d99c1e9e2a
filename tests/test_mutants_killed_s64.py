"""Survivors of stop 61's second fresh sample (seed 64, bench/mutants.md), killed after it was scored: they do not
change its estimate (#47)."""
from __future__ import annotations

import pytest

from judgeagent.errors import JudgeAgentError


def test_a_runs_rows_keep_their_text_as_written(tmp_path):
    """runs.py:286: a row is written as UTF-8 text, not \\u escapes (a user greps records.jsonl for "Zürich")."""
    from judgeagent.runs import open_run

    with open_run(tmp_path / "run", {"config": {}}) as run:
        run.append("records.jsonl", {"record_id": "r1", "gold": "Zürich", "reply": "東京"})
    assert '"gold": "Zürich", "reply": "東京"' in (tmp_path / "run" / "records.jsonl").read_text(encoding="utf-8")


def test_a_work_folder_that_cannot_be_made_names_itself_and_synthesizes_flag(tmp_path):
    """runs.py:407: synthesize's folder is a work folder named with --out; every other command's a run folder."""
    from judgeagent.runs import open_run

    (tmp_path / "file").write_text("x")
    for kind, what, flag in (("synthesis", "work folder", "--out"), ("run", "run folder", "--run-dir")):
        with pytest.raises(JudgeAgentError, match=f"^cannot create {what} {tmp_path}/file/sub: .*; choose another {flag}$"):
            open_run(tmp_path / "file" / "sub", {"kind": kind})


def test_the_share_of_verdicts_that_rest_on_a_shaky_decision_is_a_percentage():
    """judging.py:58: 3 of 8 verdicts are 37.5%."""
    from judgeagent.protocols.judgeagent.report.judging import Judging, judging_markdown

    lines = judging_markdown(Judging({"undecided": 3, "exact": 5}, None, 3, 8, []))
    assert "**3 of 8 verdicts (37.5%) rest on an uncalibrated or undecided decision.**" in lines
