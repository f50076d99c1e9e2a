"""Each folder judgeagent writes says its kind in its manifest, and a command given the wrong kind names it (#49).
Folders written before the kind was recorded are known by their files."""
from __future__ import annotations

import json
import shutil

import pytest

from judgeagent import load_graph
from judgeagent.cli.main import main
from judgeagent.files import folder_kind
from judgeagent.runs import load_run, open_run
from tests.conftest import DEMO


def _error(args, capsys):
    code = main([str(a) for a in args])
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def run(tmp_path):
    open_run(tmp_path / "run", {"config_id": "a", "config": {"turns": 2}}).close()
    return tmp_path / "run"


def test_new_runs_and_graphs_record_their_kind(run, demo_graph):
    assert json.loads((run / "manifest.json").read_text())["kind"] == "run"
    assert demo_graph.manifest["kind"] == "graph"


@pytest.mark.parametrize("command", [["report"], ["validate"], ["view"], ["export"], ["compare"]])
def test_a_graph_given_where_a_run_goes_is_named(demo_graph, command, capsys):
    err = _error([*command, demo_graph.path], capsys)
    assert f"{demo_graph.path} is a knowledge graph (build-graph wrote it; commands take it with --graph), not a run" in err


def test_a_run_given_as_a_graph_is_named(run, capsys):
    with pytest.raises(Exception, match=r"is a run \(evaluate wrote it.*\), not a graph"):
        load_graph(run)
    err = _error(["graph-info", run], capsys)
    assert "is a run (evaluate wrote it" in err and "not a graph" in err


def test_a_synthesized_dataset_given_as_a_run_is_named(tmp_path, capsys):
    out = tmp_path / "set"
    open_run(out / ".synthesis", {"config_id": "s", "kind": "synthesis"}).close()
    (out / "items.jsonl").write_text("", encoding="utf-8")
    assert folder_kind(out) == "dataset" and folder_kind(out / ".synthesis") == "synthesis"
    for command in (["report", out], ["view", out], ["validate", out]):
        assert "is a synthesized dataset (synthesize wrote it; evaluate reads its items.jsonl with --benchmark), " \
               "not a run" in _error(command, capsys)
    assert "is the work folder of a synthesis" in _error(["report", out / ".synthesis"], capsys)
    assert "is a synthesized dataset (synthesize wrote it" in _error(["graph-info", out], capsys)
    assert "is a synthesized dataset" in _error(["build-graph", DEMO / "docs.jsonl", "--out", out, "--overwrite"],
                                                capsys)
    assert (out / "items.jsonl").is_file()


def test_folders_from_before_the_kind_was_recorded_still_open_and_are_known(run, demo_graph, tmp_path):
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["kind"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    assert load_run(run).manifest.get("kind") is None and folder_kind(run) == "run"
    (run / "reproduce.md").write_text("| metric |\n")
    assert folder_kind(run) == "reproduce"
    graph = shutil.copytree(demo_graph.path, tmp_path / "g")
    manifest = json.loads((graph / "manifest.json").read_text())
    del manifest["kind"]
    (graph / "manifest.json").write_text(json.dumps(manifest))
    assert folder_kind(graph) == "graph" and load_graph(graph).counts() == demo_graph.counts()


def test_a_manifest_whose_format_is_not_text_is_no_kind(tmp_path, capsys):
    """Found by tests/test_fuzz_loaders.py: a list as the format was looked up in a dict (unhashable)."""
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"format": []}))
    assert folder_kind(folder) is None
    assert _error(["report", folder], capsys) == f"error: {folder} is not a judgeagent run"


@pytest.mark.parametrize("kind,says", [
    ("synthesis", "run the same synthesize command again (same --out {out}): finished calls are not made again"),
    ("reproduce", "run the same reproduce command again (same --run-dir {folder}): finished calls are not made again"),
    ("run", "resume the run where it stopped: judgeagent evaluate --resume {folder}"),
])
def test_a_full_disk_gives_the_fix_of_the_command_that_writes_the_folder(tmp_path, kind, says, monkeypatch):
    """synthesize's and reproduce's errors suggested evaluate's fix (evaluate --resume, which they cannot use)."""
    import builtins
    import errno

    from judgeagent.errors import JudgeAgentError

    def full(path, mode="r", *args, **kwargs):
        if mode == "a" and str(path).endswith("records.jsonl"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return builtins.open(path, mode, *args, **kwargs)

    folder = tmp_path / "out" / ".synthesis"
    with open_run(folder, {"config_id": "s", "kind": kind}) as run:
        monkeypatch.setattr("judgeagent.runs.open", full, raising=False)
        with pytest.raises(JudgeAgentError) as caught:
            run.add_record({"record_id": "a"})
    message = str(caught.value)
    assert "\n" not in message and says.format(out=tmp_path / "out", folder=folder) in message
    assert kind == "run" or "evaluate" not in message


def test_a_synthesis_work_folder_that_cannot_be_made_names_out(tmp_path):
    from judgeagent.errors import JudgeAgentError

    (tmp_path / "out").write_text("")
    with pytest.raises(JudgeAgentError, match=r"cannot create work folder .*; choose another --out$"):
        open_run(tmp_path / "out" / ".synthesis", {"config_id": "s", "kind": "synthesis"})
