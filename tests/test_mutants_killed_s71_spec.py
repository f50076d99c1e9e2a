"""Tests written at stop 71 against the survivors of the first mutation runs (seed 1) of models/spec.py (how the
model names users type become a model spec: the query parameters refused as credentials, `-M` settings, the
embedded model's spec) and chunking.py (sentences packed into chunks: a paragraph break preferred, sentences of no
word dropped, a long run-on text cut into windows). `spec_` and `chunks_` begin each module's tests; the mutant each
kills is in the comment above it."""
from __future__ import annotations

from pathlib import Path

import pytest

from judgeagent import ChunkConfig
from judgeagent.chunking import chunk_documents
from judgeagent.corpus import Document
from judgeagent.models.spec import ALIAS, GGUF_NAME, Registry, url_credentials


# models/spec.py:144-146 `_SECRET_PARAMS`: any one name emptied ('bearer', 'passwd', 'signature', 'authorization')
# let `?NAME=<key>` through into run manifests and the cache's model names. Every name, written out.
@pytest.mark.parametrize("name", [
    "key", "apikey", "xapikey", "subscriptionkey", "ocpapimsubscriptionkey", "token", "accesstoken", "authtoken",
    "apitoken", "bearer", "sessiontoken", "secret", "clientsecret", "password", "passwd", "pwd", "pass", "sig",
    "signature", "auth", "authorization", "credential", "credentials"])
def test_spec_each_query_parameter_named_as_a_credential_is_refused(name):
    assert url_credentials(f"http://h:1/v1?api-version=1&{name}=x") == f"the query parameter {name!r}"


# models/spec.py:234 MODEL_ARGS: `max_connections` (Inspect's name) mapped to '' made `-M max_connections=8` a
# validation error; each -M key is checked to land in its field
def test_spec_each_model_argument_sets_its_field():
    registry = Registry({})
    spec = registry.with_settings(["vllm:m"], {
        "max_connections": 8, "timeout": 30, "max_retries": 1, "structured_output": "json_object",
        "temperature": 0.5, "top_p": 0.9, "max_tokens": 64, "seed": 7}).resolve("vllm:m")
    assert (spec.max_concurrency, spec.timeout, spec.max_retries, spec.structured_output) == (8, 30.0, 1, "json_object")
    assert spec.generation.model_dump() == {"temperature": 0.5, "top_p": 0.9, "max_tokens": 64, "seed": 7}
    assert registry.with_settings(["vllm:m"], {"max_concurrency": 3}).resolve("vllm:m").max_concurrency == 3


# models/spec.py:293 `found is None` as `is not None`, 296 `/ GGUF_NAME` as `*` and `[0]` as `[1]`: `--target local`
# failed with the packaged weights installed; 305 `f"local:{gguf}"` emptied and 306 '/v1' emptied: the spec of
# `local:PATH` lost its name, and the embedded server's URL its route
def test_spec_the_embedded_models_spec_word_for_word(tmp_path, monkeypatch):
    monkeypatch.delenv("JUDGEAGENT_LOCAL_PORT", raising=False)
    packaged = Registry({}).resolve("local")
    assert (packaged.name, packaged.base_url, packaged.model) == ("local", "http://127.0.0.1:8765/v1", ALIAS)
    assert Path(packaged.gguf).name == GGUF_NAME and Path(packaged.gguf).is_file()
    weights = tmp_path / "mine.gguf"
    weights.write_bytes(b"GGUF")
    monkeypatch.setenv("JUDGEAGENT_LOCAL_PORT", "9001")
    own = Registry({}).resolve(f"local:{weights}")
    assert (own.name, own.base_url, own.gguf) == (f"local:{weights}", "http://127.0.0.1:9001/v1", str(weights))
    assert (own.max_concurrency, own.timeout, own.structured_output) == (1, 300.0, "json_object")


def _chunks(text: str, **config: int) -> list[tuple[str, int, int, int]]:
    return [(c.text, c.start, c.end, c.n_words) for c in chunk_documents([Document("d", "", text)], ChunkConfig(**config))]


# chunking.py:63 `k == 0` as `k != 0` (no paragraph opened by its first sentence), 114 `words >= max_words // 2` as
# `>` (a chunk exactly half full not closed at a paragraph), 70 `words == 0` as `words == 1` (the one-word "Yes."
# dropped, the wordless "* * *" kept)
def test_chunks_end_at_a_paragraph_once_half_full_and_keep_one_word_sentences_but_no_wordless_ones():
    first = "The river floods the valley. Yes. The town moves north."  # 5 + 1 + 4 words: half of 20
    text = f"{first}\n\n* * *\n\nThe people come back later."
    assert _chunks(text, max_words=20, min_words=0) == [
        (first, 0, 55, 10), ("The people come back later.", 64, 91, 5)]
    # under half full, the paragraph joins the chunk
    assert _chunks(text, max_words=22, min_words=0) == [(text, 0, 91, 15)]


# chunking.py:115 `current and (full or paragraph_end)` as `or`: a first sentence over max_words closed an empty
# group, which became a chunk of nothing (an IndexError) where min_words is 0
def test_chunks_a_first_sentence_longer_than_a_chunk_is_one_chunk():
    sentence = " ".join(f"w{i}" for i in range(30)) + "."
    assert _chunks(sentence, max_words=10, min_words=0) == [(sentence, 0, len(sentence), 30)]


# chunking.py:93 `ends[-1]` as `ends[-2]`: a window of 100,000 characters holding one sentence end (a title, then a
# run-on text) failed with an IndexError
def test_chunks_a_window_with_one_sentence_end_is_cut_after_it():
    text = "Short start. " + " ".join(["word"] * 25_000)
    chunks = chunk_documents([Document("d", "", text)], ChunkConfig())
    assert " ".join(c.text for c in chunks) == text and sum(c.n_words for c in chunks) == 25_002
