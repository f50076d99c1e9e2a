"""The learned answer-equivalence step inside a run (#46): by default the shipped `evouna-tq` weights, else those
given (`RunRequest.equivalence_weights`, `evaluate --equivalence-weights`; `none`: off), a run grades what no rule
decides with it, names the file and its sha256 in its manifest, refuses to resume with other weights, says in one
line when the step is off, and its report shows the `learned` row; a run folder begun before the default (its
manifest names no weights) resumes and grades without the step. Scripted models (FunctionModel) for the orchestration; the real MiniLM computes the cosine."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from judgeagent.benchmark import Benchmark, Item
from judgeagent.config import DEFAULT_EMBEDDING_MODEL
from judgeagent.errors import JudgeAgentError
from judgeagent.grading import equivalence as eq
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from tests.test_interviewer import interviewer

# Replies no rule decides (tests/test_equivalence.py): the gold inside a longer sentence naming it twice, and
# another poet.
THORNTON = Item("thornton", "Which British politician is married to Justine Thornton?", "Ed Miliband",
                aliases=("Red Ed",))
KEATS = Item("keats", "Who wrote the poem Written in the Cottage Where Burns Was Born?", "John Keats",
             aliases=("Keats",))
REPLIES = {THORNTON.question: ("Justine Thornton is the wife of British politician Ed Miliband. They married in "
                               "2011 and Ed Miliband later led the Labour Party."),
           KEATS.question: "The poem was written by Walter Scott in 1818."}


def target(messages):
    first = next(m["content"] for m in messages if m["role"] == "user")
    return next((a for q, a in REPLIES.items() if q in first), "I do not know.")


def weights(path: Path, passed: bool = True, threshold: float = 0.5) -> Path:
    """A weights file whose step says "right" when the reply holds the gold's words (gold_recall), else "wrong"."""
    n = len(eq.FEATURES)
    w = np.zeros(n + 1)
    w[0], w[1 + eq.FEATURES.index("gold_recall")] = -5.0, 10.0
    note = f"threshold {threshold:.3f} on 120 test pairs" if passed else "calibration failed: 3 wrong answers held out"
    cal = eq.Calibration(threshold, 0.05, 0.0 if passed else float("nan"), 1.0, 1.0, 60, 60 if passed else 3,
                         passed, note)
    eq.Equivalence(w, np.zeros(n), np.ones(n), cal, "test pairs").save(path)
    return path


def run(folder: Path, weights_file: Path | str | None, notes: list[str] | None = None):
    models = {"target": FunctionModel(target, "tgt"), "interviewer": FunctionModel(interviewer, "int"),
              "judge": FunctionModel(lambda m: "{}", "jdg")}
    return run_protocol("interviewer", Benchmark(Path("q.jsonl"), [THORNTON, KEATS]), models=models,
                        config={"judge_policy": "off", "followups": 0, "summary": False, "resamples": 200},
                        run_dir=folder, cache=False, equivalence_weights=weights_file,
                        notify=notes.append if notes is not None else None)


