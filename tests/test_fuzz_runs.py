"""Property-based fuzzing (Hypothesis) of the run folders of every protocol as report, view and export read them
(#49): a damaged manifest.json, summary.json, records.jsonl or episodes.jsonl gives the output or one
`error: ...` line naming the file (and the line, for JSONL), never a traceback. The runs are real folders made by
the runner with scripted roles (FunctionModel, orchestration only); the fuzz tests are `slow` (tests/slow.txt),
the regressions each found are fast."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgeagent.cli.main import main
from judgeagent.protocols import run_protocol

from . import test_dynaeval, test_kieval, test_protocols, test_teach2eval
from .test_fuzz_loaders import FUZZ, damaged, run_folder  # noqa: F401  (run_folder: a fixture)

PROTOCOLS = ["interviewer", "kieval", "teach2eval", "dynaeval"]


def _make(name: str, folder: Path) -> Path:
    if name == "interviewer":
        return run_protocol("interviewer", test_protocols.items(), models=test_protocols.roles(test_protocols.Script()),
                            config={**test_protocols.OPTS, "summary": False}, run_dir=folder, cache=False).folder
    if name == "kieval":
        return run_protocol("kieval", test_kieval.bench(), models=test_kieval.models(), config=test_kieval.OPTS,
                            run_dir=folder, cache=False).folder
    if name == "teach2eval":
        return run_protocol("teach2eval", test_teach2eval.bench(), models=test_teach2eval.models(),
                            config=test_teach2eval.OPTS, run_dir=folder, cache=False).folder
    players = {"players.1": test_dynaeval.investor([10, 10, 4], "alpha"),
               "players.2": test_dynaeval.investor([0, 0, 0], "beta")}
    return test_dynaeval.run(players, folder.parent, name=folder.name, rounds=3, max_runs=2, min_runs=2).folder


@pytest.fixture(scope="module")
def kieval_run(tmp_path_factory):
    return _make("kieval", tmp_path_factory.mktemp("fuzzruns") / "kieval")


@pytest.fixture(scope="module")
def dynaeval_run(tmp_path_factory):
    return _make("dynaeval", tmp_path_factory.mktemp("fuzzruns") / "dynaeval")


@pytest.fixture(scope="module")
def runs(kieval_run, dynaeval_run, tmp_path_factory):
    """A finished run of each protocol (other than JudgeAgent's: tests/test_fuzz_loaders.py), made once."""
    root = tmp_path_factory.mktemp("fuzzruns")
    made = {"kieval": kieval_run, "dynaeval": dynaeval_run}
    return {name: made.get(name) or _make(name, root / name) for name in PROTOCOLS}


def _commands(run: Path) -> list[list[str]]:
    return [["report", str(run)], ["view", str(run), "--out", str(run.parent / "v.html")],
            ["export", str(run), "--out", str(run.parent / "e.json")]]


def _output_or_one_line(run: Path, capsys) -> None:
    for command in _commands(run):
        code = main(command)
        err = capsys.readouterr().err
        assert code in (0, 1) and "Traceback" not in err, (command, err)
        assert code == 0 or len([x for x in err.splitlines() if x.strip()]) == 1, (command, err)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name", ["manifest.json", "summary.json"])
def test_a_damaged_manifest_or_summary_of_any_protocol_is_reported_or_one_line(runs, protocol, name, capsys):
    run = runs[protocol]
    original = (run / name).read_text(encoding="utf-8")

    @settings(FUZZ, max_examples=12)
    @given(damaged(json.loads(original)))
    def check(edited):
        (run / name).write_text(json.dumps(edited), encoding="utf-8")
        _output_or_one_line(run, capsys)

    try:
        check()
    finally:
        (run / name).write_text(original, encoding="utf-8")


@st.composite
def damaged_lines(draw, lines):
    """`lines` (a JSONL file's) with one damaged: a field changed or removed, the line cut short, replaced by
    another JSON value, or written twice."""
    lines = list(lines)
    i = draw(st.integers(0, len(lines) - 1))
    how = draw(st.integers(0, 3))
    if how == 0:
        lines[i] = json.dumps(draw(damaged(json.loads(lines[i]))))
    elif how == 1:
        lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
    elif how == 2:
        lines[i] = draw(st.sampled_from(["", "null", "[]", "{}", "1", '"x"', '{"record_id": 1}', '{"episode": []}']))
    else:
        lines.insert(i, lines[i])
    return lines


@pytest.mark.parametrize("protocol", [*PROTOCOLS, "judgeagent"])
@pytest.mark.parametrize("name", ["records.jsonl", "episodes.jsonl"])
def test_a_damaged_jsonl_line_of_any_protocol_is_read_or_one_line(runs, run_folder, protocol, name, capsys):  # noqa: F811
    run = run_folder if protocol == "judgeagent" else runs[protocol]
    original = (run / name).read_text(encoding="utf-8")

    @settings(FUZZ, max_examples=12)
    @given(damaged_lines(original.splitlines()))
    def check(lines):
        (run / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        _output_or_one_line(run, capsys)

    try:
        check()
    finally:
        (run / name).write_text(original, encoding="utf-8")


# --- what the fuzzing found: each was a KeyError, TypeError or AttributeError mid-command --------------------

@pytest.fixture
def kieval_copy(kieval_run, tmp_path):
    # Without the reports: another test of the module may have written them into the shared run.
    return Path(shutil.copytree(kieval_run, tmp_path / "kv", ignore=shutil.ignore_patterns("report.*")))


def _edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _edit_line(path: Path, number: int, edit) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[number - 1])
    edit(row)
    lines[number - 1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _one_error(command: list[str], capsys) -> str:
    assert main(command) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    return err


@pytest.mark.parametrize("command", ["report", "view", "export"])
@pytest.mark.parametrize("file,edit,says", [
    ("manifest.json", lambda m: m.update(models=["candidate"]),
     "manifest.json: field 'models' should be an object, got an array"),
    ("manifest.json", lambda m: m["models"]["candidate"].update(name={"n": 1}),
     "manifest.json: field 'models.candidate.name' should be text, got an object"),
    ("manifest.json", lambda m: m["benchmark"].pop("items"), "manifest.json: field 'benchmark.items' is missing"),
    ("manifest.json", lambda m: m.update(models=None, benchmark=[]),
     "manifest.json: field 'benchmark' should be an object"),
    ("summary.json", lambda s: s["usage"]["candidate"].update(cost="0"),
     "summary.json: field 'usage.candidate.cost' should be a number, got a string"),
])
def test_a_damaged_shared_field_is_one_line_naming_file_and_field(kieval_copy, command, file, edit, says, capsys):
    _edit_json(kieval_copy / file, edit)
    if command == "view" and file == "summary.json":
        pytest.skip("the viewer reads no summary.json")
    assert says in _one_error([command, str(kieval_copy)], capsys)


def test_a_damaged_field_of_a_protocols_own_summary_names_summary_json(kieval_copy, capsys):
    _edit_json(kieval_copy / "summary.json", lambda s: s.pop("kieval"))
    err = _one_error(["report", str(kieval_copy)], capsys)
    assert f"{kieval_copy / 'summary.json'}: field 'kieval' is missing, which the KIEval report reads" in err
    assert f"judgeagent evaluate --resume {kieval_copy}" in err
    assert not (kieval_copy / "report.html").exists()  # nothing half-written


@pytest.mark.parametrize("command", ["report", "view", "export"])
def test_a_record_with_a_field_of_the_wrong_kind_is_file_line_field(kieval_copy, command, capsys):
    _edit_line(kieval_copy / "records.jsonl", 3, lambda r: r.update(protocol=3))
    err = _one_error([command, str(kieval_copy)], capsys)
    assert f"{kieval_copy / 'records.jsonl'}:3: field 'protocol' should be text, got a number" in err


def test_a_record_score_that_is_no_object_is_file_line_field(kieval_copy, capsys):
    path = kieval_copy / "records.jsonl"
    number = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if json.loads(line).get("scores"))
    _edit_line(path, number, lambda r: r.update(scores={k: "1" for k in r["scores"]}))
    err = _one_error(["view", str(kieval_copy)], capsys)
    assert f"records.jsonl:{number}: field 'scores." in err and "should be an object, got a string" in err


def test_an_episode_row_with_a_field_of_the_wrong_kind_is_file_line_field(kieval_copy, capsys):
    _edit_line(kieval_copy / "episodes.jsonl", 2, lambda r: r.update(episode={"id": 1}))
    err = _one_error(["view", str(kieval_copy)], capsys)
    assert f"{kieval_copy / 'episodes.jsonl'}:2: field 'episode' should be text or a number, got an object" in err


def test_a_judgeagent_record_of_the_wrong_kind_and_an_empty_question(run_folder, capsys):  # noqa: F811
    path = run_folder / "records.jsonl"
    original = path.read_text(encoding="utf-8")
    try:
        _edit_line(path, 1, lambda r: r.update(stage={"x": 1}))
        err = _one_error(["report", str(run_folder)], capsys)
        assert f"{path}:1: field 'stage' should be text, got an object" in err
        path.write_text(original, encoding="utf-8")
        _edit_line(path, 1, lambda r: r.update(question=""))  # was an IndexError in the viewer
        assert main(["view", str(run_folder)]) == 0
    finally:
        path.write_text(original, encoding="utf-8")


@pytest.mark.parametrize("row,says", [
    ({"episode": []}, "field 'episode' should be text or a number, got an array"),
    ({"episode": "rep-0001", "cast": ["Player A"]}, "field 'cast' should be an object"),
])
def test_a_dynaeval_game_row_of_the_wrong_kind_is_file_line_field(dynaeval_run, tmp_path, row, says, capsys):
    run = Path(shutil.copytree(dynaeval_run, tmp_path / "dyn"))
    path = run / "episodes.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")  # was a TypeError in the viewer
    err = _one_error(["view", str(run)], capsys)
    assert f"{path}:1: {says}" in err
