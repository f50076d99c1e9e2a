"""KIEval: the score arithmetic by hand, the protocol end to end with scripted models (verification, early
stop, resume, rescore with agreement), bad evaluator output, and one run with the embedded model."""
import json
import math
from pathlib import Path

import pytest

from judgeagent.benchmark import Benchmark, Item
from judgeagent.models.cache import journal_calls
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import PROTOCOLS, run_protocol
from judgeagent.protocols.kieval.prompts import EVALUATOR_SYSTEM, INTERACTOR_SYSTEM
from judgeagent.protocols.kieval.report import conversation_scores, numbers
from judgeagent.protocols.kieval.rescore import rescore
from judgeagent.protocols.kieval.rubric import ASPECTS, decay_weights
from tests.scripted import kill_then_resume

# --- the score arithmetic -------------------------------------------------------------------------------


def ev(score=3, stop=False, reason="none", overall=None):
    return {**{a: {"comment": "c", "score": score} for a in ASPECTS}, "overall_comment": "o",
            "overall_score": score if overall is None else overall, "stop_conversation": stop, "stop_reason": reason}


def test_linear_all_strong_is_one_and_all_poor_is_zero():
    assert conversation_scores([ev(4)] * 5, 5, "linear") == {k: pytest.approx(1.0) for k in (*ASPECTS, "overall")}
    assert conversation_scores([ev(1)] * 5, 5, "linear") == {k: pytest.approx(0.0) for k in (*ASPECTS, "overall")}


def test_linear_weights_and_normalisation_by_hand():
    # three rounds scored 4, 3, 2: normalised 1, 2/3, 1/3 under weights e^-1/3, e^-2/3, e^-1
    w = [math.exp(-1 / 3), math.exp(-2 / 3), math.exp(-1)]
    assert decay_weights(3) == pytest.approx(w)
    expected = (w[0] * 1 + w[1] * 2 / 3 + w[2] * 1 / 3) / sum(w)
    assert conversation_scores([ev(4), ev(3), ev(2)], 3, "linear")["accuracy"] == pytest.approx(expected)
    assert expected == pytest.approx(0.7394, abs=1e-4)


def test_linear_an_early_stop_after_turn_one_counts_the_rest_as_poorest():
    w = decay_weights(5)
    scores = conversation_scores([ev(4, stop=True, reason="off_topic"), ev(4)], 5, "linear")  # a turn after a stop never counts
    assert scores["logic"] == pytest.approx(w[0] / sum(w)) and scores["logic"] == pytest.approx(0.2868, abs=1e-4)


def test_linear_failed_turns_count_as_poorest_and_an_unevaluated_conversation_has_no_score():
    assert conversation_scores([ev(4), None], 2, "linear")["overall"] == pytest.approx(math.exp(-0.5) / (math.exp(-0.5) +
                                                                                                   math.exp(-1)))
    assert conversation_scores([None, None], 2, "linear") is None


def test_linear_run_numbers_by_hand():
    def row(qid, evaluations, correct, stop="none"):
        rounds = [{"round": i, "evaluation": e, "stop_reason": "none"} for i, e in enumerate(evaluations, 1)]
        return {"qid": qid, "verified": True, "correct": correct, "rounds": rounds, "turns": [], "stop_reason": stop,
                "valid_rounds": len(rounds) - (stop != "none")}

    rows = [row("a", [ev(4), ev(4)], True), row("b", [ev(1, stop=True, reason="empty_response")], False, "empty_response"),
            row("c", [ev(3), None], True), {"qid": "d", "verified": False, "dropped": "interactor_wrong"}]
    s = numbers(rows, 2, "linear")
    w1, w2 = math.exp(-0.5), math.exp(-1)
    assert s["kieval"]["accuracy"] == pytest.approx((1.0 + 0.0 + (w1 * 2 / 3) / (w1 + w2)) / 3)
    assert s["valid_rounds"] == pytest.approx((2 + 0 + 2) / 3) and s["benchmark_accuracy"] == pytest.approx(2 / 3)
    assert s["early_stops_by_reason"] == {"empty_response": 1} and s["dropped_by_reason"] == {"interactor_wrong": 1}
    assert s["failed_evaluations"] == 1 and s["evaluations"] == 5
    assert s["turn_means"]["accuracy"] == pytest.approx((4 + 4 + 1 + 3) / 4)
    assert [s["examples"][k]["qid"] for k in ("best", "median", "worst")] == ["a", "c", "b"]


