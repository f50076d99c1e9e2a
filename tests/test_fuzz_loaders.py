"""Property-based fuzzing (Hypothesis) of every native loader, the run-folder reader and the graph-folder
loader (#49): generated malformed fields, types, encodings and sizes give checked items or one
`JudgeAgentError` line, never another exception. Kept CI-small: 30-40 examples a target, no example database."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgeagent.benchmark import load_benchmark
from judgeagent.benchmarks.item import Item
from judgeagent.errors import JudgeAgentError

from .conftest import DATA
from .test_malformed_fields import ARC, GSM8K, HELLASWAG, MBPP, MEDQA, QUALITY, T2E

FUZZ = settings(max_examples=35, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
BIG = "x" * 140_000  # over csv's 131,072-character field limit
leaves = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12)
          | st.sampled_from(["", " ", "²", "A", "B", "1", "0", "-1", "10", "#### 2", "\\boxed{3}", BIG]))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=12) | st.dictionaries(st.text(max_size=6), inner,
                                                                                          max_size=4), max_leaves=16)
MATH = {"problem": "2+1?", "solution": "so \\boxed{3}", "level": "Level 2", "type": "Algebra"}
RECORDS = {"arc": ARC, "hellaswag": HELLASWAG, "mbpp": MBPP, "medqa": MEDQA, "quality": QUALITY,
           "teach2eval": T2E, "gsm8k": GSM8K, "math": MATH}


def _paths(value, prefix=()):
    """Every key or index path inside a record."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out += _paths(inner, (*prefix, index))
    return out


def _confusions(value):
    """The same content as another JSON kind: a list as its text, text as a list or an object, a number as text."""
    text = value if isinstance(value, str) else json.dumps(value)
    return [text, [text], {"A": text}, [value], {"text": value}, 1, 1.5, -1, True, None, "", BIG, [], {}]


@st.composite
def damaged(draw, record):
    """`record` with one to three of its fields (at any depth) replaced by another JSON value, or removed."""
    out = json.loads(json.dumps(record))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(out)
        if not paths:
            break
        *parent_path, last = draw(st.sampled_from(paths))
        parent = out
        for step in parent_path:
            parent = parent[step]
        action = draw(st.integers(0, 3))
        if action == 0 and isinstance(parent, dict):
            del parent[last]
        else:  # half the time a value of another JSON kind made from the old one: the likeliest slips
            parent[last] = draw(values if action == 1 else st.sampled_from(_confusions(parent[last])))
    if draw(st.integers(0, 9)) == 0:
        out = draw(values)  # not even an object
    return out


def _assert_loads_or_one_line(spec):
    try:
        loaded = load_benchmark(spec)
    except JudgeAgentError as e:
        assert str(e) and "\n" not in str(e), repr(str(e))
        return
    assert loaded.items and all(isinstance(i, Item) and isinstance(i.gold, str) and isinstance(i.question, str)
                                for i in loaded.items)
    for item in loaded.items:
        assert not item.options or all(isinstance(k, str) and isinstance(v, str) for k, v in item.options.items())


@pytest.mark.parametrize("fmt", sorted(RECORDS))
def test_a_damaged_record_loads_or_is_one_line(fmt, tmp_path):
    @FUZZ
    @given(st.lists(damaged(RECORDS[fmt]), min_size=1, max_size=3))
    def check(records):
        if fmt == "teach2eval":
            file = tmp_path / "Set.json"
            file.write_text(json.dumps(records), encoding="utf-8")
        else:
            file = tmp_path / ("1.json" if fmt == "math" and len(records) == 1 else "test.jsonl")
            text = json.dumps(records[0]) if file.suffix == ".json" else "".join(json.dumps(r) + "\n" for r in records)
            file.write_text(text, encoding="utf-8")
        _assert_loads_or_one_line(f"{fmt}:{file}")
        file.unlink()

    check()


cells = st.text(st.characters(codec="utf-8"), max_size=20) | st.sampled_from(["A", "B", "2", "", BIG, "\x00", '"'])


