"""`FunctionModel`: an in-process `ChatModel` whose replies come from a Python function.

For tests of orchestration (who is asked what, in which order, with what history) where an HTTP
round trip adds nothing. Tests of the model layer itself (retries, structured output, the SDK) use
the loopback server in `testserver` instead. Replies to a `schema` are parsed exactly as the real
client parses them, so a scripted reply that would not validate fails the same way.
"""
from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from .base import Completion, Message, ModelIdentity, ModelSettings, Usage
from .client import parse_structured

Reply = Callable[[list[Message]], "str | Awaitable[str]"]


class FunctionModel:
    """`reply(messages)` (sync or async) gives the text; every call is kept in `calls`, its schema and settings
    (`max_tokens`, ...) at the same index in `schemas` and `settings`."""

    def __init__(self, reply: Reply, name: str = "function") -> None:
        self.reply = reply
        self.name = name
        self.calls: list[list[Message]] = []
        self.schemas: list[type[BaseModel] | None] = []
        self.settings: list[ModelSettings] = []

    def identity(self) -> ModelIdentity:
        return {"function": self.name}  # for the response cache and a run's journal

    async def complete(self, messages: list[Message], *, schema: type[BaseModel] | None = None,
                       **settings: Any) -> Completion:
        self.calls.append([dict(m) for m in messages])
        self.schemas.append(schema)
        self.settings.append(dict(settings))
        text = self.reply(messages)
        if inspect.isawaitable(text):
            text = await text
        usage = Usage(sum(len(m.get("content", "").split()) for m in messages), len(str(text).split()))
        if schema is None:
            return Completion(str(text), None, usage, self.name)
        parsed, error = parse_structured(str(text), schema)
        return Completion(str(text), parsed, usage, self.name, error=error or None)