# --- the paper's scoring: the authors' numbers ------------------------------------------------------------
# Source: zhuohaoyu/KIEval@0543f69, get_scores.py (`score_mapper` 1/2/3/4 -> 1/3/7/10, `weighted_mean` with
# weights exp(-0.2 j) over the turns present, x10); figures as issue #27 computed them with that code.

@pytest.mark.parametrize("turns, authors", [
    ([4], 100.0),  # four, then the evaluator stops: a perfect conversation so far
    ([4, 4, 3, 3, 2], 80.5),
    ([1, 1, 1, 1, 1], 10.0),
])
def test_paper_scoring_gives_the_authors_numbers(turns, authors):
    evaluations = [ev(s) for s in turns[:-1]] + [ev(turns[-1], stop=len(turns) == 1, reason="off_topic")]
    scores = conversation_scores(evaluations, 5)
    assert 100 * scores["overall"] == pytest.approx(authors, abs=0.05)


@pytest.mark.parametrize("turns, rounds, authors", [
    ([4, 3, 2], 3, 71.28),  # (10 + 7 e^-0.2 + 3 e^-0.4) / (1 + e^-0.2 + e^-0.4) x 10; exp(-i/3) would give 74.24
    ([4] * 5 + [1] * 5, 10, 75.80),  # exp(-i/10) would give 66.02
])
def test_paper_decay_is_the_authors_at_any_round_count(turns, rounds, authors):
    """The authors' weighted_mean (get_scores.py) weighs the j-th turn exp(-0.2 j) whatever the round count. Seen to
    fail with the weights exp(-i/n) of the planned rounds (the scoring before issue 45: 74.24 and 66.02)."""
    scores = conversation_scores([ev(s) for s in turns], rounds)
    assert 100 * scores["overall"] == pytest.approx(authors, abs=0.005)


def test_paper_scoring_leaves_failed_turns_out_and_counts_the_stopping_turn_as_a_round():
    assert conversation_scores([ev(4), None, ev(4)], 5)["accuracy"] == pytest.approx(1.0)
    def row(qid, evaluations, stop="none"):
        rounds = [{"round": i, "evaluation": e, "stop_reason": "none"} for i, e in enumerate(evaluations, 1)]
        return {"qid": qid, "verified": True, "correct": True, "rounds": rounds, "turns": [], "stop_reason": stop,
                "valid_rounds": len(rounds) - (stop != "none")}

    rows = [row("a", [ev(4), ev(2, stop=True, reason="off_topic")], "off_topic"), row("b", [ev(3)] * 3)]
    paper, linear = numbers(rows, 3), numbers(rows, 3, "linear")
    assert paper["valid_rounds"] == pytest.approx((2 + 3) / 2) and linear["valid_rounds"] == pytest.approx((1 + 3) / 2)
    assert paper["scoring"] == {"scoring": "paper", "decay": True, "early_stop": True}


def test_the_ablations_switch_off_the_decay_and_the_early_stop():
    turns = [ev(4), ev(2, stop=True, reason="off_topic"), ev(2)]
    assert conversation_scores(turns, 3, decay=False)["overall"] == pytest.approx((1.0 + 0.3) / 2)
    assert conversation_scores(turns, 3, decay=False, early_stop=False)["overall"] == pytest.approx((1.0 + 0.3 + 0.3) / 3)
    w = [1.0, math.exp(-0.2)]  # the authors' weights over the two turns before the stop, at any round count
    assert conversation_scores(turns, 3)["overall"] == pytest.approx((w[0] + 0.3 * w[1]) / (w[0] + w[1]))


# --- the protocol with scripted models ------------------------------------------------------------------

GOLDS = {"q-strong": ("jazz", "Montreux"), "q-weak": ("film", "Cannes"), "q-drift": ("book", "Frankfurt"),
         "q-unknown": ("lantern", "Pingxi"), "q-judgeless": ("kite", "Weifang")}


