"""Orchestration of `evaluate` with scripted roles on loopback servers; real graph, real benchmark files."""
import json

import pytest

from judgeagent import EvalConfig, JudgeAgentError
from judgeagent.benchmark import load_benchmark
from judgeagent.config import CheckerConfig
from judgeagent.protocols.judgeagent.evaluate import evaluate
from judgeagent.protocols.judgeagent.scoring import overall, points, tier_of
from tests.conftest import DATA
from tests.scripted import Roles, Script

MHR = DATA / "multihop_rag" / "small.questions.jsonl"


def test_points_and_tiers():
    assert [points(True, d) for d in ("easy", "medium", "hard", None)] == [1.0, 1.5, 2.0, 1.5]
    assert points(False, "hard") == 0.0 and points(False, "hard", 0.2) == -0.2 and points(False, "easy", 0.2) == 0
    assert [tier_of(t, 6) for t in (3.0, 3.01, 6.0, 6.01)] == ["easy", "medium", "medium", "hard"]
    # unlabelled items (1.5 each): accuracy 1/3 -> easy, 2/3 -> medium, above -> hard
    assert [tier_of(1.5 * k, 3) for k in (1, 2, 3)] == ["easy", "medium", "hard"]
    assert tier_of(0, 0) == "easy" and overall([3.0, 1.0], [4, 4]) == 0.5


def run(roles, tmp_path, graph, config, target="tgt", name="run", limit=10, **kw):
    bench = load_benchmark(MHR, limit=limit)
    for item in bench.items:
        roles.script.golds[item.question] = item.gold
    return evaluate(bench, graph, target, interviewer="int", config=config, run_dir=tmp_path / name,
                    registry=roles.registry(target), cache=False, **kw)


def records(folder):
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


def test_a_strong_target_is_interviewed_at_hard_level(tmp_path, mhr_slice_graph):
    script = Script(target_right=True)
    with Roles(script) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(batch_size=5, rounds=2))
    rows = records(result.folder)
    assert len([r for r in rows if r["stage"] == "grading"]) == 10
    ext = [r for r in rows if r["stage"] == "extension"]
    assert len(ext) == 4 and all(r["correct"] for r in rows)
    assert all(r["difficulty"] == "hard" and r["path"]["chunk_ids"] for r in ext)
    assert all("HARD - analysis" in p for p in script.generation_prompts)
    s = result.summary
    assert s["trajectories"] == {"0": ["hard", "hard", "hard"], "1": ["hard", "hard", "hard"]}
    assert s["overall_score"] == pytest.approx((10 * 1.5 + 4 * 2.0) / 14)
    feedback = [json.loads(x) for x in (result.folder / "feedback.jsonl").read_text().splitlines()]
    assert sorted(f["batch"] for f in feedback) == [0, 1] and all(f["feedback"]["suggestions"] for f in feedback)
    for r in ext:  # the path's chunks are in the graph and belong to its entities
        for e, c in zip(r["path"]["entity_ids"], r["path"]["chunk_ids"]):
            assert c in mhr_slice_graph.tables["entities"].column("chunk_ids")[e].as_py()


def test_a_weak_target_gets_easy_questions_and_tier_moves(tmp_path, mhr_slice_graph):
    script = Script(target_right=False)
    with Roles(script) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(batch_size=5, rounds=2), limit=5)
    assert result.summary["trajectories"] == {"0": ["easy", "easy", "easy"]}
    assert all("EASY - recall" in p for p in script.generation_prompts)
    judged = {r["verdict"]["method"] for r in records(result.folder)}
    # "I am not sure, perhaps Atlantis." is now refused by rule; cloze answers may still reach the judge
    assert judged <= {"judge", "f1", "exact", "no_letter", "empty", "refusal", "undecided"} and "refusal" in judged
    assert result.summary["overall_score"] == 0


