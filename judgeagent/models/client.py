"""Bounded, retried calls to any OpenAI-compatible endpoint, with structured output adapted per endpoint."""
from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import JudgeAgentError
from .base import Completion, CompletionExtra, Message, ModelError, ModelIdentity, ModelSettings, Usage
from .retry import FATAL_STATUS, EmptyReply, backoff, is_transient, scrub, status_of
from .spec import ModelSpec

_REPAIR = ("Your previous reply was not valid: {problem}. Reply again with only a JSON object that "
           "matches the schema, nothing else.")


class OpenAIChatModel:
    """One endpoint. Owns its concurrency bound, timeouts, retries and structured-output dialect."""

    def __init__(self, spec: ModelSpec, client: Any = None) -> None:
        self.spec = spec
        self.name = spec.name
        self._client = client
        self._owns_client = client is None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._mode = spec.structured_output
        self.requests = 0
        """HTTP requests sent, retries and repairs included."""
        self.served = ""
        """The model name the endpoint said it answered with (its reply's `model`: `gpt-4o-2024-08-06` for
        `gpt-4o`, a vLLM or llama.cpp server's own name for what it loaded), once it has answered."""

    def identity(self) -> ModelIdentity:
        """Everything about this endpoint that changes an answer (for the response cache). The embedded model is
        its weights file, not the port its server happened to get: two GGUF files never share answers."""
        if self.spec.gguf:
            from .weights import weights_identity

            return {"weights": weights_identity(self.spec.gguf), "model": self.spec.model,
                    "generation": self.spec.generation.model_dump(), "mode": self.spec.structured_output}
        return {"base_url": self.spec.base_url, "model": self.spec.model,
                "generation": self.spec.generation.model_dump(), "mode": self.spec.structured_output}

    @property
    def client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._loop is not loop and self._owns_client:
            # An HTTP client (and a semaphore) belongs to the event loop that made it: a caller that
            # runs asyncio.run() twice gets fresh ones rather than "Event loop is closed".
            self._client, self._semaphore, self._loop = None, None, loop
        if self._client is None:
            # openai reads sys.modules["httpx"] to accept the legacy package's types; while another thread
            # (a model hub library loading the encoder, say) is still importing httpx, that module is there half
            # made and client creation failed ("partially initialized module 'httpx' has no attribute 'URL'",
            # one run in five of tests/test_recipes.py). An import waits for the other thread to finish it.
            import httpx  # noqa: F401
            from openai import AsyncOpenAI

            # Our retry loop owns retries (transient errors only, capped, Retry-After honoured).
            self._client = AsyncOpenAI(base_url=self.spec.base_url, api_key=self.spec.api_key(),
                                       max_retries=0, timeout=self.spec.timeout)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def complete(self, messages: list[Message], *, schema: type[BaseModel] | None = None,
                       **settings: Any) -> Completion:
        self.client  # binds client and semaphore to the running loop
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.spec.max_concurrency)
        async with self._semaphore:
            start = time.perf_counter()
            if schema is None:
                text, usage, attempts = await self._chat(messages, None, settings)
                return Completion(text, None, usage, self.spec.model, latency=time.perf_counter() - start,
                                  attempts=attempts)
            return await self._structured(messages, schema, settings, start)

    async def _structured(self, messages: list[Message], schema: type[BaseModel], settings: ModelSettings,
                          start: float) -> Completion:
        """Ask for JSON; on invalid output one repair turn, then a recorded failure (never an exception)."""
        messages = _with_schema_hint(messages, schema)
        total, attempts, problem, text = Usage(), 0, "", ""
        for turn in range(2):
            text, usage, tries = await self._chat(messages, schema, settings)
            total = Usage(total.input_tokens + usage.input_tokens, total.output_tokens + usage.output_tokens)
            attempts += tries
            parsed, problem = parse_structured(text, schema)
            if parsed is not None:
                return Completion(text, parsed, total, self.spec.model, latency=time.perf_counter() - start,
                                  attempts=attempts, extra=CompletionExtra(repaired=turn > 0))
            messages = [*messages, {"role": "assistant", "content": text},
                        {"role": "user", "content": _REPAIR.format(problem=problem)}]
        return Completion(text, None, total, self.spec.model, latency=time.perf_counter() - start,
                          attempts=attempts, error=f"invalid structured output after one repair: {problem}",
                          extra=CompletionExtra(repaired=True))

    async def _chat(self, messages: list[Message], schema: type[BaseModel] | None,
                    settings: ModelSettings) -> tuple[str, Usage, int]:
        attempt = 0
        while True:
            attempt += 1
            request = self._request(messages, schema, settings)
            try:
                self.requests += 1
                # The SDK's documented route for raw bodies: `chat.completions.create` first walks the whole
                # body (every message, the schema) against its typed parameters, about 2 ms of event-loop CPU
                # per call, to send the same JSON; measured with bench/evaluate.py --protocol interviewer.
                response = await self.client.post("/chat/completions", cast_to=_completion_type(), body=request)
                self.served = str(getattr(response, "model", "") or "") or self.served
                return _text(response), _usage(response), attempt
            except JudgeAgentError:
                raise
            except Exception as error:  # the SDK's errors, classified below
                if schema is not None and self._fallback(error, request["response_format"]["type"]):
                    continue
                if not is_transient(error) or attempt > self.spec.max_retries:
                    raise ModelError(self._describe(error, attempt)) from None
                await asyncio.sleep(backoff(attempt, error))

    def _request(self, messages: list[Message], schema: type[BaseModel] | None,
                 settings: ModelSettings) -> dict[str, Any]:
        options = {k: v for k, v in {**self.spec.generation.model_dump(), **settings}.items() if v is not None}
        request: dict[str, Any] = {"model": self.spec.model, "messages": messages, **options}
        if schema is not None:
            request["response_format"] = response_format(schema, self._effective_mode())
        return request

    def _effective_mode(self) -> str:
        return "json_schema" if self._mode == "auto" else self._mode

    def _fallback(self, error: BaseException, sent: str) -> bool:
        """`auto`: an endpoint that refuses `json_schema` gets `json_object` from then on, said once. Servers refuse
        it in their own ways: llama.cpp's answers 422, llama-cpp-python's 500 (its request validation fails), others
        400; each names the response format in the message. `sent`: the format this request asked for; every call
        already on its way with json_schema when the first refusal came is refused too, and asks again."""
        status = status_of(error)
        if not (self.spec.structured_output == "auto" and sent == "json_schema" and status in (400, 422, 500) and any(
                word in str(error) for word in ("response_format", "json_schema"))):
            return False
        if self._mode == "auto":
            self._mode = "json_object"
            logging.getLogger("judgeagent").warning(
                f"note: model {self.spec.name!r} ({self.spec.endpoint()}) refused a json_schema response format "
                f"(HTTP {status}); asking it for json_object from now on (set structured_output = \"json_object\" "
                "for it in judgeagent.toml to skip the first try)")
        return True

    def _describe(self, error: BaseException, attempt: int) -> str:
        import openai

        status = status_of(error)
        what = f"HTTP {status}" if status else type(error).__name__
        if isinstance(error, EmptyReply):
            what = "no answer"
        if isinstance(error, openai.APITimeoutError):
            what = f"no answer within {self.spec.timeout:g} s"
        elif isinstance(error, openai.APIConnectionError):
            what = "cannot connect (is the server running and the base_url right?)"
        detail = scrub(str(getattr(error, "message", "") or error), _env_secret(self.spec))[:300]
        tail = "" if status in FATAL_STATUS else f" after {attempt} attempt{'s' * (attempt > 1)}"
        return f"model {self.spec.name!r} ({self.spec.endpoint()}): {what}{tail}: {detail}"


