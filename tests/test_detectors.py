"""KIEval's comparison detectors: Min-K% Prob and LM loss, on the embedded model's own logits (llama.cpp, in
process) and refused in one line for an endpoint that returns no prompt log-probabilities."""
from __future__ import annotations

import asyncio
import random

import pytest

from judgeagent.errors import JudgeAgentError
from judgeagent.models import ModelSpec
from judgeagent.models.spec import load_registry
from judgeagent.models.testserver import FakeServer
from judgeagent.protocols.kieval.detectors import lm_loss, local_scores, min_k_prob, score_texts


def test_min_k_and_loss_by_hand():
    logprobs = [-1.0, -2.0, -3.0, -4.0, -5.0]
    assert lm_loss(logprobs) == pytest.approx(3.0)
    assert min_k_prob(logprobs, 0.2) == pytest.approx(-5.0)  # ceil(0.2 * 5) = 1 token: the lowest
    assert min_k_prob(logprobs, 0.4) == pytest.approx(-4.5)  # the two lowest
    assert min_k_prob(logprobs, 1.0) == pytest.approx(-lm_loss(logprobs))


def test_the_embedded_model_finds_natural_text_more_familiar_than_its_words_shuffled():
    pytest.importorskip("llama_cpp")
    text = ("The capital of France is Paris. It lies on the river Seine and is known for the Eiffel Tower, "
            "which was built for the World's Fair of 1889.")
    words = text.split()
    random.Random(0).shuffle(words)
    natural, shuffled = local_scores(load_registry().resolve("local").gguf, [("a", text), ("b", " ".join(words))])
    assert natural.tokens == shuffled.tokens or abs(natural.tokens - shuffled.tokens) <= 3
    assert natural.lm_loss < shuffled.lm_loss - 1.0  # nats per token
    assert natural.min_k_prob > shuffled.min_k_prob
    assert 0 < natural.lm_loss < 6  # a language model's range, not the server's misread rows (~10)


def test_an_endpoint_without_prompt_logprobs_is_one_clear_error():
    with FakeServer() as server:  # a chat endpoint: its completions answer carries no token log-probabilities
        spec = ModelSpec(name="chat-only", base_url=server.base_url, model="m", max_retries=0)
        with pytest.raises(JudgeAgentError, match="returns no log-probabilities of a prompt's tokens"):
            asyncio.run(score_texts(spec, [("q1", "Some text to score.")]))