def test_ablations(tmp_path, mhr_slice_graph):
    with Roles(Script(target_right=False)) as roles:
        none = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=2, extension=False), name="noext", limit=5)
        fixed = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=2, fixed_difficulty="hard"), name="fixed", limit=5)
        nograph = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=2, graph=False), name="nograph", limit=5)
        prompts = roles.script.generation_prompts
    assert {r["stage"] for r in records(none.folder)} == {"grading"}
    assert none.summary["trajectories"] == {"0": ["easy"]}
    ext = [r for r in records(fixed.folder) if r["stage"] == "extension"]
    assert ext and all(r["difficulty"] == "hard" for r in ext)  # the target is weak, the questions stay hard
    assert fixed.summary["trajectories"]["0"] == ["easy", "easy", "easy"]
    # easy rounds are cloze questions now: no generation prompt
    assert sum("HARD - analysis" in p for p in prompts) == 2 and sum("EASY - recall" in p for p in prompts) == 0
    random_paths = [r["path"] for r in records(nograph.folder) if r["stage"] == "extension"]
    assert random_paths and all(p.get("random") and not p["entities"] and len(p["chunk_ids"]) == 3 for p in random_paths)


def test_dense_paths_are_a_second_baseline_and_the_report_compares_relevance(tmp_path, mhr_slice_graph):
    from judgeagent.protocols.judgeagent.report.build import build_report

    config = EvalConfig(rounds=2, checker=CheckerConfig(judge_policy="off"))
    with Roles(Script(target_right=False)) as roles:
        runs = {name: run(roles, tmp_path, mhr_slice_graph, config.model_copy(update=update), name=name, limit=5)
                for name, update in (("graph", {}), ("dense", {"path": "dense"}), ("random", {"graph": False}))}
    paths = {name: [r["path"] for r in records(res.folder) if r["stage"] == "extension"] for name, res in runs.items()}
    assert paths["dense"] and all(p.get("dense") and len(set(p["chunk_ids"])) == 3 for p in paths["dense"])
    relevance = {name: sum(p["relevance"] for p in ps) / len(ps) for name, ps in paths.items()}
    # the top chunks for the questions are the most on topic, random ones the least
    assert relevance["dense"] > relevance["graph"] > relevance["random"]
    md, _ = build_report(runs["dense"].folder)
    assert "## Knowledge paths" in md.read_text() and "| dense (--path dense) |" in md.read_text()


@pytest.mark.parametrize("who, crash_after", [("target", 3), ("target", 12), ("interviewer", 2), ("interviewer", 7)])
def test_resume_after_a_crash_repeats_no_call(tmp_path, mhr_slice_graph, who, crash_after):
    config = EvalConfig(batch_size=5, rounds=2)
    with Roles(Script(target_right={"Federal", "Google"})) as roles:
        whole = run(roles, tmp_path, mhr_slice_graph, config, name="whole")
        whole_calls = roles.calls()
    with Roles(Script(target_right={"Federal", "Google"})) as roles:
        server = getattr(roles, who)
        server.fail_after = crash_after
        with pytest.raises(JudgeAgentError, match="HTTP 400"):
            run(roles, tmp_path, mhr_slice_graph, config, name="crashed")
        assert json.loads((tmp_path / "crashed" / "manifest.json").read_text())["status"] == "running"
        server.fail_after = None
        resumed = run(roles, tmp_path, mhr_slice_graph, config, name="crashed")
        assert roles.calls() == whole_calls  # every call made once, across the crash
        before = roles.calls()
        again = run(roles, tmp_path, mhr_slice_graph, config, name="crashed")
        assert roles.calls() == before  # a finished run makes no call at all
    key = lambda r: (r["record_id"], r["question"], r["answer"], r["correct"])  # noqa: E731
    assert sorted(map(key, records(resumed.folder))) == sorted(map(key, records(whole.folder)))
    assert resumed.summary["overall_score"] == whole.summary["overall_score"] == again.summary["overall_score"]


