"""The cost estimate a run prints before it starts: the calls a real run then makes (the loopback servers,
through the real client) fall within the estimated range, which is exact where the options fix it."""
import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.config import CheckerConfig
from judgeagent.models.spec import Prices
from judgeagent.protocols.judgeagent.config import EvalConfig
from judgeagent.protocols.judgeagent.estimate import estimate_run, render_estimate
from judgeagent.protocols.judgeagent.evaluate import evaluate
from judgeagent.protocols.judgeagent.together import batch_count
from tests.conftest import DATA
from tests.scripted import Roles, Script

MHR = DATA / "multihop_rag" / "small.questions.jsonl"


def real_calls(tmp_path, graph, config, right, limit=10):
    bench = load_benchmark(MHR, limit=limit)
    with Roles(Script(target_right=right)) as roles:
        for item in bench.items:
            roles.script.golds[item.question] = item.gold
        evaluate(bench, graph, "tgt", interviewer="int", config=config, run_dir=tmp_path / "run",
                 registry=roles.registry("tgt"), cache=False)
        return bench.items, roles.target.counts["requests"], roles.interviewer.counts["requests"]


@pytest.mark.parametrize("right, config", [
    (True, EvalConfig(rounds=2)),
    (False, EvalConfig(rounds=2)),
    (True, EvalConfig(rounds=1, fixed_difficulty="hard", checker=CheckerConfig(judge_policy="trust"))),
    (True, EvalConfig(extension=False, checker=CheckerConfig(judge_policy="off"))),
    # setting=authors: a target right on every batch gets no feedback call at all (the low end was one a batch)
    (True, EvalConfig(setting="authors", extension=False, checker=CheckerConfig(judge_policy="off"))),
])
def test_a_real_run_makes_calls_within_the_estimate(tmp_path, mhr_slice_graph, right, config):
    items, target, interviewer_and_judge = real_calls(tmp_path, mhr_slice_graph, config, right)
    est = {e.role: e for e in estimate_run(config, items)}
    assert est["target"].calls_low <= target <= est["target"].calls_high
    low = est["interviewer"].calls_low + est["judge"].calls_low
    high = est["interviewer"].calls_high + est["judge"].calls_high
    assert low <= interviewer_and_judge <= high, (low, interviewer_and_judge, high)
    if not config.extension and config.checker.judge_policy == "off":
        # one call a question; under setting=authors one call a batch (together.py)
        asked = len(items) if config.setting == "ours" else batch_count(items, config.batch_size, config.setting)
        assert est["target"].calls_low == est["target"].calls_high == target == asked


def test_costs_follow_the_configured_prices():
    items = load_benchmark(MHR, limit=20).items
    free = estimate_run(EvalConfig(), items)
    paid = estimate_run(EvalConfig(), items, {"target": Prices(input=1.0, output=2.0)})
    assert all(e.cost_high == 0 for e in free)
    target = next(e for e in paid if e.role == "target")
    assert 0 < target.cost_low <= target.cost_high
    assert target.cost_high == pytest.approx((target.input_tokens_high * 1.0 + target.output_tokens_high * 2.0) / 1e6,
                                             rel=1e-3)
    table = render_estimate(paid)
    assert "target" in table and "total" in table
