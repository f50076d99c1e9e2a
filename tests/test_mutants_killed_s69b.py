"""Tests written at stop 69, second part (bench/mutants.md) against the survivors of the first mutation runs of
models/retry.py (which failures of a model call are retried, and how long to wait), graph/specificity.py (which
entities count as specific) and graph/walk.py (the walks a knowledge path is drawn from), each named by the
behaviour it pins; the mutant it kills is in the comment above it."""
from __future__ import annotations

import asyncio
import email.utils
import json
import math
import random
import time

import numpy as np
import openai
import pytest

from judgeagent.models import ModelError, ModelSpec, OpenAIChatModel
from judgeagent.models.retry import backoff
from judgeagent.models.testserver import FakeServer


class Statuses(FakeServer):
    """The loopback server, answering its first chat requests with the given (status, headers, message) each: an
    error body as OpenAI sends one; then as FakeServer does."""

    def __init__(self, answers: list[tuple[int, dict[str, str], str]], **kw) -> None:
        super().__init__(**kw)
        self.answers = list(answers)

    async def _respond(self, method, path, raw):
        if method == "POST" and self.answers:
            self.counts["requests"] += 1
            status, headers, message = self.answers.pop(0)
            return status, {"Content-Type": "application/json", **headers}, json.dumps(
                {"error": {"message": message}}).encode()
        return await super()._respond(method, path, raw)


def _model(server, **kw):
    return OpenAIChatModel(ModelSpec(name="fake", base_url=server.base_url, model="fake-model", **kw))


def _ask(model, text="hello"):
    return asyncio.run(model.complete([{"role": "user", "content": text}]))


# --- models/retry.py --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503])
def test_a_transient_status_is_retried_until_the_endpoint_answers(status):
    # retry.py:11 (408 -> 409, 429 -> 430: a status left out of TRANSIENT_STATUS), :40 (`in` -> `not in`, `>= 500`):
    # two failures then the answer, on the third request (Retry-After 0: no wait)
    with Statuses([(status, {"Retry-After": "0"}, "busy")] * 2) as server:
        answered = _ask(_model(server, max_retries=2))
        assert server.counts["requests"] == 3
    assert answered.ok and answered.text == "echo: hello" and answered.attempts == 3


@pytest.mark.parametrize(("status", "tail"), [(400, ""), (401, ""), (402, " after 1 attempt"), (403, ""), (404, ""),
                                              (418, " after 1 attempt"), (422, ""), (499, " after 1 attempt")])
def test_a_status_that_cannot_succeed_is_asked_once_and_a_fatal_one_names_no_attempts(status, tail):
    # retry.py:12 (400 -> 401, 401 -> 402: a status left out of FATAL_STATUS, another put in): a fatal status's
    # message says no attempt count (the request itself is wrong); another 4xx is not retried either, and says so
    with Statuses([(status, {}, "nope")]) as server:
        with pytest.raises(ModelError) as info:
            _ask(_model(server, max_retries=3))
        assert server.counts["requests"] == 1
        where = server.base_url
    assert str(info.value) == (
        f"model 'fake' (fake-model at {where}): HTTP {status}{tail}: Error code: {status} - nope")


def test_a_reply_without_choices_says_so_word_for_word(monkeypatch):
    # retry.py:21 (EmptyReply's message emptied): the failure after the last retry names what came back
    import judgeagent.models.client as client

    monkeypatch.setattr(client, "backoff", lambda attempt, error: 0.0)
    with FakeServer(faults={"nochoices": 1.0}) as server:
        with pytest.raises(ModelError) as info:
            _ask(_model(server, max_retries=1))
        assert server.counts["requests"] == 2
        where = server.base_url
    assert str(info.value) == (f"model 'fake' (fake-model at {where}): no answer after 2 attempts: a 200 reply whose "
                               "`choices` was empty (the endpoint gave no answer)")


def test_a_connection_refused_is_retried_as_many_times_as_allowed(monkeypatch):
    # retry.py:34 (a timeout or connection error `return True` -> None / False: not retried): nothing listens on the
    # port, so every attempt fails to connect; each attempt's wait is recorded
    import judgeagent.models.client as client

    waits = []
    monkeypatch.setattr(client, "backoff", lambda attempt, error: waits.append(attempt) or 0.0)
    with FakeServer() as server:
        where = server.base_url
    with pytest.raises(ModelError) as info:
        _ask(OpenAIChatModel(ModelSpec(name="fake", base_url=where, model="fake-model", max_retries=2)))
    assert waits == [1, 2]
    assert str(info.value).startswith(f"model 'fake' (fake-model at {where}): cannot connect (is the server running "
                                      "and the base_url right?) after 3 attempts: ")


