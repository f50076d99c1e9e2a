"""The model seam: one async `complete` used by every stage, and what it returns."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, TypedDict

from pydantic import BaseModel, JsonValue

from ..errors import JudgeAgentError
from .weights import WeightsIdentity

Message = dict[str, str]
"""An OpenAI chat message: {"role": "system" | "user" | "assistant", "content": "..."}."""


ModelSettings: TypeAlias = dict[str, JsonValue]
"""Settings of a model or of one call (`temperature`, `max_tokens`, `seed`, any `-M KEY=VALUE`, a JSON value or
text): checked where they are used (the registry's `Generation` and endpoint fields; the server)."""


class CompletionExtra(TypedDict, total=False):
    """What a `Completion` says beside its answer, for the protocols that read it."""

    repaired: bool
    """Structured output: the first reply was not valid and the one repair turn was asked for."""


class ModelIdentity(TypedDict, total=False):
    """Everything about a model that changes an answer: an endpoint (`base_url`, `model`, generation settings,
    structured-output mode), the embedded model's `weights` instead of its address, or a Python function's name."""

    base_url: str | None
    weights: WeightsIdentity
    model: str
    generation: dict[str, object]
    mode: str
    function: str


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """A model's answer. `error` is set, and `text` may be empty, when the call failed cleanly."""

    text: str
    parsed: BaseModel | None = None
    usage: Usage = Usage()
    model: str = ""
    cached: bool = False
    latency: float = 0.0
    attempts: int = 1
    error: str | None = None
    extra: CompletionExtra = field(default_factory=lambda: CompletionExtra())

    @property
    def ok(self) -> bool:
        return self.error is None


class ModelError(JudgeAgentError):
    """A call that cannot succeed (bad request, auth, unknown model) or that ran out of retries."""


class ChatModel(Protocol):
    """A model completes: messages in, one `Completion` out. `schema` asks for structured output."""

    name: str

    async def complete(
        self, messages: list[Message], *, schema: type[BaseModel] | None = None, **settings: Any
    ) -> Completion: ...
