"""Validation, reports, export and compare over runs made with scripted roles (real graph and files)."""
import json

import pyarrow.parquet as pq
import pytest

from judgeagent import EvalConfig, JudgeAgentError
from judgeagent.benchmark import load_benchmark
from judgeagent.cli import main
from judgeagent.metrics import rates
from judgeagent.protocols.judgeagent.evaluate import evaluate
from judgeagent.protocols.judgeagent.validate import validate
from tests.conftest import DATA
from tests.scripted import Roles, Script

MHR = DATA / "multihop_rag" / "small.questions.jsonl"


class Helpful(Script):
    """A target that gets a question right only when suggestions are in its prompt (for some questions)."""

    def target(self, request):
        prompt = request["messages"][-1]["content"]
        question = prompt.split("Question: ", 1)[-1].split("\n")[0].strip()
        helped = "left these suggestions" in prompt
        gold = self.golds.get(question)
        if gold and (self.knows(question) or (helped and len(question) % 3 == 0)):
            return gold
        return "I am not sure, perhaps Atlantis."


def make_run(tmp_path, graph, name="run", config=EvalConfig(rounds=1), target="tgt", limit=10):
    script = Helpful(target_right={"Federal", "Google"})
    roles = Roles(script).__enter__()
    bench = load_benchmark(MHR, limit=limit)
    for item in bench.items:
        script.golds[item.question] = item.gold
    result = evaluate(bench, graph, target, interviewer="int", config=config, run_dir=tmp_path / name,
                      registry=roles.registry(target), cache=False)
    return roles, result


def test_validate_numbers_match_the_rows_and_rerun_is_free(tmp_path, mhr_slice_graph):
    roles, result = make_run(tmp_path, mhr_slice_graph)
    try:
        v = validate(result.folder, registry=roles.registry(), cache=False)
        calls = roles.calls()
        again = validate(result.folder, registry=roles.registry(), cache=False)
        assert roles.calls() == calls  # answered from the run's journal
    finally:
        roles.__exit__(None, None, None)
    rows = [json.loads(x) for x in (result.folder / "validation.jsonl").read_text().splitlines()]
    assert len(rows) == 10
    assert_validate_is_held_to_the_runs_models(result.folder)
    recomputed = rates([(r["before"], r["after"]) for r in rows])
    assert v["overall"] == recomputed == again["overall"]
    o = v["overall"]
    assert o["acc2"] - o["acc1"] == pytest.approx(o["cr"] - o["cte"])
    assert o["wrong_to_right"] > 0  # the scripted target does use the suggestions
    base = {r["qid"]: r["correct"] for r in map(json.loads, (result.folder / "records.jsonl").read_text().splitlines())
            if r["stage"] == "grading"}
    assert {r["qid"]: r["before"] for r in rows} == base  # a1 is the graded answer (same prompt, journaled)
    assert set(v["by_question_type"]) <= {"inference_query", "comparison_query", "temporal_query", "null_query"}


def test_holdout_is_kept_from_feedback_and_reported(tmp_path, mhr_slice_graph):
    roles, result = make_run(tmp_path, mhr_slice_graph, config=EvalConfig(rounds=0, holdout=0.4))
    try:
        prompts = [b["messages"][0]["content"] for b in roles.interviewer.bodies
                   if "how a model answered" in b["messages"][0]["content"]]
        v = validate(result.folder, registry=roles.registry(), cache=False)
    finally:
        roles.__exit__(None, None, None)
    records = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    held = [r for r in records if r["held_out"]]
    assert len(held) == 4  # 2 of each batch of 5
    for r in held:
        assert not any(r["question"] in p for p in prompts)
    assert v["held_out"]["n"] == 4 and v["seen"]["n"] == 6


def assert_validate_is_held_to_the_runs_models(folder):
    """The names now point at other servers (the same script, so the numbers would even agree): validate refuses in
    one line naming the change, sends nothing; with --allow-model-change it goes on and the manifest says so."""
    elsewhere = Roles(Helpful()).__enter__()
    try:
        before = (folder / "validation.json").read_bytes()
        with pytest.raises(JudgeAgentError, match=r"^validate would use other models than run .*target 'tgt': "
                                                   r"base_url 'http://127\.0\.0\.1:\d+/v1' then, 'http://127"):
            validate(folder, registry=elsewhere.registry(), cache=False)
        assert elsewhere.calls() == 0 and (folder / "validation.json").read_bytes() == before
        assert "model_changes" not in json.loads((folder / "manifest.json").read_text())
        validate(folder, registry=elsewhere.registry(), cache=False, allow_model_change=True)
        assert elsewhere.calls() > 0
        changes = json.loads((folder / "manifest.json").read_text())["model_changes"]
        assert [c["command"] for c in changes] == ["validate"] and len(changes[0]["changes"]) == 3
    finally:
        elsewhere.__exit__(None, None, None)