@functools.lru_cache(maxsize=256)
def _schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema())


def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """`schema.model_json_schema()`, built once per class: pydantic rebuilds it on every call (about 0.5 ms,
    three times per structured request, on the event loop). A fresh copy each time: callers may edit it."""
    return json.loads(_schema_text(schema))  # type: ignore[no-any-return]


@functools.cache
def _completion_type() -> Any:
    from openai.types.chat import ChatCompletion

    return ChatCompletion


def response_format(schema: type[BaseModel], mode: str) -> dict[str, Any]:
    json_schema = json_schema_of(schema)
    if mode == "json_object":  # llama.cpp: JSON mode constrained by a grammar built from `schema`
        return {"type": "json_object", "schema": json_schema}
    return {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": json_schema}}


def parse_structured(text: str, schema: type[BaseModel]) -> tuple[BaseModel | None, str]:
    """(parsed, "") or (None, the problem in one line)."""
    candidate = text.strip()
    if candidate.startswith("```"):  # models that wrap JSON in a code fence anyway
        candidate = candidate.strip("`").removeprefix("json").strip()
    try:
        return schema.model_validate(json.loads(candidate)), ""
    except json.JSONDecodeError as e:
        return None, f"not JSON ({e.msg} at character {e.pos})"
    except ValidationError as e:
        first = e.errors()[0]
        return None, f"{'.'.join(str(p) for p in first['loc']) or 'reply'}: {first['msg']}"


def _with_schema_hint(messages: list[Message], schema: type[BaseModel]) -> list[Message]:
    # Endpoints that accept JSON mode but ignore the schema still follow an instruction.
    hint = f"Reply with only a JSON object matching this JSON schema:\n{_schema_text(schema)}"
    return [*messages[:-1], {**messages[-1], "content": f"{messages[-1]['content']}\n\n{hint}"}]


def _text(response: Any) -> str:
    choices = getattr(response, "choices", None)
    if not choices:  # no answer at all, not an empty one: retried, and never cached as an answer
        raise EmptyReply()
    return choices[0].message.content or ""


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    if usage is None:
        return Usage()
    return Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))


def _env_secret(spec: ModelSpec) -> str | None:
    import os

    return os.environ.get(spec.api_key_env) if spec.api_key_env else None