def test_a_reply_the_client_cannot_read_is_not_retried(monkeypatch):
    # retry.py:39 (`return False` -> True for an error without a status): a 200 whose usage counts are not numbers
    # fails inside the client (ValueError), which no retry can mend: one request
    class BadUsage(FakeServer):
        async def _respond(self, method, path, raw):
            status, headers, payload = await super()._respond(method, path, raw)
            body = json.loads(payload)
            body["usage"] = {"prompt_tokens": "many", "completion_tokens": "few", "total_tokens": "lots"}
            return status, headers, json.dumps(body).encode()

    import judgeagent.models.client as client

    monkeypatch.setattr(client, "backoff", lambda attempt, error: 0.0)
    with BadUsage() as server:
        with pytest.raises(ModelError, match=r"ValueError after 1 attempt: "):
            _ask(_model(server, max_retries=3))
        assert server.counts["requests"] == 1


def _rate_limited(headers: dict[str, str]) -> openai.RateLimitError:
    """The error the openai SDK raises for a 429 carrying these headers (no retry of its own)."""
    with Statuses([(429, headers, "slow down")]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        with pytest.raises(openai.RateLimitError) as info:
            client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}])
        client.close()
    return info.value


def test_the_wait_is_the_servers_retry_after_in_seconds_milliseconds_or_a_date_capped_at_twice_the_cap():
    # retry.py:47 (the cap's `* 2` -> `* 3`), :59 (retry-after-ms returned as None; its floor 0.0 -> 1.0), :63 (`not
    # value` -> `value`: a Retry-After in seconds ignored), :69 (a past date's floor 0.0 -> 1.0)
    assert backoff(1, _rate_limited({"Retry-After": "7"})) == 7.0
    assert backoff(3, _rate_limited({"Retry-After": "0.25"})) == 0.25
    assert backoff(1, _rate_limited({"Retry-After": "100"})) == 60.0  # twice the 30 s cap
    assert backoff(1, _rate_limited({"Retry-After": "100"}), cap=10.0) == 20.0
    assert backoff(1, _rate_limited({"retry-after-ms": "2500"})) == 2.5
    assert backoff(1, _rate_limited({"retry-after-ms": "250", "Retry-After": "9"})) == 0.25  # ms first
    assert backoff(1, _rate_limited({"retry-after-ms": "-40"})) == 0.0
    assert backoff(1, _rate_limited({"retry-after-ms": "soon", "Retry-After": "3"})) == 3.0
    assert backoff(1, _rate_limited({"Retry-After": "-2"})) == 0.0
    past = email.utils.formatdate(time.time() - 3600, usegmt=True)
    assert backoff(1, _rate_limited({"Retry-After": past})) == 0.0
    ahead = email.utils.formatdate(time.time() + 20, usegmt=True)
    assert 15.0 < backoff(1, _rate_limited({"Retry-After": ahead})) <= 20.0