@pytest.mark.parametrize("fmt", ["mmlu", "ceval"])
def test_damaged_csv_rows_load_or_are_one_line(fmt, tmp_path):
    header = [["id", "question", "A", "B", "C", "D", "answer"]] if fmt == "ceval" else []
    name = "law_val.csv" if fmt == "ceval" else "law_test.csv"

    @FUZZ
    @given(st.lists(st.lists(cells, min_size=0, max_size=8), min_size=1, max_size=4), st.booleans())
    def check(rows, raw):
        buffer = io.StringIO()
        csv.writer(buffer).writerows(header + rows)
        text = buffer.getvalue()
        if raw:  # not always written by csv: unbalanced quotes, stray NULs
            text = text.replace('""', '"', 1)
        (tmp_path / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        _assert_loads_or_one_line(f"{fmt}:{tmp_path / name}")

    check()


@pytest.mark.parametrize("fmt", sorted(RECORDS) + ["mmlu", "ceval"])
def test_bytes_that_are_no_text_are_one_line(fmt, tmp_path):
    @FUZZ
    @given(st.binary(max_size=200))
    def check(data):
        file = tmp_path / ("x_val.csv" if fmt in ("mmlu", "ceval") else "Set.json" if fmt == "teach2eval"
                           else "test.jsonl")
        file.write_bytes(data)
        _assert_loads_or_one_line(f"{fmt}:{file}")

    check()


def test_a_damaged_iwslt_archive_is_one_line(tmp_path):
    texts = DATA / "papers" / "iwslt2017" / "archive" / "2017-01-ted-test" / "texts"
    source = (texts / "de" / "en" / "de-en.tgz").read_bytes()
    (tmp_path / "en-de.tgz").write_bytes((texts / "en" / "de" / "en-de.tgz").read_bytes())

    @settings(FUZZ, max_examples=20)
    @given(st.integers(0, len(source) - 1), st.integers(0, 255), st.booleans())
    def check(at, byte, cut):
        data = source[:at] if cut else source[:at] + bytes([byte]) + source[at + 1:]
        (tmp_path / "de-en.tgz").write_bytes(data)
        _assert_loads_or_one_line(f"iwslt:{tmp_path / 'de-en.tgz'}#tst2016")

    check()


# --- folders: a graph's and a run's manifest, hand-edited --------------------------------------------


@pytest.fixture(scope="module")
def graph_copy(demo_graph, tmp_path_factory):
    return Path(shutil.copytree(demo_graph.path, tmp_path_factory.mktemp("fuzz") / "g"))


def test_a_damaged_graph_manifest_loads_or_is_one_line(graph_copy):
    from judgeagent import load_graph

    manifest = json.loads((graph_copy / "manifest.json").read_text(encoding="utf-8"))

    @settings(FUZZ, max_examples=40)
    @given(damaged(manifest))
    def check(edited):
        (graph_copy / "manifest.json").write_text(json.dumps(edited), encoding="utf-8")
        try:
            load_graph(graph_copy)
        except JudgeAgentError as e:
            assert "\n" not in str(e)

    check()


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A finished JudgeAgent run of 3 questions, from scripted loopback models (tests/scripted.py)."""
    from judgeagent.cli.main import main
    from tests.scripted import Roles, Script

    mhr = DATA / "multihop_rag" / "small.questions.jsonl"
    script = Script(target_right={"Federal", "Google"})
    for item in load_benchmark(mhr).items:
        script.golds[item.question] = item.gold
    folder = tmp_path_factory.mktemp("fuzz")
    with Roles(script) as roles:
        config = roles.write_config(folder / "judgeagent.toml")
        assert main(["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark", str(mhr), "--no-extension",
                     "--limit", "3", "--run-dir", str(folder / "run"), "--config", str(config), "--no-cache",
                     "-q"]) == 0
    return folder / "run"


@pytest.mark.parametrize("name", ["manifest.json", "summary.json"])
def test_a_damaged_run_manifest_or_summary_is_reported_or_one_line(run_folder, name, capsys):
    from judgeagent.cli.main import main

    original = json.loads((run_folder / name).read_text(encoding="utf-8"))

    @settings(FUZZ, max_examples=15)
    @given(damaged(original))
    def check(edited):
        (run_folder / name).write_text(json.dumps(edited), encoding="utf-8")
        for command in (["report", str(run_folder)], ["view", str(run_folder)]):
            code = main(command)
            err = capsys.readouterr().err
            assert code in (0, 1) and "Traceback" not in err
            assert code == 0 or len([x for x in err.splitlines() if x.startswith("error: ")]) == 1, err

    try:
        check()
    finally:
        (run_folder / name).write_text(json.dumps(original), encoding="utf-8")


@pytest.mark.parametrize("name,edit,says", [
    ("summary.json", lambda s: s.update(overall_score="0.5"), "summary.json: field 'overall_score' should be a number, got a string"),
    ("summary.json", lambda s: s["accuracy"]["all"].pop("n"), "summary.json: field 'accuracy.all.n' is missing"),
    ("manifest.json", lambda m: m["models"].pop("interviewer"), "manifest.json: field 'models.interviewer' is missing"),
    ("manifest.json", lambda m: m["config"].update(seed=[1]), "manifest.json: field 'config.seed'"),
    ("manifest.json", lambda m: m["judge_calibration"].pop("policy"), "field 'judge_calibration.policy' is missing"),
    ("manifest.json", lambda m: m["judge_calibration"].update(by_kind=json.dumps(m["judge_calibration"]["by_kind"])),
     "field 'judge_calibration.by_kind'"),
])
def test_report_names_a_damaged_field_found_by_the_fuzzer(run_folder, name, edit, says, capsys):
    """Found by the run fuzzer above: each was a KeyError or TypeError in the middle of report."""
    from judgeagent.cli.main import main

    original = (run_folder / name).read_text(encoding="utf-8")
    data = json.loads(original)
    edit(data)
    (run_folder / name).write_text(json.dumps(data), encoding="utf-8")
    try:
        assert main(["report", str(run_folder)]) == 1
    finally:
        (run_folder / name).write_text(original, encoding="utf-8")
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err
