"""In-process roles behind loopback OpenAI-compatible servers, so that `evaluate` runs them unchanged."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ....models.spec import ModelSpec, Registry
from ....models.testserver import FakeServer


@contextlib.contextmanager
def serve_roles(roles: dict[str, Callable[[dict[str, Any]], str]], concurrency: int = 4) -> Iterator[Registry]:
    """One loopback server per role name, each answering with its function of the request (messages,
    response_format); yields a registry naming them. The real client, cache and journal sit in between."""
    with contextlib.ExitStack() as stack:
        specs = {}
        for name, reply in roles.items():
            server = stack.enter_context(FakeServer(reply=reply))
            specs[name] = ModelSpec(name=name, base_url=server.base_url, model=name, max_concurrency=concurrency,
                                    max_retries=0)
        yield Registry(specs)


def chat_reply(model: Any) -> Callable[[dict[str, Any]], str]:
    """A server reply function from an object with a synchronous `reply(messages) -> str`
    (`ExactTarget`); the server's thread calls it."""
    return lambda request: model.reply(request["messages"])
