"""The contamination detectors KIEval's paper compares itself with: Min-K% Prob and LM loss.

Both read the model's log-probability of each token of a benchmark instance, given the tokens before it:
LM loss is their negated mean (lower: the text is more familiar), Min-K% Prob (Shi et al., 2024) the mean of
the lowest k% of them (higher: fewer surprising tokens, a sign the text was seen in training). They need an
endpoint that returns the log-probabilities of the prompt's own tokens: the legacy completions route with
`echo` and `logprobs` (vLLM). Chat endpoints (OpenAI's among them) return none, and we say so rather than guess.
The embedded model is scored in process from llama.cpp's own logits: llama-cpp-python's server (0.3.x) does
return echo log-probabilities with `--logits_all true`, but from the wrong rows (measured on SmolLM2: -9.6,
-10.5, -11.2 where its logits give -11.45, -0.41, -2.52 for "The capital of France"), so we do not read them.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypedDict, cast

from ...errors import JudgeAgentError
from ...models.spec import ModelSpec

DEFAULT_K = 0.2
"""Shi et al.'s recommended share of lowest-probability tokens."""


class TextScoreRow(TypedDict):
    """A `TextScore` as JSON."""

    qid: str
    tokens: int
    lm_loss: float
    min_k_prob: float


@dataclass(frozen=True)
class TextScore:
    qid: str
    tokens: int
    lm_loss: float
    min_k_prob: float

    def to_dict(self) -> TextScoreRow:
        return cast(TextScoreRow, asdict(self))


def min_k_prob(logprobs: Sequence[float], k: float = DEFAULT_K) -> float:
    """The mean of the lowest ceil(k * n) token log-probabilities."""
    if not logprobs:
        raise ValueError("no token log-probabilities")
    lowest = sorted(logprobs)[: max(1, math.ceil(k * len(logprobs)))]
    return sum(lowest) / len(lowest)


def lm_loss(logprobs: Sequence[float]) -> float:
    """The mean negative log-likelihood per token (its exponential is the perplexity)."""
    if not logprobs:
        raise ValueError("no token log-probabilities")
    return -sum(logprobs) / len(logprobs)


def _cannot(spec: ModelSpec, why: str) -> JudgeAgentError:
    return JudgeAgentError(
        f"model {spec.name!r} at {spec.base_url} returns no log-probabilities of a prompt's tokens ({why}); "
        "Min-K% and LM loss need them: serve the model with vLLM (its completions route with echo and logprobs), "
        "or give a GGUF file as the embedded model, which is scored in process")


async def prompt_logprobs(client: Any, spec: ModelSpec, text: str) -> list[float]:
    """The log-probability of each token of `text` given the tokens before it (the first token has none)."""
    import openai

    try:
        reply = await client.completions.create(model=spec.model, prompt=text, max_tokens=1, echo=True,
                                                logprobs=1, temperature=0)
    except openai.APIStatusError as e:
        raise _cannot(spec, f"the completions route answered {e.status_code}") from None
    except openai.APIConnectionError as e:
        raise JudgeAgentError(f"cannot reach model {spec.name!r} at {spec.base_url}: {e}") from None
    choice = (getattr(reply, "choices", None) or [None])[0]
    logprobs = getattr(choice, "logprobs", None)
    values = getattr(logprobs, "token_logprobs", None)
    if not values:
        raise _cannot(spec, "the reply has no token_logprobs")
    prompt_tokens = getattr(getattr(reply, "usage", None), "prompt_tokens", None) or len(values)
    return [float(v) for v in values[:prompt_tokens] if v is not None]


async def score_texts(spec: ModelSpec, texts: Sequence[tuple[str, str]], k: float = DEFAULT_K,
                      concurrency: int = 4) -> list[TextScore]:
    """(qid, text) pairs scored one request each, `concurrency` at a time."""
    import asyncio

    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=spec.base_url, api_key=spec.api_key() or "none", max_retries=spec.max_retries)
    bound = asyncio.Semaphore(concurrency)

    async def one(qid: str, text: str) -> TextScore:
        async with bound:
            values = await prompt_logprobs(client, spec, text)
        if not values:
            raise _cannot(spec, f"item {qid} got no token log-probabilities")
        return TextScore(qid, len(values), round(lm_loss(values), 6), round(min_k_prob(values, k), 6))

    try:
        return list(await asyncio.gather(*(one(q, t) for q, t in texts)))
    finally:
        await client.close()


def instance_text(question: str, gold: str, options: dict[str, str] | None = None) -> str:
    """A benchmark instance as it would appear in training data: the question, its options, its answer."""
    lines = [question, *(f"{k}. {v}" for k, v in (options or {}).items()), f"Answer: {gold}"]
    return "\n".join(lines)


def local_scores(gguf: str, texts: Sequence[tuple[str, str]], k: float = DEFAULT_K) -> list[TextScore]:
    """The embedded model's token log-probabilities from llama.cpp's logits, in process (one text at a time)."""
    import numpy as np
    from llama_cpp import Llama

    model = Llama(gguf, logits_all=True, verbose=False, n_ctx=4096)
    out = []
    for qid, text in texts:
        tokens = model.tokenize(text.encode("utf-8"), add_bos=False)[: model.n_ctx()]
        model.reset()
        model.eval(tokens)
        logits = np.asarray(model.scores[: len(tokens)], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        logsoftmax = logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
        values = [float(logsoftmax[i - 1, tokens[i]]) for i in range(1, len(tokens))]
        if not values:
            raise JudgeAgentError(f"item {qid}: its text is a single token; nothing to score")
        out.append(TextScore(qid, len(values), round(lm_loss(values), 6), round(min_k_prob(values, k), 6)))
    return out