def graded(folder: Path) -> dict[str, tuple[float, str]]:
    """The interviewee's graded answer per item: (value, verdict method)."""
    out = {}
    for line in (folder / "records.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if "correct" in rec["scores"]:
            out[rec["episode"].rsplit("-", 1)[1]] = (rec["scores"]["correct"]["value"],
                                                     rec["scores"]["correct"]["method"])
    return out


@pytest.fixture
def minilm(encoder):
    """The session's MiniLM computes the step's cosine (loaded once for every test that runs the step)."""
    eq._Cosine._encoders.setdefault(DEFAULT_EMBEDDING_MODEL, encoder)


def test_a_run_grades_with_given_weights_records_them_and_refuses_a_resume_with_others(tmp_path, minilm):
    file = weights(tmp_path / "eq.json")
    result = run(tmp_path / "run", file)
    assert graded(result.folder) == {"thornton": (1.0, "learned"), "keats": (0.0, "learned")}
    record = json.loads((result.folder / "manifest.json").read_text())["equivalence"]
    assert record["weights"] == str(file) and record["used"] is True and "learned step on" in record["note"]
    assert record["sha256"] == hashlib.sha256(file.read_bytes()).hexdigest()
    # retrained weights in the same file: another configuration, refused by name
    weights(file, threshold=0.6)
    with pytest.raises(JudgeAgentError, match=r"another configuration \(learned-step weights .*eq.json"):
        run(tmp_path / "run", file)
    # a run with the step off is another run too: its answers stay undecided
    plain = run(tmp_path / "plain", "none")
    assert "equivalence" not in json.loads((plain.folder / "manifest.json").read_text())
    assert {m for _, m in graded(plain.folder).values()} == {"undecided"}


def test_weights_whose_calibration_failed_leave_the_step_off_and_say_so_once(tmp_path, minilm):
    notes: list[str] = []
    result = run(tmp_path / "run", weights(tmp_path / "eq.json", passed=False), notes)
    assert [n for n in notes if "learned step" in n] == [
        "warning: learned step off: calibration failed: 3 wrong answers held out"]
    assert {m for _, m in graded(result.folder).values()} == {"undecided"}
    assert json.loads((result.folder / "manifest.json").read_text())["equivalence"]["used"] is False
    with pytest.raises(JudgeAgentError, match="not found: give a weights file"):
        run(tmp_path / "other", tmp_path / "missing.json")


def test_regrading_needs_the_same_weights_bytes(tmp_path):
    file = weights(tmp_path / "eq.json")
    record = eq.for_run(file).record
    assert record is not None and eq.for_manifest(record) is not None
    assert eq.for_manifest(None) is None and eq.for_manifest({**record, "used": False}) is None
    weights(file, threshold=0.7)
    with pytest.raises(JudgeAgentError, match="has changed since"):
        eq.for_manifest(record)
    assert eq.for_run("none").record is None and eq.for_run("None").step is None  # off: nothing recorded
    default = eq.for_run(None).record
    assert default is not None and default["weights"] == str(eq.NAMED["evouna-tq"]) and default["used"]


def test_resume_refuses_other_weights_named_on_the_command_line(tmp_path):
    from judgeagent.cli.evaluate import _same_weights

    args = {"resume": tmp_path / "run", "equivalence_weights": tmp_path / "b.json"}
    with pytest.raises(JudgeAgentError, match="graded with .*a.json and --equivalence-weights names .*b.json"):
        _same_weights(args, {"equivalence_weights"}, {"equivalence_weights": str(tmp_path / "a.json")})
    with pytest.raises(JudgeAgentError, match="graded with no learned-step weights"):
        _same_weights(args, {"equivalence_weights"}, {})
    _same_weights({**args, "equivalence_weights": tmp_path / "a.json"}, {"equivalence_weights"},
                  {"equivalence_weights": str(tmp_path / "a.json")})
    _same_weights(args, set(), {"equivalence_weights": str(tmp_path / "a.json")})  # not given: the run's own
    # a run begun with the default names its weights in its manifest only: the same named again is no change
    shipped = str(eq.NAMED["evouna-tq"])
    _same_weights({**args, "equivalence_weights": Path("evouna-tq")}, {"equivalence_weights"}, {}, shipped)
    with pytest.raises(JudgeAgentError, match=r"graded with .*equivalence_evouna_tq.json and .* names none"):
        _same_weights({**args, "equivalence_weights": Path("none")}, {"equivalence_weights"}, {}, shipped)
    # a run begun without the step (before #46, or with none): none is no change
    _same_weights({**args, "equivalence_weights": Path("none")}, {"equivalence_weights"}, {})


def test_the_report_shows_the_learned_row_and_the_weights():
    from judgeagent.protocols.judgeagent.report.judging import Judging, judging_markdown

    learned = {"weights": "/w/eq.json", "sha256": "ab" * 32, "used": True, "note": "learned step on (threshold 0.5)"}
    text = "\n".join(judging_markdown(Judging({"exact": 3, "learned": 2}, None, 0, 5, [], learned)))
    assert "| learned | 2 | no rule decided and no judge is used: the learned equivalence step" in text
    assert "Learned equivalence step (on): learned step on (threshold 0.5); weights `/w/eq.json`, sha256 " \
           "`abababababababab`." in text
    assert "Learned equivalence step" not in "\n".join(judging_markdown(Judging({"exact": 3}, None, 0, 3, [])))


def test_every_protocol_that_vets_a_checker_gives_it_the_runs_learned_step():
    """JudgeAgent, KIEval and the Interviewer build their checkers with `vetted_checker`: each call passes the
    run's step (`ctx.learned`), or a protocol would grade without the weights its manifest names."""
    import ast

    import judgeagent

    calls = []
    for path in (Path(judgeagent.__file__).parent / "protocols").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "vetted_checker":
                given = {k.arg: ast.unparse(k.value) for k in node.keywords}
                calls.append((path.parent.name, given.get("equivalence")))
    assert sorted(calls) == [("interviewer", "ctx.learned"), ("judgeagent", "ctx.learned"),
                             ("kieval", "ctx.learned")]


def test_by_default_a_run_grades_with_the_shipped_weights_and_records_them(tmp_path, minilm):
    # #46: the EVOUNA TriviaQA weights are the default; both replies are ones no rule decides (test_equivalence.py)
    result = run(tmp_path / "run", None)
    assert graded(result.folder) == {"thornton": (1.0, "learned"), "keats": (0.0, "learned")}
    record = json.loads((result.folder / "manifest.json").read_text())["equivalence"]
    assert record["used"] and record["weights"] == str(eq.NAMED["evouna-tq"])
    assert record["sha256"] == hashlib.sha256(eq.NAMED["evouna-tq"].read_bytes()).hexdigest()
    assert run(tmp_path / "run", "evouna-tq").resumed  # the default named: the same run
    with pytest.raises(JudgeAgentError, match=r"\(evouna-tq\), or none"):
        eq.for_run(tmp_path / "evouna-tk")


def test_a_run_begun_without_the_step_resumes_and_grades_without_it(tmp_path, minilm):
    """A folder as runs made before #46 wrote it (no `equivalence` in its manifest: the step was off), stopped
    after its first episode: resumed with no weights named, it keeps its identity and grades without the step."""
    folder = run(tmp_path / "run", "none").folder
    manifest = json.loads((folder / "manifest.json").read_text())
    assert "equivalence" not in manifest
    kept = [line for line in (folder / "episodes.jsonl").read_text().splitlines() if "keats" not in line]
    (folder / "episodes.jsonl").write_text("".join(f"{line}\n" for line in kept))
    records = (folder / "records.jsonl").read_text().splitlines()
    (folder / "records.jsonl").write_text("".join(f"{line}\n" for line in records if "keats" not in line))
    (folder / "summary.json").unlink()
    (folder / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    result = run(folder, None)
    assert not result.summary.get("error") and len((folder / "episodes.jsonl").read_text().splitlines()) == 2
    assert graded(folder) == {"thornton": (0.0, "undecided"), "keats": (0.0, "undecided")}
    after = json.loads((folder / "manifest.json").read_text())
    assert "equivalence" not in after and after["config_id"] == manifest["config_id"]
    with pytest.raises(JudgeAgentError, match="learned-step weights none there"):
        run(folder, "evouna-tq")  # naming weights is another configuration, refused as before


def test_only_protocols_that_grade_free_text_take_or_record_the_step():
    from judgeagent.protocols import PROTOCOLS
    from judgeagent.protocols.base import RunRequest
    from judgeagent.protocols.runner import learned_step

    takes = {name for name, p in PROTOCOLS.items() if learned_step(p, RunRequest(
        Benchmark(Path("q.jsonl"), []), None, {}, None)).record is not None}
    assert takes == {"judgeagent", "kieval", "interviewer"}


def test_a_judge_that_fails_calibration_says_the_step_settles_the_rest(tmp_path):
    import asyncio

    from judgeagent.config import CheckerConfig
    from judgeagent.grading.calibration import vetted_checker

    yes = FunctionModel(lambda m: '{"reasoning": "It matches.", "correct": true}', "yes")
    step = eq.read(weights(tmp_path / "eq.json"))
    items = [THORNTON, KEATS, Item("moon", "Who first walked on the Moon?", "Neil Armstrong")]
    settings = CheckerConfig(judge_policy="calibrated")
    with_step = asyncio.run(vetted_checker(settings, yes, items, equivalence=step))
    without = asyncio.run(vetted_checker(settings, yes, items))
    assert not with_step[1].used and with_step[0].judge is None and with_step[0].equivalence is step
    assert "not used, undecided answers settled by the learned equivalence step" in with_step[1].note
    assert "not used, undecided answers settled by token F1" in without[1].note


def test_the_default_step_accepts_no_reply_that_hedges_or_negates(minilm):
    """Pairs of the project's own labelled file (bench/data/verdicts.jsonl) that no rule decides and the EVOUNA
    weights score above their threshold: a hedge between two names and a negation of the gold are not accepted;
    the plain answer is."""
    step = eq.load()[0]
    q = "Which astronomer chaired the committee that selected the contents of the Voyager Golden Record?"
    for reply in ("It was either Carl Sagan or Frank Drake.", "It was not Carl Sagan."):
        v = step.decide(q, ["Carl Sagan"], reply)
        assert v.method == "learned" and not v.correct and "hedges or negates" in v.reason, (reply, v)
        assert v.score >= step.calibration.threshold
    assert step.decide(q, ["Carl Sagan"], "The committee was chaired by Carl Sagan.").correct


def test_the_step_shares_the_processs_minilm(encoder, monkeypatch):
    """The step loads no second MiniLM where the process holds one (a graph's sampler, the session's encoder)."""
    from judgeagent import embedding

    monkeypatch.setattr(eq._Cosine, "_encoders", {})
    held = embedding.loaded(DEFAULT_EMBEDDING_MODEL)  # the session's `encoder`, or one made before it and alive
    assert held is not None and held.model is not None
    eq._Cosine.pairs(["a"], ["b"])
    assert eq._Cosine._encoders[DEFAULT_EMBEDDING_MODEL] is held


def test_the_step_decides_off_the_event_loop(minilm):
    """#46: the step's MiniLM encode runs on a worker thread, so another coroutine of the run ticks while a decide
    is in flight (on the loop's thread the tick would wait for the decide, and this decide for the tick); the
    verdict is the step's own."""
    import asyncio
    import threading

    from judgeagent.config import CheckerConfig
    from judgeagent.grading.answers import AnswerChecker

    step, ticked, seen = eq.load()[0], threading.Event(), []

    class Waiting:
        """The real step, which first waits (up to 3 s) for the loop to tick."""

        def decide(self, *args):
            seen.append(ticked.wait(3))
            return step.decide(*args)

    async def tick():
        await asyncio.sleep(0)
        ticked.set()

    async def both():
        checker = AnswerChecker(CheckerConfig(), None, equivalence=Waiting())
        return (await asyncio.gather(checker.check(THORNTON.question, THORNTON.golds, REPLIES[THORNTON.question]),
                                     tick()))[0]

    verdict = asyncio.run(both())
    assert seen == [True]
    assert verdict == step.decide(THORNTON.question, list(THORNTON.golds), REPLIES[THORNTON.question])
    assert verdict.method == "learned" and verdict.correct


def test_records_are_the_same_bytes_with_the_step_on_a_worker_thread(tmp_path, minilm, monkeypatch):
    """The same run with the step's decide on the event loop's thread (as before #46 moved it) writes the same
    records, byte for byte, and the same episodes and summary. The records' order in the file follows which
    episode finishes first, as it does with any model whose replies take time: with the decide off the loop the
    other episode's records may come first."""
    from types import SimpleNamespace

    from judgeagent.grading import answers

    def files(folder: Path) -> tuple[list[bytes], bytes, bytes]:
        return (sorted((folder / "records.jsonl").read_bytes().splitlines()),
                (folder / "episodes.jsonl").read_bytes(), (folder / "summary.json").read_bytes())

    threaded = files(run(tmp_path / "threaded", None).folder)

    async def inline(call, *args):
        return call(*args)

    monkeypatch.setattr(answers, "asyncio", SimpleNamespace(to_thread=inline))
    on_loop = files(run(tmp_path / "on-loop", None).folder)
    assert threaded == on_loop and any(b'"learned"' in line for line in threaded[0])