def bench():
    return Benchmark(Path("scripted.jsonl"), [Item(q, f"Which city hosts the famous {t} festival every year?", g)
                                              for q, (t, g) in GOLDS.items()])


def thing_of(text):
    return next(t for t, _ in GOLDS.values() if t in text)


def gold_of(text):
    return next(g for t, g in GOLDS.values() if t in text)


def candidate(messages):
    thing = thing_of(messages[1]["content"])
    turn = sum(1 for m in messages if m["role"] == "assistant")
    if turn == 0:
        return f"{gold_of(messages[1]['content']) if thing != 'film' else 'Paris'}\nIt is well known."
    if thing == "book" and turn == 2:
        return "Let me tell you about my favourite cooking recipes instead."
    return f"{'Strong' if thing == 'jazz' else 'Weak'} reply {turn} about the {thing} festival."


def interactor(messages):
    user = messages[-1]["content"]
    if messages[0]["content"].startswith("Answer the question"):
        return "Beijing" if "lantern" in user else gold_of(user)
    asked = user.count("[BEGIN INTERACTOR]")
    return f"Question {asked}: why does the {thing_of(user)} festival draw visitors?"


def latest_reply(user):
    return user.rsplit("[BEGIN CANDIDATE]\n", 1)[1].split("\n[END CANDIDATE]")[0]


def evaluator(scores=None, out_of_range=()):
    """Scores by the latest reply: Strong 4, Weak 2, cooking 1 and a stop; `scores` overrides them."""
    scores = {"Strong": 4, "Weak": 2, "cooking": 1, **(scores or {})}

    def reply(messages):
        user = messages[-1]["content"] if messages[-1]["content"].startswith("Conversation") else messages[1]["content"]
        if messages[0]["content"].startswith("Answer the question"):
            return "Qingdao" if "kite" in user else gold_of(user)
        latest = latest_reply(user)
        score = next(v for k, v in scores.items() if k in latest)
        if any(word in latest for word in out_of_range):
            score = 5
        stop = "cooking" in latest
        return json.dumps(ev(score, stop=stop, reason="off_topic" if stop else "none"))

    return reply


def models(judge=None):
    return {"candidate": FunctionModel(candidate, "cand"), "interactor": FunctionModel(interactor, "int"),
            "evaluator": FunctionModel(judge or evaluator(), "eval")}


OPTS = {"rounds": 3, "judge_policy": "off", "scoring": "linear"}  # the hand-computed figures below are linear


def rows_of(folder):
    return {r["qid"]: r for r in map(json.loads, (folder / "episodes.jsonl").read_text().splitlines())}


