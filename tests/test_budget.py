"""A cost budget stops a job before the call that would go past it (the real client against the loopback
server, with configured prices); answers already journaled cost nothing on the way back."""
import asyncio

import pytest

from judgeagent.errors import BudgetExceeded
from judgeagent.models import ModelSpec, open_models
from judgeagent.models.spec import Prices, Registry
from judgeagent.models.testserver import FakeServer


def test_a_budget_stops_calls_and_a_journal_replays_for_free(tmp_path):
    with FakeServer(reply=lambda request: "one two three four five") as server:
        spec = ModelSpec(name="paid", base_url=server.base_url, model="m", max_retries=0,
                         prices=Prices(input=100_000.0, output=100_000.0))  # dollars per million tokens
        registry = Registry({"paid": spec})

        def ask(n, max_cost):
            with open_models("paid", registry=registry, cache=False, journal=tmp_path / "journal",
                             max_cost=max_cost) as models:
                async def go():
                    try:
                        for k in range(n):
                            await models.target.complete([{"role": "user", "content": f"question {k}"}])
                    finally:
                        await models.aclose()
                asyncio.run(go())
                return models.ledger

        with pytest.raises(BudgetExceeded, match="resume it with the same command and a higher --max-cost"):
            ask(10, max_cost=3.0)
        made = server.counts["requests"]
        assert 1 <= made < 10  # stopped before spending past the budget (each call costs about $1-2)
        ledger = ask(made, max_cost=0.0001)  # the same calls again: all from the journal, free
        assert server.counts["requests"] == made and ledger.spent() == 0


def test_dry_run_prints_the_estimate_and_touches_nothing(tmp_path, capsys):
    from judgeagent.cli import main
    from tests.conftest import DATA
    from tests.scripted import Roles, Script

    with Roles(Script()) as roles:
        config = roles.write_config(tmp_path / "j.toml")
        code = main(["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark",
                     str(DATA / "multihop_rag" / "small.questions.jsonl"), "--no-extension", "--limit", "10",
                     "--run-dir", str(tmp_path / "run"), "--config", str(config), "--dry-run"])
        calls = roles.calls()
    out = capsys.readouterr().out
    assert code == 0 and "estimate for 10 items" in out and "target" in out and "interviewer" in out
    assert calls == 0 and not (tmp_path / "run").exists()
    # The lines every protocol's dry run opens with: the items, each role's model, the options given.
    assert out.splitlines()[:4] == [
        "dry run of protocol judgeagent: no model is called",
        f"  items: 10 of {DATA / 'multihop_rag' / 'small.questions.jsonl'}",
        "  roles: target=tgt, interviewer=int, judge=int", "  options: extension=False"]


def test_a_run_over_budget_stops_and_resumes_without_repeating_calls(tmp_path, mhr_graph, capsys):
    import json

    from judgeagent.cli import main
    from tests.scripted import Roles

    bench, script = _knows_federal()
    with Roles(script) as roles:
        config = roles.write_config(tmp_path / "j.toml")
        with config.open("a") as f:  # the target costs about a dollar a call
            f.write("\n[models.tgt.prices]\ninput = 20000.0\noutput = 20000.0\n")
        args = ["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark", str(bench), "--graph",
                str(mhr_graph.path), "--limit", "10", "--rounds", "1", "--run-dir", str(tmp_path / "run"),
                "--config", str(config), "--no-cache", "-q"]
        assert main(args + ["--max-cost", "3"]) == 1
        assert "higher --max-cost" in capsys.readouterr().err
        assert json.loads((tmp_path / "run" / "manifest.json").read_text())["status"] == "running"
        first = roles.target.counts["requests"]
        # The budget is the run's: the same command again spends nothing more, as its message says
        assert main(args + ["--max-cost", "3"]) == 1 and roles.target.counts["requests"] == first
        assert "higher --max-cost" in capsys.readouterr().err
        assert main(args + ["--max-cost", "1000"]) == 0
        both = roles.target.counts["requests"]
    with Roles(script) as fresh:
        config = fresh.write_config(tmp_path / "k.toml")
        with config.open("a") as f:
            f.write("\n[models.tgt.prices]\ninput = 20000.0\noutput = 20000.0\n")
        args[args.index("--config") + 1] = str(config)
        args[args.index("--run-dir") + 1] = str(tmp_path / "whole")
        assert main(args) == 0
        assert fresh.target.counts["requests"] == both  # stopped and resumed = one whole run
    # The resumed run's usage is the whole run's: every call the endpoint answered, over both invocations, and
    # what they cost, as the run made in one go says (the first invocation's calls were not asked again).
    usage = {name: json.loads((tmp_path / name / "summary.json").read_text())["usage"] for name in ("run", "whole")}
    assert usage["run"]["target"]["calls"] == both == usage["whole"]["target"]["calls"]
    assert usage["run"]["target"]["cost"] == pytest.approx(usage["whole"]["target"]["cost"])
    assert usage["run"]["target"]["cost"] > 3
    assert usage["run"]["interviewer"]["calls"] == usage["whole"]["interviewer"]["calls"]