def test_without_retry_after_the_wait_doubles_from_half_a_second_up_to_the_cap_with_jitter(monkeypatch):
    # retry.py:48 (`attempt - 1` -> `attempt + 1`; the jitter's 0.5 -> 1.5): with the jitter at its middle the waits
    # are 0.5, 1, 2, ... 30; a 500's error (no Retry-After) waits the same as none
    monkeypatch.setattr(random, "uniform", lambda low, high: (low + high) / 2)
    assert [backoff(n, None) for n in range(1, 9)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert backoff(2, _rate_limited({})) == 1.0
    monkeypatch.undo()
    random.seed(69)
    waits = [backoff(1, None) for _ in range(400)]
    assert min(waits) >= 0.25 and max(waits) <= 0.75
    assert min(waits) < 0.3 and max(waits) > 0.7  # the jitter spreads the waits over half to one and a half times


def test_a_key_that_says_no_key_is_needed_is_not_hidden_in_a_message(monkeypatch):
    # retry.py:74 ('not-needed' -> ''): the placeholder a local endpoint is given stays in a message; a real key in
    # the variable is hidden
    monkeypatch.setenv("FAKE_KEY", "not-needed")
    with Statuses([(400, {}, "the key not-needed was ignored")]) as server:
        with pytest.raises(ModelError) as info:
            _ask(_model(server, api_key_env="FAKE_KEY"))
    assert str(info.value).endswith(": HTTP 400: Error code: 400 - the key not-needed was ignored")
    monkeypatch.setenv("FAKE_KEY", "plainsecret")
    with Statuses([(401, {}, "bad key plainsecret")]) as server:
        with pytest.raises(ModelError) as info:
            _ask(_model(server, api_key_env="FAKE_KEY"))
    assert str(info.value).endswith(": HTTP 401: Error code: 401 - bad key [redacted]")


def test_a_retry_after_that_is_neither_seconds_nor_a_date_is_a_wait_of_our_own():
    # a bug found at stop 69 (second part): `email.utils.parsedate_to_datetime` raised ValueError on "soon", and the
    # call ended with that bare ValueError (one request, no retry) instead of waiting its own backoff
    with Statuses([(429, {"Retry-After": "soon"}, "slow down")]) as server:
        answered = _ask(_model(server, max_retries=2))
        assert server.counts["requests"] == 2
    assert answered.ok and answered.attempts == 2


# --- graph/specificity.py ---------------------------------------------------------------------------------------

def _rarity(word: str) -> float:
    """A word's rarity by hand from wordfreq's own small English list: 1 at Zipf 3 or below, 0 at 6 or above, linear
    between; Zipf = log10(frequency) + 9 (a word the list lacks is rare: 1)."""
    from wordfreq import get_frequency_dict

    frequency = get_frequency_dict("en", "small").get(word)
    if frequency is None:
        return 1.0
    return min(1.0, max(0.0, (6.0 - (math.log10(frequency) + 9)) / 3.0))


def test_a_names_rarity_is_that_of_its_rarest_word_on_the_zipf_scale_from_three_to_six():
    # specificity.py:35 (ZIPF_RARE 3 -> 4), :97 (the Zipf scale's 1e9 -> 1e9 + 1; `freq > 0` -> `> 1`)
    from judgeagent.graph.specificity import name_rarity

    for name, words in (("crater", ["crater"]), ("land", ["land"]), ("ion engine", ["ion", "engine"]),
                        ("Home", ["home"]), ("way", ["way"]), ("the first time", ["the", "first", "time"])):
        assert name_rarity(name) == pytest.approx(max(_rarity(w) for w in words), abs=1e-12), name
    assert name_rarity("crater") == pytest.approx(0.8167, abs=1e-4)  # Zipf 3.55: (6 - 3.55) / 3
    assert name_rarity("engine") == pytest.approx(0.3867, abs=1e-4)  # Zipf 4.84
    assert name_rarity("heliopause") == 1.0 and name_rarity("1969") == 1.0 and name_rarity("x 7") == 1.0  # no word


def test_specificity_of_hand_built_tables():
    # specificity.py:54 (`n == 0` -> `!= 0`), :62 (`/ 2` -> `* 2`, `*` -> `/`, a name's 1.0 -> 2.0, `1 + idf` ->
    # `1 - idf`), :64 (a section label's 0.0 -> 1.0), :78-82 (the mentions' columns; the share returned as None):
    # N = 8 documents, idf = log(8 / n_docs) / log(8); a name scores (1 + idf) / 2, a concept rarity times that
    import pyarrow as pa

    from judgeagent.graph.specificity import specificity

    names = ["Ariane 5", "crater", "way", "land", "kepler field", "home base", "result", "method", "objective", "aim"]
    labels = ["PRODUCT"] + ["CONCEPT"] * 9
    n_docs = [1, 2, 8, 1, 4, 2, 4, 2, 8, 8]
    entities = pa.table({"name": names, "label": labels, "n_docs": pa.array(n_docs, pa.int64())})
    # "kepler field" capitalised in 2 of its 3 mentions, "home base" in 1 of 2 (a half: a name), "crater" in 1 of 3
    mentions = pa.table({"entity_id": pa.array([4, 4, 4, 5, 5, 1, 1, 1, 0], pa.int64()),
                         "surface": ["Kepler field", "kepler field", "Kepler Field", "Home base", "home base",
                                     "Crater", "crater", "crater", "Ariane 5"]})
    idf = [math.log(8 / n) / math.log(8) for n in n_docs]
    named = [True, False, False, False, True, True, False, False, False, False]
    rarity = [1.0 if is_name else _rarity(name) if " " not in name else max(_rarity(w) for w in name.split())
              for name, is_name in zip(names, named)]
    expected = [round(r * (1 + i) / 2, 4) for r, i in zip(rarity, idf)]
    got = specificity(entities, mentions, 8)
    assert got.dtype == np.float32 and got.tolist() == pytest.approx(expected, abs=1e-6)
    assert got[0] == 1.0 and got[2] == 0.0 and got[4] == pytest.approx(2 / 3, abs=1e-4)  # idf 1/3: (1 + 1/3) / 2
    assert got[5] == pytest.approx(5 / 6, abs=1e-4) and got[1] == pytest.approx(0.8167 * 5 / 6, abs=1e-4)
    # section labels: at least 3 documents and at least half of the entity's: "result" (3 of 4), "objective" (4 of 8)
    # are 0; "method" (2 of 2: too few) and "aim" (3 of 8: under half) keep their value
    labelled = specificity(entities, mentions, 8, np.array([0, 0, 0, 0, 0, 0, 3, 2, 4, 3]))
    assert labelled[6] == 0.0 and labelled[8] == 0.0
    assert np.array_equal(np.delete(labelled, [6, 8]), np.delete(got, [6, 8])) and got[6] > 0 and got[8] > 0
    # one document: every idf is 1; no rows: nothing
    one = specificity(entities.slice(0, 3), mentions.filter(pa.compute.less(mentions["entity_id"], 3)), 1)
    assert one.tolist() == pytest.approx([1.0, round(_rarity("crater"), 4), 0.0], abs=1e-6)
    empty = specificity(entities.slice(0, 0), mentions.slice(0, 0), 8)
    assert empty.dtype == np.float32 and empty.shape == (0,)


def test_a_share_of_capitalised_mentions_counts_each_entitys_rows():
    # specificity.py:82 (returned as None), :60 (PROPER_SHARE's `>=`): an entity without mentions has 0
    import pyarrow as pa

    from judgeagent.graph.specificity import capitalised_share

    mentions = pa.table({"entity_id": pa.array([0, 0, 0, 2, 2, 2, 2], pa.int64()),
                         "surface": ["Kepler", "kepler", "Kepler", "Éclair", "1969", "", "éclair"]})
    assert capitalised_share(mentions, 4).tolist() == pytest.approx([2 / 3, 0.0, 0.25, 0.0])
    assert capitalised_share(mentions.slice(0, 0), 3).tolist() == [0.0, 0.0, 0.0]


def test_generic_is_below_one_half():
    # specificity.py:29 (GENERIC 0.5 -> 1.5), :123 (`is_generic` returned as None; no caller in the package now)
    from judgeagent.graph.specificity import GENERIC, is_generic

    assert GENERIC == 0.5
    assert is_generic([0.0, 0.4999, 0.5, 0.8]).tolist() == [True, True, False, False]
    assert is_generic(np.array([], dtype=np.float32)).tolist() == []


def test_without_wordfreq_specificity_says_what_to_install(monkeypatch):
    # specificity.py:112 (the message emptied); :113 (the list's folder or file emptied: no file to read)
    import importlib.util

    from judgeagent import JudgeAgentError
    from judgeagent.graph import specificity as module

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "wordfreq" else real(name, *a))
    module._frequencies.cache_clear()
    try:
        with pytest.raises(JudgeAgentError) as info:
            module.name_rarity("crater")
        assert str(info.value) == "entity specificity needs the wordfreq package (pip install wordfreq)"
    finally:
        monkeypatch.undo()
        module._frequencies.cache_clear()
    assert module.name_rarity("crater") == pytest.approx(0.8167, abs=1e-4)