def test_kieval_end_to_end(tmp_path):
    m = models()
    result = run_protocol("kieval", bench(), models=m, config=OPTS, run_dir=tmp_path / "run", cache=False)
    rows, s = rows_of(result.folder), result.summary
    # verification drops what the interactor or the evaluator gets wrong, naming which
    assert rows["q-unknown"]["dropped"] == "interactor_wrong" and rows["q-judgeless"]["dropped"] == "evaluator_wrong"
    assert "rounds" not in rows["q-unknown"] and s["dropped_by_reason"] == {"interactor_wrong": 1, "evaluator_wrong": 1}
    # the early stop is honoured: no question after the off-topic reply in round 2
    assert [x["stop_reason"] for x in rows["q-drift"]["rounds"]] == ["none", "off_topic"]
    assert rows["q-drift"]["valid_rounds"] == 1 and len(rows["q-strong"]["rounds"]) == 3
    asked = [c for c in m["interactor"].calls if "book" in c[-1]["content"] and "Ask your next" in c[-1]["content"]]
    assert len(asked) == 2
    # scores by hand: all 4 -> 1.0, all 2 -> 1/3, [2, 1 and stop] over 3 rounds
    w = decay_weights(3)
    assert rows["q-strong"]["correct"] and not rows["q-weak"]["correct"]
    assert s["kieval"]["accuracy"] == pytest.approx((1.0 + 1 / 3 + (w[0] / 3) / sum(w)) / 3)
    assert s["valid_rounds"] == pytest.approx((3 + 3 + 1) / 3) and s["early_stops_by_reason"] == {"off_topic": 1}
    assert s["benchmark_accuracy"] == pytest.approx(2 / 3) and s["failed_evaluations"] == 0
    # the interactor sees the item and the conversation; the evaluator never sees the gold
    assert all("never reveal it): Frankfurt" in c[-1]["content"] for c in asked)
    assert "Question 1: why does the book" in asked[1][-1]["content"] and "cooking" not in asked[1][-1]["content"]
    scored = [c for c in m["evaluator"].calls if c[-1]["content"].startswith("Conversation")]
    assert scored and not any("Reference answer" in c[-1]["content"] for c in scored)
    report = (result.folder / "report.md").read_text()
    assert "| accuracy |" in report and "off_topic" in report and "The best conversation (q-strong)" in report
    assert "The worst conversation" in report and "█" in report
    # the judge's calibration is the report's last section: with `judge_policy=off`, none was run, and it says why
    assert report[report.index("## Judge calibration"):report.index("## Usage")] == (
        "## Judge calibration\n\nJudge calibration: not run (judge policy off: deterministic rules only).\n\n")
    manifest = json.loads((result.folder / "manifest.json").read_text())
    assert set(manifest["models"]) == {"candidate", "interactor", "evaluator"}
    assert manifest["models"]["evaluator"]["name"] == "eval" and s["evaluator"] == "eval"
    assert {"python", "judgeagent", "openai", "spacy"} <= set(manifest["versions"])
    # the whole conversation of every call is in the run's folder: the system prompts included
    calls = journal_calls(result.folder)
    firsts = {(c["source"], c["messages"][0]["content"]) for c in calls if c["messages"][0]["role"] == "system"}
    assert ("function int", INTERACTOR_SYSTEM) in firsts and ("function eval", EVALUATOR_SYSTEM) in firsts
    asked = {json.dumps(c) for model in m.values() for c in model.calls}
    assert {json.dumps(c["messages"]) for c in calls} == asked  # each distinct call once, as sent


def test_verification_can_be_skipped(tmp_path):
    result = run_protocol("kieval", bench(), models=models(), config={**OPTS, "verify": False},
                          run_dir=tmp_path / "run", cache=False)
    assert result.summary["conversations"] == 5 and result.summary["dropped"] == 0


def test_resume_after_a_kill_mid_dialogue_repeats_no_call(tmp_path):
    def go(m, folder):
        return run_protocol("kieval", bench(), models=m, config=OPTS, run_dir=folder, cache=False)

    k = kill_then_resume(tmp_path, go, models, "candidate", 5)
    assert k.killed >= 1 and k.repeated == 0  # killed calls never finished: only they are made again
    assert k.resumed.summary["kieval"] == json.loads((tmp_path / "clean" / "summary.json").read_text())["kieval"]


def test_rescore_scores_the_stored_conversations_with_another_evaluator(tmp_path):
    m = models()
    run = run_protocol("kieval", bench(), models=m, config=OPTS, run_dir=tmp_path / "run", cache=False).folder
    before = {name: (run / name).read_bytes() for name in ("records.jsonl", "episodes.jsonl", "summary.json")}
    calls = {k: len(v.calls) for k, v in m.items()}
    second = FunctionModel(evaluator({"Strong": 3}), "other")  # strong turns 3 instead of 4: same ranking
    out = rescore(run, second, cache=False)
    assert {k: len(v.calls) for k, v in m.items()} == calls  # the candidate and interactor are not asked
    assert {name: (run / name).read_bytes() for name in before} == before
    assert len(second.calls) == 3 + 3 + 2  # one call per stored candidate turn, nothing else
    a = out["agreement"]["accuracy"]
    # accuracy turns: first 4,4,4,2,2,2,2,1 against 3,3,3,2,2,2,2,1: the same order, not a linear map
    assert a["n"] == 8 and a["spearman"]["r"] == pytest.approx(1.0) and a["kendall"]["r"] == pytest.approx(1.0)
    assert 0.95 < a["pearson"]["r"] < 1
    assert a["exact_agreement"] == pytest.approx(5 / 8) and a["kappa"] < 1
    stored = json.loads((run / "rescore-other.json").read_text())
    assert stored["second"]["kieval"]["accuracy"] == pytest.approx((2 / 3 + 1 / 3 + (decay_weights(3)[0] / 3) /
                                                                    sum(decay_weights(3))) / 3)
    assert stored["second"]["early_stops_by_reason"] == {"off_topic": 1} and stored["first"]["evaluator"] == "eval"
    # resumable: the rescore journal answers every call again
    third = FunctionModel(evaluator({"Strong": 3}), "other")
    assert rescore(run, third, cache=False)["agreement"] == out["agreement"] and third.calls == []


