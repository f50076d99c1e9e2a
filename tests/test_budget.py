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
