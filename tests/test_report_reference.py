"""What a reader sees of a run is what it was: each protocol's report.md and report.html, `judgeagent compare`'s
table, the Inspect log and JudgeAgent's trainer export of a scripted run, byte for byte against
tests/data/report_reference/ (tests/make_report_reference.py writes them; read its docstring before writing them
again). The reports' own tests read their headline numbers; these catch a changed word, separator, heading, field
or condition anywhere in them (#47: such mutants survived every other test)."""
from __future__ import annotations

import difflib

import pytest

from tests.make_report_reference import NAMES, capture, stored


def _same(found: dict[str, bytes], reference: dict[str, bytes]) -> None:
    assert sorted(found) == sorted(reference), "files: write the reference again (tests/make_report_reference.py)"
    for name, data in found.items():
        if data != reference[name]:
            diff = difflib.unified_diff(reference[name].decode().splitlines(), data.decode().splitlines(),
                                        "reference", "this run", lineterm="", n=1)
            pytest.fail(f"{name} differs from tests/data/report_reference/{name}:\n" + "\n".join(list(diff)[:40]))


@pytest.mark.parametrize("name", [n for n in NAMES if n != "judgeagent-extension"])
def test_a_scripted_run_reads_as_the_reference(name, tmp_path):
    _same(capture(name, tmp_path), stored(name))


def test_a_judgeagent_run_with_its_extension_reads_as_the_reference(mhr_slice_graph, tmp_path):
    """Paths, knowledge gaps, weak documents and the weaknesses' chunk texts come from the graph."""
    _same(capture("judgeagent-extension", tmp_path, mhr_slice_graph), stored("judgeagent-extension"))


def test_a_runs_records_are_read_in_one_order_whatever_order_they_were_appended_in(tmp_path):
    """Episodes append in the order they finish: the same run's records read back in the same order however the
    lines lie (batch, round, then the record id with its numbers as numbers)."""
    import json

    from judgeagent.protocols.judgeagent.records import question_records
    from judgeagent.runs import load_run
    from tests.make_layout_reference import run_judgeagent

    folder = run_judgeagent(tmp_path / "run")
    lines = (folder / "records.jsonl").read_text().splitlines(True)
    first = [r.record_id for r in question_records(load_run(folder))]
    (folder / "records.jsonl").write_text("".join(reversed(lines)))
    assert [r.record_id for r in question_records(load_run(folder))] == first
    rows = [json.loads(line) for line in lines]
    assert first == [r["record_id"] for r in sorted(rows, key=lambda r: (r["batch"], r["round"], r["record_id"]))]


def test_record_ids_compare_their_numbers_as_numbers():
    from judgeagent.protocols.judgeagent.records import as_records, in_order

    rows = [{"record_id": i, "batch": b, "stage": "extension", "round": r}
            for i, b, r in (("b0-r2-q10", 0, 2), ("b10-r1-q0", 10, 1), ("b0-r2-q9", 0, 2), ("b2-r1-q0", 2, 1),
                            ("b0-r10-q0", 0, 10))]
    assert [r.record_id for r in sorted(as_records(rows), key=in_order)] == [
        "b0-r2-q9", "b0-r2-q10", "b0-r10-q0", "b2-r1-q0", "b10-r1-q0"]


def test_tied_knowledge_gaps_are_ranked_by_name():
    """A failed record's entities are a set (its order is the process's string hashing): ties are by name, so the
    table, and which tied entity makes the top, is the same in every process."""
    from judgeagent.protocols.judgeagent.records import as_records
    from judgeagent.protocols.judgeagent.report.gaps import knowledge_gaps

    def failed(rid: str, entities: list[str]) -> dict:
        return {"record_id": rid, "batch": 0, "stage": "extension", "round": 1, "correct": False,
                "path": {"entities": entities, "chunk_ids": []}}

    rows = [failed("b0-r1-q0", ["zeta", "alpha", "mu"]), failed("b0-r1-q1", ["mu", "beta", "omega"])]
    for order in (rows, rows[::-1]):
        gaps = knowledge_gaps(as_records(order), None, top=3)
        assert [(g.name, g.failed) for g in gaps] == [("mu", 2), ("alpha", 1), ("beta", 1)]