def test_rescore_refuses_a_run_of_another_protocol(tmp_path, capsys):
    from judgeagent.cli import main
    from tests.test_protocols import Script, items, roles

    other = run_protocol("interviewer", items(), models=roles(Script()), config={"judge_policy": "off", "summary": False,
                         "resamples": 200}, run_dir=tmp_path / "iv", cache=False).folder
    assert main(["rescore", str(other), "--evaluator", "local"]) == 1
    err = capsys.readouterr().err
    assert "is an interviewer run; rescore re-scores KIEval runs only" in err and len(err.strip().splitlines()) == 1


# --- bad evaluator output -------------------------------------------------------------------------------


def test_out_of_range_scores_get_one_repair_then_a_recorded_failure(tmp_path):
    base = evaluator(out_of_range=("Weak reply 1",))  # every "Weak" item's first turn is scored 5

    def judge(messages):
        if "was not valid" in messages[-1]["content"]:  # the repair turn: valid for two items, 5 again for two
            return json.dumps(ev(2)) if thing_of(messages[1]["content"]) in ("film", "book") else base(messages)
        return base(messages)

    m = models(judge=judge)
    result = run_protocol("kieval", bench(), models=m, config={**OPTS, "verify": False}, run_dir=tmp_path / "run",
                          cache=False)
    records = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    weak = [r for r in records if r["meta"].get("stage") == "evaluation" and "q-weak" in r["episode"]]
    assert [r["meta"]["repaired"] for r in weak] == [True, False, False]
    assert weak[0]["scores"]["accuracy"]["value"] == pytest.approx(1 / 3)
    failed = sorted((r for r in records if r["meta"].get("stage") == "evaluation" and r["meta"]["evaluation"] is None),
                    key=lambda r: r["episode"])
    assert [r["episode"] for r in failed] == ["item-3-q-unknown", "item-4-q-judgeless"]
    assert all("accuracy.score: Input should be 1, 2, 3 or 4" in r["meta"]["failure"] and r["scores"] == {} for r in failed)
    s = result.summary
    assert s["failed_evaluations"] == 2 and s["evaluations"] == 14 and s["turn_means"]["accuracy"] == pytest.approx(
        (4 * 3 + 2 * 3 + 2 + 1 + 2 * 2 * 2) / 12)  # strong 3x4; weak 3x2; drift 2 then 1; two items' 2nd/3rd turns
    assert all(1 <= x["evaluation"]["accuracy"]["score"] <= 4 for r in rows_of(result.folder).values()
               for x in r["rounds"] if x["evaluation"])


def test_an_evaluator_that_never_answers_scores_nothing(tmp_path):
    m = models(judge=lambda messages: "")
    result = run_protocol("kieval", bench(), models=m, config={**OPTS, "verify": False}, run_dir=tmp_path / "run",
                          cache=False)
    s = result.summary
    assert s["failed_evaluations"] == s["evaluations"] == 15 and s["scored_conversations"] == 0
    assert s["kieval"]["overall"] is None and len(m["evaluator"].calls) == 30  # each turn: ask, then one repair
    assert "no valid evaluation after one repair: not JSON" in (result.folder / "report.md").read_text() or \
        s["examples"] == {}
    rows = rows_of(result.folder)
    assert all(x["failure"].startswith("no valid evaluation after one repair") for r in rows.values() for x in r["rounds"])