def test_report_export_and_compare(tmp_path, mhr_slice_graph, capsys):
    roles, a = make_run(tmp_path, mhr_slice_graph, name="a")
    others = None
    try:
        others, b = make_run(tmp_path, mhr_slice_graph, name="b", config=EvalConfig(rounds=1, extension=False))
        for servers, run in ((roles, a), (others, b)):  # each run validated by its own servers (held to them)
            validate(run.folder, registry=servers.registry(), cache=False)
    finally:
        roles.__exit__(None, None, None)
        if others is not None:
            others.__exit__(None, None, None)
    assert main(["report", str(a.folder)]) == 0
    out = capsys.readouterr().out
    assert "report.html" in out
    html = (a.folder / "report.html").read_text()
    summary = json.loads((a.folder / "summary.json").read_text())
    validation = json.loads((a.folder / "validation.json").read_text())
    assert f"{summary['overall_score']:.3f}" in html and "<svg" in html and "http" not in html.replace(
        "http://www.w3.org/2000/svg", "")
    md = (a.folder / "report.md").read_text()
    assert f"{100 * validation['overall']['cr']:.1f}%" in md and "## Knowledge gaps" in md
    table = pq.read_table(a.folder / "weaknesses.parquet")
    failed = [r for r in map(json.loads, (a.folder / "records.jsonl").read_text().splitlines()) if not r["correct"]]
    assert table.num_rows == len(failed) == len((a.folder / "weaknesses.jsonl").read_text().splitlines())
    ext = [row for row in table.to_pylist() if row["stage"] == "extension"]
    assert all(row["chunk_texts"] and all(row["chunk_texts"]) and row["entities"] for row in ext)
    assert main(["compare", str(a.folder), str(b.folder)]) == 0
    table_out = capsys.readouterr().out
    lines = [line for line in table_out.splitlines() if line.startswith("| ")]
    assert "Δ = CR - CtE" in lines[0] and [line.split(" | ")[0] for line in lines[1:]] == ["| a", "| b"]


def test_bad_run_folders(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "missing")]) == 1
    assert "run not found" in capsys.readouterr().err
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"format": "judgeagent.run", "format_version": 1,
                                                      "status": "running"}))
    assert main(["report", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "unfinished" in err and "judgeagent evaluate --resume" in err
    (folder / "manifest.json").write_text(json.dumps({"format": "judgeagent.run", "format_version": 9}))
    assert main(["validate", str(folder)]) == 1
    assert "format version 9" in capsys.readouterr().err
    with pytest.raises(JudgeAgentError, match="no validation"):
        from judgeagent.protocols.judgeagent.report import compare_runs

        (folder / "manifest.json").write_text(json.dumps({"format": "judgeagent.run", "format_version": 1,
                                                          "status": "finished"}))
        (folder / "records.jsonl").write_text("")  # a finished run holds its records, none here
        compare_runs([folder])


class Scrambler(Script):
    """A target whose answers are the gold's words reversed plus two more: token F1 between 0.5 and 0.8."""

    def target(self, request):
        question = request["messages"][-1]["content"].split("Question: ", 1)[-1].split("\n")[0].strip()
        gold = self.golds.get(question, "nothing at all")
        return " ".join(reversed(gold.split())) + " perhaps maybe"


def test_validate_grades_with_the_runs_checker(tmp_path, mhr_slice_graph):
    from judgeagent.config import CheckerConfig

    script = Scrambler()
    bench = load_benchmark(MHR, limit=5)
    for item in bench.items:
        script.golds[item.question] = item.gold
    config = EvalConfig(rounds=0, checker=CheckerConfig(f1_threshold=0.6, judge_policy="off"))
    with Roles(script) as roles:
        result = evaluate(bench, mhr_slice_graph, "tgt", interviewer="int", config=config, run_dir=tmp_path / "run",
                          registry=roles.registry(), cache=False)
        validate(result.folder, registry=roles.registry(), cache=False)
    manifest = json.loads((result.folder / "manifest.json").read_text())
    assert manifest["config"]["checker"]["f1_threshold"] == 0.6
    records = {r["qid"]: r for r in map(json.loads, (result.folder / "records.jsonl").read_text().splitlines())}
    rows = [json.loads(x) for x in (result.folder / "validation.jsonl").read_text().splitlines()]
    assert any(r["verdict"]["method"] == "f1" and r["correct"] for r in records.values())
    assert all(row["before"] == records[row["qid"]]["correct"] for row in rows)  # same answer, same verdict


def test_a_run_written_without_the_learned_step_validates_and_reports_without_it(tmp_path, mhr_slice_graph):
    """#46 made the learned step the default: a JudgeAgent run folder written the old way (no `equivalence` in its
    manifest, as every run before #46 and `--equivalence-weights none` write it) still validates, reports and
    resumes, and grades without the step: its undecided answers stay `undecided` (the step would decide them)."""
    from judgeagent.config import CheckerConfig
    from judgeagent.protocols.judgeagent.validate import run_checker
    from judgeagent.runs import load_run

    script = Scrambler()
    bench = load_benchmark(MHR, limit=5)
    for item in bench.items:
        script.golds[item.question] = item.gold
    config = EvalConfig(rounds=0, checker=CheckerConfig(judge_policy="off"))
    with Roles(script) as roles:
        result = evaluate(bench, mhr_slice_graph, "tgt", interviewer="int", config=config, run_dir=tmp_path / "run",
                          registry=roles.registry(), cache=False, equivalence_weights="none")
        manifest = json.loads((result.folder / "manifest.json").read_text())
        assert "equivalence" not in manifest
        validate(result.folder, registry=roles.registry(), cache=False)
        again = evaluate(bench, mhr_slice_graph, "tgt", interviewer="int", config=config, run_dir=tmp_path / "run",
                         registry=roles.registry(), cache=False)  # no weights named: the run's own, none
    assert again.resumed and json.loads((result.folder / "manifest.json").read_text())["config_id"] == \
        manifest["config_id"]
    assert run_checker(load_run(result.folder), None).equivalence is None
    records = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    rows = [json.loads(x) for x in (result.folder / "validation.jsonl").read_text().splitlines()]
    methods = {r["verdict"]["method"] for r in records} | {r["method_after"] for r in rows}
    assert "undecided" in methods and "learned" not in methods
    assert main(["report", str(result.folder)]) == 0
    assert "Learned equivalence step" not in (result.folder / "report.md").read_text()
