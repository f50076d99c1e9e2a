"""Judging with the real embedded judge (SmolLM2-135M on llama.cpp, through the openai SDK):
calibration numbers that add up, policies that keep an unvetted judge out, and the demo run."""
from __future__ import annotations

import asyncio
import json

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.cli import main
from judgeagent.config import CheckerConfig
from judgeagent.grading.calibration import pairs_from_items, vetted_checker
from judgeagent.models import open_models
from judgeagent.protocols.judgeagent.validate import run_checker
from judgeagent.runs import load_run
from tests.conftest import DEMO

# The demo run's misjudgments reported in issue 8 (question start, gold, answer recorded as correct).
# (The "2016 / ended in 2018" item is not in the demo set; a wrong number stands in for it.)
MISJUDGED = [("How many years after its launch", "Voyager 2 reached Neptune in 1989, 14 years later."),
             ("Which astronomer chaired", "The Voyager Golden Record carries sounds and images of life on Earth."),
             ("Ingenuity was planned", "The answer is 10."),
             ("Which comet did the Rosetta", "Comet 6710 Chiron")]


@pytest.fixture(scope="module")
def demo_items():
    return load_benchmark(DEMO / "questions.jsonl").items


def test_calibration_pairs_are_balanced_seeded_and_right_by_construction(demo_items):
    pairs = pairs_from_items(demo_items, 40, seed=3)
    assert len(pairs) == 40 and sum(p.accept for p in pairs) == 20
    assert pairs == pairs_from_items(demo_items, 40, seed=3) and pairs != pairs_from_items(demo_items, 40, seed=4)
    kinds = {p.kind for p in pairs}
    assert {"restated", "changed_number", "other_gold"} <= kinds
    for p in pairs:
        assert (p.gold in p.answer) == p.accept or p.kind in ("alias", "other_option")


def test_the_embedded_judge_is_calibrated_and_policies_follow(demo_items, tmp_path):
    async def vet(policy, **kw):
        settings = CheckerConfig(judge_policy=policy, calibration_pairs=16, **kw)
        return await vetted_checker(settings, models.judge, demo_items, seed=0)

    # One cache: every policy probes the same seeded pairs, so only the first makes model calls.
    calls = []
    with open_models("local", cache_dir=tmp_path) as models:
        async def go():
            try:
                trusted = await vet("trust")  # asks every pair, whatever the answers
                calls.append(models.ledger.totals()["judge"]["calls"])
                return (await vet("calibrated"), trusted,
                        await vet("calibrated", min_judge_accuracy=0.0, max_judge_fpr=1.0), await vet("off"))
            finally:
                await models.aclose()

        (strict, cal), (trusted, cal_t), (lax, cal_l), (off, cal_o) = asyncio.run(go())
    assert cal_t.pairs == cal_l.pairs == 16 and len(cal.intervals["accuracy"]) == 2
    # the strict policy stops asking once the judge cannot pass; what it asked it scored as trust did
    assert cal.pairs == 16 or ("stopped after" in cal.note and not cal.passed and cal.pairs % 8 == 0)
    assert cal_t.by_kind == cal_l.by_kind
    right = sum(k["right"] for k in cal.by_kind.values())
    assert cal.accuracy == pytest.approx(right / cal.pairs)
    assert cal.intervals["accuracy"][0] <= cal.accuracy <= cal.intervals["accuracy"][1]
    assert cal.passed == (cal.accuracy >= 0.9 and cal.fpr <= 0.05)
    assert (strict.judge is not None) == cal.passed and cal.used == cal.passed
    assert trusted.judge is not None and cal_t.used  # trust: used whatever the probe said
    assert lax.judge is not None and cal_l.passed  # thresholds are the user's
    assert off.judge is None and cal_o.pairs == 0
    assert 0 < calls[0] <= 16 and models.ledger.totals()["judge"]["calls"] == calls[0]  # later policies: cache


def test_the_demo_run_rests_only_on_a_calibrated_judge(demo_graph, tmp_path, capsys):
    run_dir = tmp_path / "demo"
    args = ["evaluate", "--target", "local", "--benchmark", str(DEMO / "questions.jsonl"), "--graph",
            str(demo_graph.path), "--limit", "10", "--rounds", "1", "--run-dir", str(run_dir), "--no-cache", "-q"]
    assert main(args) == 0
    err = capsys.readouterr().err
    manifest = json.loads((run_dir / "manifest.json").read_text())
    calibration = manifest["judge_calibration"]
    assert manifest["config"]["checker"]["judge_policy"] == "calibrated"
    assert calibration["pairs"] == 40 or "stopped after" in calibration["note"]
    if not calibration["passed"]:
        assert "FAILED calibration" in err  # said loudly, once, on stderr
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    methods = {r["verdict"]["method"] for r in records}
    assert "judge" not in methods or calibration["passed"]
    # The misjudgments, checked by this run's own checker (its settings and judge decision).
    run = load_run(run_dir)
    with open_models("local", cache=False) as models:
        checker = run_checker(run, models.judge)
        items = {i.question: i for i in load_benchmark(DEMO / "questions.jsonl").items}

        async def go():
            try:
                found = []
                for start, answer in MISJUDGED:
                    item = next(i for q, i in items.items() if q.startswith(start))
                    found.append(await checker.check(item.question, item.golds, answer))
                return found
            finally:
                await models.aclose()

        verdicts = asyncio.run(go())
    assert not any(v.correct for v in verdicts), verdicts
    assert main(["report", str(run_dir)]) == 0
    report = (run_dir / "report.md").read_text()
    assert "## How answers were judged" in report and f"Judge calibration on {calibration['pairs']} pairs" in report


def test_calibration_stops_paying_for_a_judge_that_cannot_pass(demo_items):
    """A judge that accepts everything (the loopback server, through the real client) fails on the
    first wave of pairs: the calibrated policy asks no more; trust asks them all."""
    from judgeagent.grading.calibration import WAVE, calibrate
    from judgeagent.models import ModelSpec
    from judgeagent.models.spec import Registry
    from judgeagent.models.testserver import FakeServer

    yes = json.dumps({"reasoning": "looks fine", "correct": True})
    pairs = pairs_from_items(demo_items, 40, seed=0)
    with FakeServer(reply=lambda request: yes) as server:
        registry = Registry({"j": ModelSpec(name="j", base_url=server.base_url, model="m", max_retries=0)})

        def ask(policy):
            with open_models("j", registry=registry, cache=False) as models:
                async def go():
                    try:
                        return await calibrate(models.judge, pairs, CheckerConfig(judge_policy=policy))
                    finally:
                        await models.aclose()
                return asyncio.run(go())

        strict = ask("calibrated")
        assert server.counts["requests"] == WAVE and strict.pairs == WAVE
        assert not strict.passed and "stopped after 8 of 40 pairs" in strict.note and strict.fpr == 1.0
        trusted = ask("trust")
        assert server.counts["requests"] == WAVE + 40 and trusted.pairs == 40 and trusted.used