def test_second_target_reuses_generated_questions(tmp_path, mhr_slice_graph):
    with Roles(Script(target_right=False)) as roles:
        bench = load_benchmark(MHR, limit=5)
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        # easy rounds would be cloze questions (no model): ask the interviewer for them
        common = dict(interviewer="int", config=EvalConfig(rounds=2, easy_generator="llm"), cache_dir=tmp_path / "cache")
        evaluate(bench, mhr_slice_graph, "tgt", run_dir=tmp_path / "a", registry=roles.registry("tgt"), **common)
        first = len(roles.script.generation_prompts)
        evaluate(bench, mhr_slice_graph, "other", run_dir=tmp_path / "b", registry=roles.registry("other"), **common)
        assert first > 0 and len(roles.script.generation_prompts) == first


def test_leaky_feedback_is_caught_and_counted(tmp_path, mhr_slice_graph):
    with Roles(Script(target_right=False, leak=True)) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=0), limit=5)
    (fb,) = [json.loads(x) for x in (result.folder / "feedback.jsonl").read_text().splitlines()]
    assert fb["leakage"]["detected"] and fb["leakage"]["regenerated"] and not fb["leakage"]["redacted"]
    golds = [i.gold for i in load_benchmark(MHR, limit=5).items]
    assert not any(g in fb["feedback"]["suggestions"] for g in golds)
    assert result.summary["leakage"]["batches_with_leaks"] == 1


def test_unusable_questions_skip_the_round_with_a_reason(tmp_path, mhr_slice_graph):
    with Roles(Script(target_right=True, bad_questions=True)) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=1, generation_attempts=2), limit=5)
    (fb,) = [json.loads(x) for x in (result.folder / "feedback.jsonl").read_text().splitlines()]
    (round_,) = fb["rounds"]
    assert "answer longer than" in round_["skipped"] and len(round_["rejected"]) == 2
    assert result.summary["rounds"] == {"run": 0, "skipped": 1, "rejected_questions": 2,
                                        "rejected_by_reason": {"answer longer than 8 words": 2}, "by_generator": {"llm": 1}}


def test_garbage_from_the_target_is_recorded_wrong_and_the_run_goes_on(tmp_path, mhr_slice_graph):
    script = Script()
    script.target = lambda request: ""  # the target returns nothing
    with Roles(script) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=0), limit=5)
    rows = records(result.folder)
    assert len(rows) == 5 and not any(r["correct"] for r in rows)
    assert {r["verdict"]["method"] for r in rows} == {"empty"}


def test_bad_inputs(tmp_path, mhr_slice_graph):
    bench = load_benchmark(MHR, limit=2)
    with pytest.raises(JudgeAgentError, match="needs a graph"):
        evaluate(bench, None, "tgt", run_dir=tmp_path / "x")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(JudgeAgentError, match="has no items"):
        load_benchmark(empty)
    with Roles(Script()) as roles:
        run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=0), name="same", limit=2)
        with pytest.raises(JudgeAgentError, match=r"another configuration \(options rounds: 0 there, 1 now\)"):
            run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=1), name="same", limit=2)


def test_tier_moves_down_when_extension_answers_fail(tmp_path, mhr_slice_graph):
    base = {i.question for i in load_benchmark(MHR, limit=5).items}
    script = Script(target_right=base)  # knows the benchmark, fails every generated question
    with Roles(script) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=4), limit=5)
    # 5 x 1.5 = 7.5 points; after k wrong hard questions the average is 7.5 / (5 + k): > 1.0 until k = 3
    assert result.summary["trajectories"] == {"0": ["hard", "hard", "hard", "medium", "medium"]}
    tiers = [p.split("3. Difficulty: ")[1].split(" -")[0] for p in script.generation_prompts]
    assert tiers == ["HARD", "HARD", "HARD", "MEDIUM"]
    assert result.summary["overall_score"] == pytest.approx(7.5 / 9)