# --- graph/walk.py ----------------------------------------------------------------------------------------------

def _defined_steps(steps, w, k: int, kinds) -> list[tuple[float, int, int]]:
    """A walk's next steps by hand, one entity at a time, with the constants written out: among the entities linked
    to its last one by `kinds` (or through the question), not on it, those adding a document not on the walk (all if
    none can); each scored by its best chunk's similarity (2 less for a chunk on the walk), plus half the best
    similarity of a chunk it shares with the last entity (at least the question's best chunk's through the
    question), less 0.2 for a generic concept; the best entity for each of k chunks."""
    g, rel = steps.on.graph, steps.relevance.astype(np.float64)
    doc = steps.on.chunk_doc
    seen = {int(doc[c]) for c in w.chunks}
    current = w.entities[-1]
    options = sorted((set(g.neighbours(current, kinds).tolist()) | set(steps.linked.tolist())) - set(w.entities))
    fresh = [e for e in options if any(int(doc[c]) not in seen for c in g.chunks_of(e))]
    own = set(g.chunks_of(current).tolist())
    scored = []
    for e in fresh or options:
        chunks = g.chunks_of(e).tolist()
        values = [rel[c] - (2.0 if c in w.chunks else 0.0) for c in chunks]
        best = int(np.argmax(values))
        link = max([0.0] + [float(rel[c]) for c in chunks if c in own])
        if e in steps.linked:
            link = max(link, float(rel.max()))
        scored.append((values[best] - 0.2 * bool(steps.on.generic[e]) + 0.5 * link, e, chunks[best]))
    by_chunk: dict[int, tuple[float, int, int]] = {}
    for option in sorted(scored, key=lambda o: -o[0]):
        by_chunk.setdefault(option[2], option)
    return list(by_chunk.values())[:k]


