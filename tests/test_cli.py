"""The CLI end to end: real builds, one-line errors, non-zero exits, nothing half-written."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judgeagent import load_graph
from judgeagent.cli import main
from tests.conftest import DEMO, ROOT


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The demo graph on the default settings, in a folder of this module's: the run's own build of it (the one
    `demo_graph` takes, tests/graph_cache.py), copied. The CLI's build is tested below (its summary, files and
    flags); a second default build here cost ~5 s of every run and checked nothing more."""
    from tests.graph_cache import build

    out = tmp_path_factory.mktemp("cli") / "demo"
    build(DEMO / "docs.jsonl", out)
    from judgeagent.config import GraphConfig

    assert json.loads((out / "manifest.json").read_text())["config"] == GraphConfig().model_dump(mode="json")
    return out


def test_build_graph_summary_and_files(tmp_path, capsys):
    out = tmp_path / "graphs" / "demo"
    code, stdout, _ = run(["build-graph", DEMO / "docs.jsonl", "--out", out, "--chunk-words", "100", "-q"], capsys)
    assert code == 0
    assert f"built graph {out}" in stdout and "documents 12" in stdout and "seconds:" in stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["chunking"]["max_words"] == 100
    assert manifest["counts"]["documents"] == 12
    assert {"documents.parquet", "chunks.parquet", "entities.parquet", "mentions.parquet", "edges.parquet",
            "entities.faiss", "chunks.faiss", "manifest.json"} <= {p.name for p in out.iterdir()}


def test_graph_info(built, capsys):
    code, stdout, _ = run(["graph-info", built, "--top", "5"], capsys)
    assert code == 0 and "entities" in stdout and "top entities" in stdout and "degree" in stdout
    code, stdout, _ = run(["graph-info", built, "--json"], capsys)
    info = json.loads(stdout)
    assert info["counts"]["documents"] == 12 and len(info["top_entities"]) == 15
    assert sum(info["degree"]["histogram"].values()) == info["counts"]["entities"]
    assert 0 < info["home_documents"] < info["counts"]["documents"]  # "The Hubble Space Telescope"; not "Juno at Jupiter"
    assert f"home documents: {info['home_documents']} of 12" in run(["graph-info", built], capsys)[1]
    # Each demo document has its own "topic"; the "source" and "license" all twelve share set none apart.
    assert info["metadata_named_documents"] == 12
    named = load_graph(built).named_in_meta
    assert "early space race" in named and "written for the judgeagent demo" not in named and "cc0-1.0" not in named


def test_sample_path_text_and_json(built, capsys):
    args = ["sample-path", built, "--question", "Which rocket launched the Rosetta spacecraft?", "--hops", "3",
            "--seed", "0"]
    code, text, _ = run(args, capsys)
    assert code == 0 and "path (" in text
    code, stdout, _ = run(args + ["--json"], capsys)
    path = json.loads(stdout)
    assert path["hops"] == 3 and path["chunk_ids"] and len(path["entities"]) == len(path["chunk_ids"])
    # the explanation printed is the path's stored fields: seed, its kind, each chunk's similarity
    assert f"seed mention: {path['seed']!r} (" in text and path["seed_kind"] in ("named", "concept", "question")
    assert len(path["similarities"]) == len(path["chunk_ids"])
    for entity, chunk_id, sim in zip(path["entities"], path["chunk_ids"], path["similarities"]):
        assert f"[{entity}] {chunk_id}  (similarity to the question {sim:.2f})" in text


def _bad_inputs(tmp_path):
    good = '{"doc_id": "a", "text": "NASA launched Voyager."}\n'
    cases = {
        "missing path": (tmp_path / "nope", [], "corpus not found"),
        "empty corpus": ("empty.jsonl", "", "has no documents"),
        "non-UTF-8": ("latin.jsonl", good.encode() + b'{"doc_id": "b", "text": "caf\xe9"}\n', "latin.jsonl:2: not valid UTF-8"),
        "malformed JSON": ("bad.jsonl", good + "{oops\n", "bad.jsonl:2: malformed JSON"),
        "duplicate ids": ("dup.jsonl", good + good, "duplicate doc_id 'a'"),
        "no text": ("notext.jsonl", '{"doc_id": "a", "text": ""}\n', "has no text"),
        "unknown model": ("ok.jsonl", good, "unknown embedding model 'no-such/model-xyz': not a local folder, not in "
                          "the Hugging Face cache, and the hub cannot be reached"),
        "bad option": ("ok2.jsonl", good, "--index must be auto, flat or hnsw"),
        "missing model folder": ("ok3.jsonl", good, "embedding model folder /nonexistent/model not found"),
    }
    extra = {"unknown model": ["--embedding-model", "no-such/model-xyz"], "bad option": ["--index", "fancy"],
             "missing model folder": ["--embedding-model", "/nonexistent/model"]}
    for name, (file, content, message) in cases.items():
        path = file if not isinstance(file, str) else tmp_path / file
        if isinstance(file, str):
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        yield pytest.param(path, extra.get(name, []), message, id=name)


