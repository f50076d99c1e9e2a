"""The in-process FunctionModel (orchestration tests without HTTP) behaves like the real client on what
orchestration depends on: structured replies parsed or refused the same way, calls recorded, the journal
replaying them; and the loopback server's schema filler honours bounds and enums."""
import asyncio
import json

from pydantic import BaseModel, Field

from judgeagent.models.cache import CachedModel, ResponseCache
from judgeagent.models.testing import FunctionModel
from judgeagent.models.testserver import example
from judgeagent.protocols.kieval.rubric import TurnEvaluation


class Pick(BaseModel):
    reasoning: str
    choice: int = Field(ge=1, le=4)


def test_structured_replies_are_parsed_or_refused_like_the_real_client():
    model = FunctionModel(lambda messages: json.dumps({"reasoning": "because", "choice": 3}))
    done = asyncio.run(model.complete([{"role": "user", "content": "pick"}], schema=Pick))
    assert done.ok and done.parsed == Pick(reasoning="because", choice=3)
    bad = FunctionModel(lambda messages: json.dumps({"reasoning": "r", "choice": 9}))
    refused = asyncio.run(bad.complete([{"role": "user", "content": "pick"}], schema=Pick))
    assert not refused.ok and refused.parsed is None and "choice" in refused.error
    assert model.calls == [[{"role": "user", "content": "pick"}]]


def test_async_replies_and_the_journal(tmp_path):
    async def reply(messages):
        return f"seen {len(messages)}"

    model = FunctionModel(reply)
    journaled = CachedModel(model, ResponseCache(tmp_path))
    first = asyncio.run(journaled.complete([{"role": "user", "content": "a"}]))
    again = asyncio.run(journaled.complete([{"role": "user", "content": "a"}]))
    assert first.text == again.text == "seen 1" and again.cached and len(model.calls) == 1


def test_the_schema_filler_honours_bounds_and_enums():
    schema = TurnEvaluation.model_json_schema()
    filled = example(schema, schema.get("$defs", {}))
    evaluation = TurnEvaluation.model_validate(filled)  # scores 1-4 and a stop reason from the list
    assert evaluation.accuracy.score == 1 and evaluation.stop_reason == "none"
    assert Pick.model_validate(example(Pick.model_json_schema(), {})).choice == 1
