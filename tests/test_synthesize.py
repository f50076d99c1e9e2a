"""`judgeagent synthesize`: verified question sets from a graph, and sets aimed at a run's weak spots.

Real graphs (spaCy, MiniLM, FAISS), the real openai client against loopback servers whose interviewer
replies are scripted (what a test of orchestration and checks may fake), real files read back by our
benchmark loader and by Hugging Face `datasets`.
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.grading.text import normalise_answer
from judgeagent.models import ModelSpec
from judgeagent.models.spec import Registry
from judgeagent.models.testing import FunctionModel
from judgeagent.models.testserver import FakeServer
from judgeagent.protocols.judgeagent.synthesis import SynthesisConfig, synthesize
from judgeagent.protocols.judgeagent.synthesis.generate import SELF_CHECK_FAILED
from judgeagent.protocols.judgeagent.synthesis.select import NEAR_DUPLICATE

from .scripted import Roles, Script, kill_then_resume


def items(folder):
    return [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]


def test_a_cloze_set_is_verified_spread_and_loads_everywhere(tmp_path, mhr_graph, encoder):
    out = tmp_path / "set"
    result = synthesize(mhr_graph, out, SynthesisConfig(n=40, difficulties=("easy",)))
    rows = items(out)
    assert len(rows) == 40 == result.card["items"] and len({r["qid"] for r in rows}) == 40
    texts = dict(zip(mhr_graph.chunk_ids, mhr_graph.chunk_texts))
    for r in rows:  # the gold is the span blanked out of its own source chunk
        assert r["difficulty"] == "easy" and r["generator"] == "cloze" and r["question"].count("____") == 1
        assert all(r["answer"] in texts[c] for c in r["source_chunk_ids"])
        assert r["question"].replace("____", r["answer"]) != r["question"]
    vectors = encoder.encode([r["question"] for r in rows])
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0)
    assert similarity.max() < 0.9  # no near-duplicates
    coverage = result.card["coverage"]
    assert coverage["spread"] >= 0.8, coverage  # 40 items hold their golds in >= 32 distinct documents

    bench = load_benchmark(out / "items.jsonl")  # `evaluate --benchmark DIR/items.jsonl` reads it
    assert [i.gold for i in bench.items] == [r["answer"] for r in rows]
    assert {i.difficulty for i in bench.items} == {"easy"} and bench.items[0].supporting_doc_ids
    datasets = pytest.importorskip("datasets")
    for kind, file in (("json", "items.jsonl"), ("parquet", "items.parquet")):
        loaded = datasets.load_dataset(kind, data_files=str(out / file), split="train", cache_dir=str(tmp_path / "hf"))
        assert loaded.num_rows == 40 and loaded["qid"] == [r["qid"] for r in rows]
    assert (out / "README.md").read_text().startswith("---\nconfigs:")

    before = {f: (out / f).read_bytes() for f in ("items.jsonl", "items.parquet")}
    synthesize(mhr_graph, out, SynthesisConfig(n=40, difficulties=("easy",)))  # same settings: same set
    assert {f: (out / f).read_bytes() for f in before} == before


class Interviewer:
    """Writes one question per request; which check it fails is a function of the prompt (as a model at
    temperature 0 is), and the test knows which: good, answer in the question, too long, or a question
    the interviewer then answers wrong itself."""

    KINDS = ("good", "in_question", "too_long", "unsure")

    def __init__(self) -> None:
        self.kind: dict[str, str] = {}
        self.gold: dict[str, str] = {}
        self.served: list[str] = []

    def __call__(self, request):
        prompt = request["messages"][0]["content"]
        if "writing questions from the text fragments" in prompt:
            return self._write(prompt)
        asked = request["messages"][-1]["content"].split("Question: ", 1)[-1].split("\n")[0].strip()
        return self.gold[asked] if self.kind.get(asked) == "good" else "I do not know."

    def _write(self, prompt: str, kind: str | None = None) -> str:
        """`kind`: this one whatever the prompt (a script that needs one good question)."""
        fragments = prompt.split("Fragments:\n", 1)[1].split("\n\nWrite ", 1)[0]
        pick = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        kind = kind or self.KINDS[pick % 4]
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", fragments) if len(s.split()) > 8]
        sentence = sentences[pick % len(sentences)]
        words = [w.strip(".,;:()\"'") for w in sentence.split()]
        answer = next(w for w in reversed(words) if len(w) > 4 and w.isalpha())
        # every occurrence, in any case: the check reads the question case-folded ("Space Station ... in space")
        question = f"Which word is missing here: {re.sub(re.escape(answer), '___', sentence, flags=re.IGNORECASE)}"
        if kind == "in_question":
            question = f"What is meant by {answer} in the text about {words[0]}?"
        elif kind == "too_long":
            answer = " ".join(words[:12])
        self.kind[question], self.gold[question] = kind, answer
        self.served.append(kind)
        return json.dumps({"generated_question": [{"question": question, "answer": answer}]})


def test_model_items_pass_or_fail_each_check_as_scripted(tmp_path, demo_graph):
    script = Interviewer()
    with FakeServer(reply=script) as server:
        registry = Registry({"int": ModelSpec(name="int", base_url=server.base_url, model="m", max_concurrency=4)})
        result = synthesize(demo_graph, tmp_path / "set", SynthesisConfig(n=6, difficulties=("medium",)),
                            interviewer="int", registry=registry, cache=False)
    rows = items(tmp_path / "set")
    assert len(rows) == 6 and all(script.kind[r["question"]] == "good" for r in rows)
    assert all(r["checks"][-2:] == ["self_check", "not_near_duplicate"] for r in rows)
    medium = result.card["checks"][0]
    served = {k: script.served.count(k) for k in Interviewer.KINDS}
    assert medium["rejected"].get("answer appears in the question", 0) == served["in_question"]
    assert medium["rejected"].get("answer longer than 8 words", 0) == served["too_long"]
    assert medium["rejected"].get(SELF_CHECK_FAILED, 0) == served["unsure"]
    assert served["good"] == 6 + medium["rejected"].get(NEAR_DUPLICATE, 0)
    assert sum(served.values()) > 6  # the script did make it reject some
    readme = (tmp_path / "set" / "README.md").read_text()
    assert "| medium | answer longer than 8 words |" in readme or served["too_long"] == 0


def test_a_synthesis_that_keeps_no_item_says_why_and_writes_no_dataset(tmp_path, demo_graph):
    """Every question the interviewer writes gives its answer away: no item, a one-line error naming the checks
    that refused them, and no items.jsonl or items.parquet for a loader to choke on."""
    from judgeagent.errors import JudgeAgentError

    def leaky(request):
        return json.dumps({"generated_question": [{"question": "Is the answer Paris? Paris.", "answer": "Paris"}]})

    with FakeServer(reply=leaky) as server:
        registry = Registry({"int": ModelSpec(name="int", base_url=server.base_url, model="m")})
        with pytest.raises(JudgeAgentError, match=r"^no item passed the checks \(medium: \d+ candidates, rejected "
                                                  r"\d+ answer appears in the question\); nothing was written"):
            synthesize(demo_graph, tmp_path / "set", SynthesisConfig(n=2, difficulties=("medium",)),
                       interviewer="int", registry=registry, cache=False)
    assert not {p.name for p in (tmp_path / "set").iterdir()} & {"items.jsonl", "items.parquet", "card.json"}


def test_a_killed_synthesis_resumes_without_repeating_model_calls(tmp_path, demo_graph):
    script = Interviewer()

    def reply(messages):
        return script({"messages": messages})

    def run(models, folder):
        return synthesize(demo_graph, folder, SynthesisConfig(n=4, difficulties=("easy", "hard")),
                          interviewer=models["interviewer"], cache=False)

    done = kill_then_resume(tmp_path, run, lambda: {"interviewer": FunctionModel(reply, "scripted")},
                            "interviewer", fail_after=3)
    assert done.repeated == 0 and done.killed >= 1
    assert (tmp_path / "run" / "items.jsonl").read_bytes() == (tmp_path / "clean" / "items.jsonl").read_bytes()


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "judgeagent", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def test_from_run_aims_at_the_failed_documents_and_repeats_no_asked_question(tmp_path, demo_graph):
    from judgeagent.protocols.judgeagent.config import EvalConfig
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from judgeagent.runs import load_run

    from .conftest import DEMO

    bench = load_benchmark(DEMO / "questions.jsonl", limit=10)
    with Roles(Script(target_right={"fragment 1", "fragment 3"})) as roles:
        run = evaluate(bench, demo_graph, "tgt", interviewer="int", config=EvalConfig(batch_size=5, rounds=3),
                       run_dir=tmp_path / "run", registry=roles.registry(), cache=False)
    records = load_run(run.folder).records
    doc_of = dict(zip(demo_graph.chunk_ids, demo_graph.tables["chunks"].column("doc_id").to_pylist()))
    failed = {doc_of[c] for r in records if not r["correct"] for c in (r.get("path") or {}).get("chunk_ids", [])}
    assert failed and len(failed) < len(demo_graph.doc_ids)

    done = cli("synthesize", demo_graph.path, "--from-run", run.folder, "--n", 12, "--difficulty", "easy",
               "--out", tmp_path / "aimed", "-q")
    assert done.returncode == 0, done.stderr
    rows = items(tmp_path / "aimed")
    assert len(rows) == 12 and all(r["anchor_doc_id"] in failed for r in rows)
    on_failed = sum(bool(set(r["supporting_doc_ids"]) & failed) for r in rows) / len(rows)
    assert on_failed > len(failed) / len(demo_graph.doc_ids)  # concentrated beyond the documents' share
    asked = {normalise_answer(r["question"]) for r in records}
    assert not asked & {normalise_answer(r["question"]) for r in rows}
    assert all(r["nearest_asked_similarity"] < 0.8 and "not_in_run" in r["checks"] for r in rows)
    card = json.loads((tmp_path / "aimed" / "card.json").read_text())
    assert card["from_run"]["questions_asked"] == len(asked) and card["from_run"]["documents"]


@pytest.mark.parametrize("args, message", [
    (["--difficulty", "easy,tricky"], "--difficulty 'tricky' is not a difficulty"),
    (["--difficulty", ""], "--difficulty '' is not a difficulty; give easy, medium and/or hard"),
    (["--difficulty", "easy,medium"], "give --interviewer MODEL"),
    (["--difficulty", "easy,easy"], "difficulty listed twice"),
    (["--from-run", "nowhere", "--difficulty", "easy"], "run not found: nowhere"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, demo_graph, args, message):
    done = cli("synthesize", demo_graph.path, "--out", tmp_path / "set", "--n", 3, *args)
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "set").exists()


def test_out_must_be_new_empty_or_the_same_synthesis(tmp_path, demo_graph):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    done = cli("synthesize", demo_graph.path, "--out", tmp_path / "busy", "--n", 3, "--difficulty", "easy")
    assert done.returncode == 1 and "choose a new or empty --out" in done.stderr
    assert sorted(p.name for p in (tmp_path / "busy").iterdir()) == ["notes.txt"]
    done = cli("synthesize", demo_graph.path, "--out", tmp_path / "set", "--n", 30, "--difficulty", "easy,hard",
               "--interviewer", "local", "--dry-run")
    assert done.returncode == 0 and json.loads(done.stdout)["calls_low"] == 15 * 2
    assert not (tmp_path / "set").exists()


def test_a_synthesis_run_again_removes_what_a_killed_write_of_its_files_left(tmp_path, demo_graph):
    """SIGKILL while `write_dataset` writes leaves `.items.jsonl.tmp-<pid>` in --out (no cleanup runs): a set
    uploaded from there would carry it. The same command again removes it; a live writer's stays its own."""
    import signal

    out = tmp_path / "set"
    synthesize(demo_graph, out, SynthesisConfig(n=3, difficulties=("easy",)))
    killed, running = (subprocess.Popen(["sleep", "60"]) for _ in range(2))
    try:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        for process in (killed, running):
            (out / f".items.parquet.tmp-{process.pid}").write_bytes(b"half")
        synthesize(demo_graph, out, SynthesisConfig(n=3, difficulties=("easy",)))
        assert [p.name for p in out.iterdir() if ".tmp-" in p.name] == [f".items.parquet.tmp-{running.pid}"]
        assert len(items(out)) == 3
    finally:
        running.kill()
        running.wait()