def test_roles_fall_back_through_their_defaults():
    from judgeagent.errors import JudgeAgentError

    p = PROTOCOLS["kieval"]
    assert p.resolve_roles({"target": "t"}) == {"candidate": "t", "interactor": "t", "evaluator": "t"}
    assert p.resolve_roles({"target": "t", "interviewer": "i"}) == {"candidate": "t", "interactor": "i", "evaluator": "i"}
    assert p.resolve_roles({"target": "t", "judge": "j"}) == {"candidate": "t", "interactor": "t", "evaluator": "j"}
    assert p.resolve_roles({"target": "t", "interviewer": "i", "interactor": "x"})["interactor"] == "x"
    with pytest.raises(JudgeAgentError, match=r"needs a model for its candidate role"):
        p.resolve_roles({"interviewer": "i"})
    with pytest.raises(JudgeAgentError, match="protocol kieval has no role referee"):
        p.resolve_roles({"target": "t", "referee": "r"})


def test_a_graph_grounds_the_interactor_with_a_recorded_path(demo_graph, tmp_path):
    from judgeagent.benchmark import load_benchmark
    from tests.conftest import DEMO

    items = load_benchmark(DEMO / "questions.jsonl", limit=2)
    m = {"candidate": FunctionModel(lambda messages: "I believe so, for the reasons given.", "cand"),
         "interactor": FunctionModel(lambda messages: "What evidence supports that?", "int"),
         "evaluator": FunctionModel(lambda messages: json.dumps(ev(3)), "eval")}
    result = run_protocol("kieval", items, demo_graph, models=m, config={**OPTS, "rounds": 1, "verify": False, "hops": 2},
                          run_dir=tmp_path / "run", cache=False)
    rows = list(rows_of(result.folder).values())
    assert len(rows) == 2 and all(1 <= len(r["path"]["entities"]) <= 2 and r["path"]["text"] for r in rows)
    prompts = [c[-1]["content"] for c in m["interactor"].calls]
    assert all(any(r["path"]["text"][:80] in p for p in prompts) for r in rows)
    assert "Knowledge path:" in (result.folder / "report.md").read_text()