@pytest.mark.parametrize("case", range(9))
def test_bad_input_one_line_error_no_graph(case, tmp_path, capsys, monkeypatch):
    # offline, a hub name that is not cached fails at once (the hub client would retry for ~75 s), online or not
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    corpus, extra, message = list(_bad_inputs(tmp_path))[case].values
    out = tmp_path / "graphs" / "g"
    code, stdout, stderr = run(["build-graph", corpus, "--out", out, "-q", *extra], capsys)
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], stderr
    assert not out.exists()
    assert not (tmp_path / "graphs").exists() or list((tmp_path / "graphs").iterdir()) == []


def test_existing_output_needs_overwrite(built, tmp_path, capsys):
    before = (built / "manifest.json").read_text()
    code, _, stderr = run(["build-graph", DEMO / "docs.jsonl", "--out", built, "-q"], capsys)
    assert code == 1 and "already exists (use --overwrite" in stderr
    assert (built / "manifest.json").read_text() == before


def test_missing_graph_and_usage_errors(tmp_path, capsys):
    code, _, stderr = run(["graph-info", tmp_path / "none"], capsys)
    assert code == 1 and stderr.strip() == f"error: graph not found: {tmp_path / 'none'}"
    code, _, _ = run(["sample-path", tmp_path], capsys)  # --question is required
    assert code == 2