def _demo_questions() -> list[str]:
    from tests.conftest import DEMO

    return [json.loads(line)["question"] for line in (DEMO / "questions.jsonl").read_text().splitlines()]


def _start(graph, relevance):
    """A question's walk start: the first entity of its best chunk, on its own chunk most like the question."""
    from judgeagent.graph import walk

    best = graph.entity_chunks.T.tocsr()[int(np.argmax(relevance))].indices
    own = graph.chunks_of(int(best[0]))
    return best, walk.Walk((int(best[0]),), (int(own[np.argmax(relevance[own])]),), 0.0)


@pytest.mark.parametrize("kinds", [("chunk", "document"), ("chunk",)])
def test_a_walks_next_steps_by_hand_with_the_constants_written_out(demo_graph, encoder, kinds):
    # walk.py:13 (GENERIC_HOP 0.2 -> 1.2: tests/test_paths.py's definition reads the module's constant), :189 (`"document"
    # in kinds` -> `not in`: with chunk links only, a walk's candidates are its last entity's chunk neighbours, not
    # every entity of its documents); the demo graph: 12 documents of 3-4 chunks each
    from judgeagent.graph import walk
    from judgeagent.graph.specificity import GENERIC

    g = demo_graph
    on = walk.WalkIndex(g, g.specificity < GENERIC)
    compared = generic = 0
    for question in _demo_questions()[:3]:
        relevance = encoder.encode([question])[0] @ g.chunk_vectors.T
        best, start = _start(g, relevance)
        steps = walk.Steps(on, relevance, np.unique(best[:3]), kinds)
        walks = walk.pool(steps, start, hops=3, k=5)
        assert len(walks) == 25
        for w in [start, *walks[:4]]:
            fast, defined = steps.options(w, 25), _defined_steps(steps, w, 25, kinds)
            assert [(e, c) for _, e, c in fast] == [(e, c) for _, e, c in defined]
            assert [s for s, _, _ in fast] == pytest.approx([s for s, _, _ in defined], abs=1e-9)
            compared += len(fast)
            generic += sum(bool(on.generic[e]) for _, e, _ in fast)
    assert compared >= 150 and generic >= 20  # generic concepts among the steps scored


def test_a_pool_spans_five_sixths_of_a_document_a_hop(demo_graph, encoder, monkeypatch):
    # walk.py:23 (DOC_FLOOR 5/6 -> 6/6): a 3-hop pool asks `_spread` for 2.5 documents a walk, a 2-hop one for 5/3,
    # and its 25 walks span at least that
    from judgeagent.graph import walk
    from judgeagent.graph.specificity import GENERIC

    asked = []
    spread = walk._spread
    monkeypatch.setattr(walk, "_spread", lambda ranked, n, chunk_doc, floor: asked.append((n, floor)) or spread(
        ranked, n, chunk_doc, floor))
    g = demo_graph
    on = walk.WalkIndex(g, g.specificity < GENERIC)
    relevance = encoder.encode([_demo_questions()[0]])[0] @ g.chunk_vectors.T
    _, start = _start(g, relevance)
    steps = walk.Steps(on, relevance, np.zeros(0, dtype=np.int64), ("chunk", "document"))
    three, two = walk.pool(steps, start, hops=3, k=5), walk.pool(steps, start, hops=2, k=5)
    assert asked == [(25, pytest.approx(2.5)), (5, pytest.approx(5 / 3))]
    assert len(three) == 25 and all(len(w.chunks) == 3 for w in three) and all(len(w.chunks) == 2 for w in two)
    assert sum(walk.spanned(w, on.chunk_doc) for w in three) >= 2.5 * 25