def test_adaptive_irt_asks_each_round_at_the_most_informative_level(tmp_path, mhr_slice_graph):
    from judgeagent.protocols.judgeagent.records import as_records
    from judgeagent.protocols.judgeagent.validity.irt import (
        estimate,
        most_informative,
        responses,
    )

    runs = {}
    for name, right in (("strong", True), ("weak", False), ("mixed", {"Federal", "Google"})):
        with Roles(Script(target_right=right)) as roles:
            runs[name] = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=2, adaptive="irt"), name=name)
    levels = {name: {r["difficulty"] for r in records(res.folder) if r["stage"] == "extension" and r["batch"] == 0}
              for name, res in runs.items()}
    # batch 0: the strong target gets everything right, the weak one nothing (in batch 1 its refusal
    # is right twice, on golds "Insufficient information.": medium, as the recomputation below checks)
    assert levels["strong"] == {"hard"} and levels["weak"] == {"easy"}
    for res in runs.values():  # every round's level follows from the answers before it, recomputed here
        rows = records(res.folder)
        rounds = {(r["batch"], r["round"]): r["difficulty"] for r in rows if r["stage"] == "extension"}
        assert rounds
        for (b, k), level in rounds.items():
            before = [r for r in rows if r["batch"] == b and (r["stage"] == "grading" or r["round"] < k)]
            assert level == most_informative(estimate(responses(as_records(before))))


def test_a_resumed_batch_whose_reader_fails_reports_the_error_once(tmp_path, mhr_slice_graph, monkeypatch, caplog):
    """On resume a batch's base records are there, so nothing awaits what the reader (spaCy) found; its error
    must reach the run through the batch's paths, and asyncio must not also log it as never retrieved."""
    import gc
    import logging

    from judgeagent.graph.sample import PathSampler

    config = EvalConfig(batch_size=5, rounds=1)
    with Roles(Script(target_right=True)) as roles:
        roles.target.fail_after = 5  # the batch's base questions, then its extension answer fails
        with pytest.raises(JudgeAgentError, match="HTTP 400"):
            run(roles, tmp_path, mhr_slice_graph, config, limit=5)
        roles.target.fail_after = None

        def unreadable(self, texts):
            raise JudgeAgentError("spaCy cannot read these questions")

        monkeypatch.setattr(PathSampler, "extract", unreadable)
        caplog.set_level(logging.ERROR, logger="asyncio")
        with pytest.raises(JudgeAgentError, match="spaCy cannot read"):
            run(roles, tmp_path, mhr_slice_graph, config, limit=5)
        gc.collect()
    assert len(records(tmp_path / "run")) == 5
    assert "never retrieved" not in caplog.text


def test_a_batch_never_asks_the_same_cloze_question_twice(tmp_path, mhr_slice_graph):
    """Issue 45: batch 0 of MultiHop-RAG small asked one cloze question in two of its 8 easy rounds (two paths
    shared a sentence); the cloze now avoids the batch's earlier extension questions as well as its base questions.
    Seen to fail with `_cloze` given the base questions only (the code before the fix), on the slice graph too."""
    with Roles(Script(target_right=False)) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, EvalConfig(rounds=8, checker=CheckerConfig(judge_policy="off")),
                     limit=5)
    asked = [r["question"] for r in records(result.folder) if r["stage"] == "extension"]
    assert len(asked) == 8 and len(set(asked)) == 8


def test_evaluate_args_and_the_manifests_request_name_every_flag():
    """`EvaluateArgs` types `evaluate`'s parameters and `RunArgs` the manifest's `request`: a flag added to the
    command, or to the keys `--resume` keeps, without its typed field fails here."""
    import typer.main

    from judgeagent.cli.app import app
    from judgeagent.cli.evaluate import RUN_KEYS, EvaluateArgs
    from judgeagent.runs import RunArgs

    command = next(c for c in app.registered_commands if c.name == "evaluate")
    params = {p.name for p in typer.main.get_command_from_info(
        command, pretty_exceptions_short=True, rich_markup_mode=None).params}
    assert params == set(EvaluateArgs.__annotations__)
    assert set(RUN_KEYS) | {"protocol", "recipe"} == set(RunArgs.__annotations__)