def test_every_stage_reports_progress_on_a_non_terminal(tmp_path, mhr_slice_graph, capsys):
    from judgeagent.cli import main
    from tests.scripted import Roles

    bench, script = _knows_federal()
    with Roles(script) as roles:
        config = roles.write_config(tmp_path / "j.toml")
        code = main(["evaluate", "--target", "tgt", "--interviewer", "int", "--benchmark", str(bench), "--graph",
                     str(mhr_slice_graph.path), "--limit", "10", "--rounds", "1", "--run-dir", str(tmp_path / "run"),
                     "--config", str(config), "--no-cache", "--validate"])
    err = capsys.readouterr().err
    assert code == 0
    for stage in ("estimate for 10 items", "calibrating the judge", "base questions", "extension round 1",
                  "feedback for 2 of 2 batches written", "validation: 10/10 questions"):
        assert stage in err, (stage, err[-2000:])


def _knows_federal():
    """MultiHop-RAG small with a scripted target that knows the questions about the Federal Reserve."""
    from judgeagent.benchmark import load_benchmark
    from tests.conftest import DATA
    from tests.scripted import Script

    bench = DATA / "multihop_rag" / "small.questions.jsonl"
    script = Script(target_right={"Federal"})
    for item in load_benchmark(bench).items:
        script.golds[item.question] = item.gold
    return bench, script


def test_a_ledger_goes_on_from_an_earlier_invocations_rows_and_its_budget_is_the_whole_jobs(tmp_path):
    """What a resumed run does with its usage.jsonl: the rows a first invocation sent out (a paid call, a failure, a
    journal hit) make a second invocation's ledger start where the first one stopped, served name and float cost
    to the bit, and a budget the first invocation spent stops the second before any request."""
    from judgeagent.models import ModelError, UsageLedger

    with FakeServer(reply=lambda request: "one two three", first=[None, "500"]) as server:
        spec = ModelSpec(name="paid", base_url=server.base_url, model="m", max_retries=0,
                         prices=Prices(input=100_000.0, output=300_000.0))
        registry = Registry({"paid": spec})
        rows = []

        def ask(texts, max_cost=None):
            with open_models("paid", registry=registry, cache=False, journal=tmp_path / "journal",
                             max_cost=max_cost) as models:
                models.ledger.keep(list(rows), rows.append)

                async def go():
                    try:
                        for text in texts:
                            try:
                                await models.target.complete([{"role": "user", "content": text}])
                            except ModelError:
                                pass
                    finally:
                        await models.aclose()
                asyncio.run(go())
                return models.ledger

        first = ask(["a b", "c d e", "a b"])  # paid, failed (HTTP 500), answered by the journal
        assert first.totals()["target"] == {"calls": 1, "cache_hits": 1, "failures": 1, "input_tokens": 2,
                                            "output_tokens": 3, "cost": 1.1, "served": ["m"]}
        assert rows == [{"role": "target", "calls": 1, "input_tokens": 2, "output_tokens": 3, "cost": 1.1, "served": "m"},
                        {"role": "target", "failures": 1}, {"role": "target", "cache_hits": 1}]  # served: said once
        second = ask(["f g h", "c d e"])  # two paid calls
        line = second.totals()["target"]
        assert (line["calls"], line["cache_hits"], line["failures"], line["served"]) == (3, 1, 1, ["m"])
        assert (line["input_tokens"], line["output_tokens"]) == (2 + 3 + 3, 9)
        assert second.spent() == 0.2 + 0.9 + 0.3 + 0.9 + 0.3 + 0.9  # each call's cost, added in the order made
        again = UsageLedger()
        again.keep(rows, lambda row: None)
        assert again.totals() == second.totals() and len(rows) == 5
        made = server.counts["requests"]
        with pytest.raises(BudgetExceeded, match=r"^spent \$3\.5000 of --max-cost \$3: "):
            ask(["i j"], max_cost=3.0)
        assert server.counts["requests"] == made