def test_help_is_fast_and_does_not_load_models():
    code = ("import sys, judgeagent.cli as c; c.main(['--help']); "
            "print(sorted(m for m in ('torch', 'spacy', 'faiss', 'sentence_transformers') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.strip().endswith("[]"), result.stdout + result.stderr


@pytest.mark.parametrize("where", ["under a file", "in /proc"])
def test_unwritable_output_is_refused_before_any_work(where, tmp_path, capsys):
    if where == "under a file":
        (tmp_path / "notes.txt").write_text("mine\n")
        out, refused = tmp_path / "notes.txt" / "graph", tmp_path / "notes.txt"
    else:  # not writable even for root
        out, refused = Path("/proc/judgeagent-test/graph"), Path("/proc")
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "NASA."}\n{oops\n')  # reading it would fail: it is never read
    code, _, stderr = run(["build-graph", corpus, "--out", out, "-q"], capsys)
    expected = f"error: cannot write the graph to {out}: {refused} is not a writable folder; choose another --out"
    assert code == 1 and stderr.strip().splitlines() == [expected], stderr
    assert where != "under a file" or (tmp_path / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("where", ["read-only folder", "in /proc", "under a missing folder", "under a file"])
def test_make_mcq_refuses_an_unwritable_out_before_any_work(where, tmp_path, capsys, read_only):
    folder = tmp_path / "mine"
    folder.mkdir()
    (tmp_path / "notes.txt").write_text("mine\n")
    out, fix = {
        "read-only folder": (folder / "mcq.jsonl", f"{folder} does not take new files: make it writable"),
        "in /proc": (Path("/proc/judgeagent-mcq.jsonl"), "/proc does not take new files: make it writable"),
        "under a missing folder": (tmp_path / "missing" / "mcq.jsonl",
                                   f"its folder {tmp_path / 'missing'} does not exist: create it or choose another place"),
        "under a file": (tmp_path / "notes.txt" / "mcq.jsonl",
                         f"part of {tmp_path / 'notes.txt'} is a file, not a folder: choose another place"),
    }[where]
    if where == "read-only folder":
        read_only(folder)
    bench = tmp_path / "bad.jsonl"
    bench.write_text("{oops\n")  # reading it would fail: it is never read, nor the graph loaded
    code, stdout, stderr = run(["make-mcq", bench, "--graph", tmp_path / "no-graph", "--out", out], capsys)
    assert code == 1 and stdout == "" and "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot write {out}: ") and fix in lines[0], stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "mine", "notes.txt"]
    assert list(folder.iterdir()) == [] and (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_manifest_that_is_no_json_object_is_one_line(tmp_path, capsys):
    graph, run_folder = tmp_path / "graph", tmp_path / "run"
    for folder in (graph, run_folder):
        folder.mkdir()
        (folder / "manifest.json").write_text("[]\n")
    code, _, stderr = run(["sample-path", graph, "--question", "Which rocket?"], capsys)
    assert code == 1 and stderr.strip() == (f"error: {graph} is not a judgeagent graph: its manifest.json holds an "
                                            "array, not a JSON object: rebuild it with build-graph --overwrite")
    (graph / "manifest.json").write_text('"graph"\n')
    code, _, stderr = run(["graph-info", graph], capsys)
    assert code == 1 and "its manifest.json holds a string, not a JSON object" in stderr
    code, _, stderr = run(["report", run_folder], capsys)
    assert code == 1 and stderr.strip() == (f"error: {run_folder} is not a judgeagent run: its manifest.json holds "
                                            "an array, not a JSON object")


def test_an_empty_question_is_refused(built, capsys):
    code, stdout, stderr = run(["sample-path", built, "--question", "Which rocket?", "--question", " "], capsys)
    assert code == 1 and stdout == ""
    assert stderr.strip() == "error: question 2 is empty: give each --question some text"


@pytest.mark.parametrize("args", [
    ["build-graph", "c.jsonl", "--out", "g", "--chunk-words", "100000"],
    ["sample-path", "g", "--question", "Q?", "--hops", "1000000"],
    ["sample-path", "g", "--question", "Q?", "--seed", "-1"],
    ["evaluate", "--target", "t", "--benchmark", "b.jsonl", "--batch-size", "100000"],
    ["evaluate", "--target", "t", "--benchmark", "b.jsonl", "--rounds", "1000"],
    ["evaluate", "--target", "t", "--benchmark", "b.jsonl", "--hops", "1000"],
    ["evaluate", "--target", "t", "--benchmark", "b.jsonl", "--questions-per-round", "1000"],
    ["graph-info", "g", "--top", "0"],
])
def test_numbers_out_of_range_are_usage_errors(args, tmp_path, capsys):
    code, _, stderr = run(args, capsys)
    assert code == 2 and "Invalid value for '--" in stderr, stderr


def test_a_missing_required_option_is_a_usage_error(capsys):
    from judgeagent.cli import main

    assert main(["evaluate", "--benchmark", "x.jsonl"]) == 2
    assert "needs --target and --benchmark" in capsys.readouterr().err
    assert main(["sample-path"]) == 2  # typer's own missing argument: the same exit code


def test_sample_path_takes_a_file_of_questions_and_loads_models_once(built, capsys, tmp_path):
    questions = ["Which rocket launched the Rosetta spacecraft?", "Who chaired the Golden Record committee?"]
    listed = tmp_path / "questions.txt"
    listed.write_text("\n".join(questions) + "\n\n")
    code, stdout, _ = run(["sample-path", built, "--questions", listed, "--json"], capsys)
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert code == 0 and [r["questions"] for r in rows] == [[q] for q in questions]
    assert all(r["hops"] == 3 and r["chunk_ids"] for r in rows)
    code, text, _ = run(["sample-path", built, "--questions", listed], capsys)
    assert code == 0 and text.count("Q: ") == 2 and text.count("path (") == 2
    (tmp_path / "empty.txt").write_text("\n")
    code, _, stderr = run(["sample-path", built, "--questions", tmp_path / "empty.txt"], capsys)
    assert code == 1 and stderr.strip().startswith("error: --questions") and "one question a line" in stderr
    # A benchmark file needs no golds here (it was refused: "has no gold answer"), and says what a record lacks.
    (tmp_path / "asked.jsonl").write_text("".join(json.dumps({"question": q}) + "\n" for q in questions))
    code, stdout, _ = run(["sample-path", built, "--questions", tmp_path / "asked.jsonl", "--json"], capsys)
    assert code == 0 and [json.loads(line)["questions"] for line in stdout.splitlines()] == [[q] for q in questions]
    (tmp_path / "asked.jsonl").write_text('{"query": "Which rocket?"}\n')
    code, _, stderr = run(["sample-path", built, "--questions", tmp_path / "asked.jsonl"], capsys)
    assert code == 1 and stderr == (f"error: {tmp_path / 'asked.jsonl'}:1: no question text (a 'question' or 'input' "
                                    "field); its columns: query\n")
    (tmp_path / "latin1.txt").write_bytes("Qui a lancé Rosetta ?\n".encode("latin-1"))
    code, _, stderr = run(["sample-path", built, "--questions", tmp_path / "latin1.txt"], capsys)
    assert code == 1 and stderr == f"error: {tmp_path / 'latin1.txt'}:1: not valid UTF-8 (byte 10)\n"


def test_progress_lines_in_a_log_carry_the_elapsed_time_and_the_rate(capsys, monkeypatch):
    """What a log (nohup, CI) shows: every tenth of the way, the time since the start and the rate, never 00:00
    throughout."""
    import time

    from judgeagent.cli.fields import clock, every_tenth

    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    said = every_tenth(lambda done, total: f"episodes: {done}/{total} done")
    for done in range(1, 21):
        now[0] += 3.0
        said(done, 20)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "episodes: 2/20 done (00:06 elapsed, 0.33/s)" and lines[-1] == "episodes: 20/20 done (01:00 elapsed, 0.33/s)"
    assert clock(3725) == "1:02:05"


def test_contradictory_options_are_refused_before_anything_is_read(tmp_path, capsys):
    from judgeagent.cli import main

    bench = tmp_path / "b.jsonl"
    bench.write_text('{"qid": "q1", "question": "Q?", "answer": "a"}\n')
    code = main(["evaluate", "--resume", str(tmp_path / "run"), "--run-dir", str(tmp_path / "other")])
    err = capsys.readouterr().err
    assert code == 1 and "--resume" in err and "--run-dir names another" in err and not (tmp_path / "other").exists()
    code = main(["evaluate", "--target", "local", "--benchmark", str(bench), "--max-passage-words", "50", "--no-graph",
                 "--no-extension", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 1 and "--max-passage-words cuts the items' passages, and no item of" in err