def test_a_synthesis_work_folder_is_refused_by_every_run_command(tmp_path, demo_graph, capsys):
    """Its manifest is a run's: report, validate, view, export and evaluate --resume name it for what it is."""
    from judgeagent.cli import main

    synthesize(demo_graph, tmp_path / "set", SynthesisConfig(n=2, difficulties=("easy",)), cache=False)
    work = tmp_path / "set" / ".synthesis"
    for argv in (["report", work], ["validate", work], ["view", work], ["export", work], ["evaluate", "--resume", work]):
        code = main([str(a) for a in argv])
        err = capsys.readouterr().err
        assert code == 1 and "is the work folder of a synthesis, not a run" in err, (argv, err)
        assert str(tmp_path / "set" / "items.jsonl") in err and len(err.strip().splitlines()) == 1
    assert not (work / "viewer.html").exists() and not list(work.glob("*_judgeagent-*.json"))  # nothing written


class OneQuestion(Interviewer):
    """Writes the same question every time (the first one it wrote, good): the graph can give one item."""

    def _write(self, prompt: str, kind: str | None = None) -> str:
        if not self.served:
            return super()._write(prompt, "good")
        question = next(iter(self.kind))
        self.served.append("good")
        return json.dumps({"generated_question": [{"question": question, "answer": self.gold[question]}]})


def test_synthesize_stops_when_the_graph_gives_no_more_and_says_how_many(tmp_path, demo_graph, monkeypatch):
    """--n far above what the graph holds stops after EXHAUSTED_AFTER paths without a new item (not n x 4 paths),
    and the card says how many items it could make (#49)."""
    from judgeagent.protocols.judgeagent.synthesis import run

    monkeypatch.setattr(run, "EXHAUSTED_AFTER", 16)
    script = OneQuestion()
    with FakeServer(reply=script) as server:
        registry = Registry({"int": ModelSpec(name="int", base_url=server.base_url, model="m", max_concurrency=4)})
        result = synthesize(demo_graph, tmp_path / "set", SynthesisConfig(n=1000, difficulties=("medium",)),
                            interviewer="int", registry=registry, cache=False)
    assert result.card["items"] == 1 and len(items(tmp_path / "set")) == 1
    assert result.card["slots"] == 16 + 16  # the wave that kept it, then 16 paths with nothing new
    assert result.card["stopped"] == ("the graph gave no new item in the last 16 of 32 paths tried: it can make "
                                      "about 1 items at these settings (asked for 1000); a larger graph gives more")
