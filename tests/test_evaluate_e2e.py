"""`judgeagent evaluate` end to end through the CLI with the embedded model in every role.

SmolLM2-135M is real but weak: these tests assert that the run's structure, records and numbers are
consistent, not that its answers or questions are good.
"""
import json

import pytest

from judgeagent import build_graph
from judgeagent.cli import main
from judgeagent.grading.verdict import METHODS
from judgeagent.protocols.judgeagent.records import FeedbackEntry, as_records
from judgeagent.protocols.judgeagent.summary import summarise
from tests.conftest import DATA


def _check_run(folder, n_base):
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["graph"]["graph_id"]
    assert set(manifest["models"]) == {"target", "interviewer", "judge"}
    assert manifest["models"]["target"]["name"] == "local" and "api_key" not in json.dumps(manifest).replace("api_key_env", "")
    records = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]
    feedback = [json.loads(x) for x in (folder / "feedback.jsonl").read_text().splitlines()]
    assert len([r for r in records if r["stage"] == "grading"]) == n_base
    for r in records:
        assert r["prompt"][-1]["role"] == "user" and isinstance(r["correct"], bool)
        assert r["verdict"]["method"] and r["points"] >= 0
    summary = json.loads((folder / "summary.json").read_text())
    recomputed = summarise(as_records(records), [FeedbackEntry.from_dict(f) for f in feedback])
    assert summary["overall_score"] == pytest.approx(recomputed["overall_score"])
    assert summary["accuracy"] == recomputed["accuracy"]
    assert sum(f["asked"] for f in feedback) == len(records)
    return records, feedback, summary


def test_multihop_rag_with_the_local_model(mhr_graph, tmp_path, capsys):
    args = ["evaluate", "--target", "local", "--benchmark", str(DATA / "multihop_rag" / "small.questions.jsonl"),
            "--graph", str(mhr_graph.path), "--limit", "5", "--rounds", "1", "--run-dir", str(tmp_path / "run"),
            "--no-cache", "-q"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "overall score" in out and "target" in out
    records, feedback, summary = _check_run(tmp_path / "run", 5)
    assert len(feedback) == 1 and len(feedback[0]["trajectory"]) >= 1
    assert summary["usage"]["target"]["calls"] >= 5
    assert main(args) == 0  # the same command again: finished, nothing to call
    assert "this run had finished" in capsys.readouterr().out
    assert main(["evaluate", "--resume", str(tmp_path / "run"), "-q"]) == 0


def test_quality_multiple_choice_with_passages(tmp_path, capsys):
    graph = build_graph(DATA / "quality" / "small.docs.jsonl", tmp_path / "graph")
    args = ["evaluate", "--target", "local", "--benchmark", str(DATA / "quality" / "small.questions.jsonl"),
            "--graph", str(graph.path), "--passages", "--max-passage-words", "200", "--limit", "3",
            "--batch-size", "3", "--rounds", "1", "--run-dir", str(tmp_path / "run"), "--no-cache", "-q"]
    assert main(args) == 0
    records, _, _ = _check_run(tmp_path / "run", 3)
    base = [r for r in records if r["stage"] == "grading"]
    assert all("Passage:" in r["prompt"][-1]["content"] and r["options"] for r in base)
    # a reply naming no option is read as free text against the gold option: never left at "no_letter"
    methods = {r["verdict"]["method"] for r in base}
    assert methods <= set(METHODS) - {"no_letter"}, methods


def test_evaluate_bad_inputs(tmp_path, mhr_graph, capsys):
    bench = DATA / "multihop_rag" / "small.questions.jsonl"
    code = main(["evaluate", "--target", "local", "--benchmark", str(bench), "--graph", str(tmp_path / "none")])
    assert code == 1 and "graph not found" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "a", "question": "Q?", "answer": "x"}\n{oops\n')
    code = main(["evaluate", "--target", "local", "--benchmark", str(bad), "--graph", str(mhr_graph.path)])
    assert code == 1 and "bad.jsonl:2" in capsys.readouterr().err
    nogold = tmp_path / "nogold.jsonl"
    nogold.write_text('{"qid": "a", "question": "Q?"}\n')
    code = main(["evaluate", "--target", "local", "--benchmark", str(nogold), "--graph", str(mhr_graph.path)])
    assert code == 1 and "gold" in capsys.readouterr().err
    code = main(["evaluate", "--target", "nope", "--benchmark", str(bench), "--graph", str(mhr_graph.path)])
    assert code == 1 and "unknown model 'nope'" in capsys.readouterr().err
    code = main(["evaluate", "--resume", str(tmp_path)])
    assert code == 1 and "not a judgeagent run" in capsys.readouterr().err