def test_the_embedded_model_in_all_roles(tmp_path, capsys):
    """SmolLM2-135M as candidate, interactor and evaluator on 3 HotpotQA items, one round each, via the CLI."""
    from judgeagent.cli import main
    from tests.conftest import DATA

    code = main(["evaluate", "--protocol", "kieval", "--target", "local", "--benchmark",
                 str(DATA / "hotpotqa" / "small.questions.jsonl"), "--limit", "3", "-o", "rounds=1", "-o", "verify=false",
                 "-o", "judge_policy=off", "-o", "reply_tokens=40", "--run-dir", str(tmp_path / "run"), "--no-cache", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and "report:" in out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["conversations"] == 3 and summary["evaluations"] == 3
    assert all(v is None or 0 <= v <= 1 for v in summary["kieval"].values())
    for role in ("candidate", "interactor"):  # reply_tokens caps their replies, not the evaluator's JSON
        assert summary["usage"][role]["output_tokens"] <= 40 * summary["usage"][role]["calls"]
    for row in rows_of(tmp_path / "run").values():
        (x,) = row["rounds"]
        assert x["question"].strip() and (x["evaluation"] is None) == bool(x["failure"])
        if x["evaluation"] is not None:
            assert all(x["evaluation"][a]["score"] in (1, 2, 3, 4) for a in ASPECTS)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## KIEval scores" in report and "| conciseness |" in report and "## Verification and early stops" in report
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert {r: d["name"] for r, d in manifest["models"].items()} == {"candidate": "local", "interactor": "local",
                                                                      "evaluator": "local"}


def test_an_evaluator_whose_calls_fail_stops_the_run_in_one_line_and_it_resumes(tmp_path, capsys):
    from judgeagent.errors import JudgeAgentError
    from judgeagent.models.base import ModelError

    def dead(messages):
        raise ModelError("model 'eval' (e at http://x): no answer within 120 s after 6 attempts")

    clean = models()
    run_protocol("kieval", bench(), models=clean, config={**OPTS, "verify": False}, run_dir=tmp_path / "clean",
                 cache=False)
    first = models(judge=dead)
    with pytest.raises(JudgeAgentError, match="no answer within 120 s"):
        run_protocol("kieval", bench(), models=first, config={**OPTS, "verify": False}, run_dir=tmp_path / "run",
                     cache=False)
    assert not (tmp_path / "run" / "summary.json").exists()
    again = models()
    result = run_protocol("kieval", bench(), models=again, config={**OPTS, "verify": False}, run_dir=tmp_path / "run",
                          cache=False)
    # every item got as far as its first evaluation: answers, first questions and replies are not asked again
    assert len(first["candidate"].calls) == 10 and len(again["candidate"].calls) == len(clean["candidate"].calls) - 10
    assert result.summary["kieval"] == json.loads((tmp_path / "clean" / "summary.json").read_text())["kieval"]


def test_inside_a_running_loop_the_sync_call_refuses_and_the_async_one_runs(tmp_path):
    """A notebook's loop: run_protocol says what to await and leaves no folder; run_protocol_async gives the same
    run while the caller's loop keeps running."""
    import asyncio

    from judgeagent import JudgeAgentError, run_protocol_async

    async def main():
        with pytest.raises(JudgeAgentError, match=r"^run_protocol\(\) was called inside a running event loop .*"
                                                  r"await judgeagent\.protocols\.run_protocol_async"):
            run_protocol("kieval", bench(), models=models(), config=OPTS, run_dir=tmp_path / "sync", cache=False)
        assert not (tmp_path / "sync").exists()
        ticks = []

        async def tick():
            while True:
                ticks.append(1)
                await asyncio.sleep(0.005)

        ticking = asyncio.create_task(tick())
        result = await run_protocol_async("kieval", bench(), models=models(), config=OPTS, run_dir=tmp_path / "async",
                                          cache=False)
        ticking.cancel()
        return result, len(ticks)

    result, ticks = asyncio.run(main())
    plain = run_protocol("kieval", bench(), models=models(), config=OPTS, run_dir=tmp_path / "plain", cache=False)
    assert result.summary["kieval"] == plain.summary["kieval"] and ticks > 3


def test_a_finished_run_that_lost_its_records_is_refused_and_made_again_from_its_journal(tmp_path):
    """What the refusal advises works, for a run that lost its records and one that lost both logs: with its .jsonl
    files moved aside and `"status": "running"`, a resume makes records.jsonl and episodes.jsonl again from the
    run's journal, no model called, the same rows and summary (its usage then counts journal hits)."""
    import shutil

    from judgeagent.errors import JudgeAgentError
    from judgeagent.runs import load_run

    for lost in (["records.jsonl"], ["records.jsonl", "episodes.jsonl"]):
        folder = run_protocol("kieval", bench(), models=models(), config=OPTS, run_dir=tmp_path / "-".join(lost),
                              cache=False).folder
        rows = {name: sorted((folder / name).read_text().splitlines()) for name in ("records.jsonl", "episodes.jsonl")}
        summary = json.loads((folder / "summary.json").read_text())
        for name in lost:
            (folder / name).unlink()
        with pytest.raises(JudgeAgentError, match=f"{' and '.join(lost)} (is|are) missing though it finished; .*move "
                                                  "its .jsonl files aside.*evaluate --resume"):
            load_run(folder)
        (tmp_path / "aside").mkdir(exist_ok=True)
        for log in folder.glob("*.jsonl"):
            shutil.move(log, tmp_path / "aside" / f"{folder.name}-{log.name}")
        manifest = json.loads((folder / "manifest.json").read_text())
        (folder / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
        again = models()
        run_protocol("kieval", bench(), models=again, config=OPTS, run_dir=folder, cache=False)
        assert sum(len(m.calls) for m in again.values()) == 0
        assert {name: sorted((folder / name).read_text().splitlines()) for name in rows} == rows
        remade = json.loads((folder / "summary.json").read_text())
        assert {k: v for k, v in remade.items() if k != "usage"} == {k: v for k, v in summary.items() if k != "usage"}
