"""Tests written at stop 69 (bench/mutants.md) against the survivors of the first mutation runs of
graph/relevance.py (`judgeagent paths-check`'s numbers), models/usage.py and models/cache.py (usage accounting and
the response cache), each named by the behaviour it pins; the mutant it kills is in the comment above it."""
from __future__ import annotations

import asyncio
import errno
import json
import sqlite3
import threading
import time
import types

import pytest

from judgeagent import JudgeAgentError
from judgeagent.errors import BudgetExceeded
from judgeagent.models import ModelError, ModelSpec, OpenAIChatModel, ResponseCache, RoleModel, UsageLedger
from judgeagent.models import cache as cache_module
from judgeagent.models import usage as usage_module
from judgeagent.models.cache import CachedModel, default_cache_dir, source_of
from judgeagent.models.spec import Prices
from judgeagent.models.testing import FunctionModel
from judgeagent.models.testserver import FakeServer


def _ask(model, text, **settings):
    return asyncio.run(model.complete([{"role": "user", "content": text}], **settings))


# --- models/usage.py --------------------------------------------------------------------------------------------

def test_a_roles_line_counts_paid_calls_hits_failures_tokens_dollars_and_the_served_name_once(tmp_path):
    # usage.py:41 (`not self.served` -> `self.served`), :68 and :72 (a failure or a hit counted twice), :77 (the
    # prices multiplied, per million tokens), :114 (`served not in` -> `in`), :121 (`is not None` -> `is None`): the
    # loopback server answers "echo: <prompt>" as model "fake-model"; a prompt of n words is n input tokens
    with FakeServer(first=[None, None, "500"]) as server:
        spec = ModelSpec(name="fake", base_url=server.base_url, model="fake-model", max_retries=0)
        ledger = UsageLedger()
        model = RoleModel("target", CachedModel(OpenAIChatModel(spec), ResponseCache(tmp_path)), ledger,
                          Prices(input=1_000_000.0, output=2_000_000.0))  # a dollar an input token, two an output

        async def calls():
            asked = [await model.complete([{"role": "user", "content": text}])
                     for text in ("one two three", "four five", "one two three")]
            with pytest.raises(ModelError, match="HTTP 500"):
                await model.complete([{"role": "user", "content": "six"}])
            await model.model.aclose()
            return asked

        first, second, hit = asyncio.run(calls())
    assert first.ok and second.ok and hit.cached and server.counts["requests"] == 3
    line = ledger.roles["target"]
    # two paid calls: 3 + 2 input tokens, "echo: one two three" (4) + "echo: four five" (3) output tokens; the
    # call the endpoint failed is a failure, neither a call nor tokens
    assert (line.calls, line.cache_hits, line.failures) == (2, 1, 1)
    assert (line.input_tokens, line.output_tokens, line.cost) == (5, 7, 5 + 2 * 7)
    assert ledger.totals() == {"target": {"calls": 2, "cache_hits": 1, "failures": 1, "input_tokens": 5,
                                          "output_tokens": 7, "cost": 19.0, "served": ["fake-model"]}}
    assert ledger.spent() == line.cost


def _fine_but_boom(messages):
    """A Python model that answers "fine", and raises on "boom"."""
    if messages[-1]["content"] == "boom":
        raise RuntimeError("boom")
    return "fine"


def test_a_role_whose_model_names_no_served_model_has_no_served_field_and_a_raised_call_is_a_failure():
    # usage.py:41 (`not self.served` removed): a Python model names no served model, so its line has no `served`;
    # usage.py:69 (`result is None` turned): a call that raised is one failure, no call, no tokens
    ledger = UsageLedger()
    model = RoleModel("judge", FunctionModel(_fine_but_boom), ledger)
    assert _ask(model, "a b").text == "fine"
    with pytest.raises(RuntimeError):
        _ask(model, "boom")
    assert ledger.totals() == {"judge": {"calls": 1, "cache_hits": 0, "failures": 1, "input_tokens": 2,
                                         "output_tokens": 1, "cost": 0.0}}


def test_the_usage_table_word_for_word():
    # usage.py:83-86: the header's names and every column's width and format
    ledger = UsageLedger()
    ledger.roles["target"] = usage_module.RoleUsage(12, 3, 1, 4567, 890, 1.23456789)
    ledger.roles["judge"] = usage_module.RoleUsage(4, 0, 0, 100, 20, 0.5)
    assert ledger.render() == (
        "role          calls  cached  failed    in tok   out tok     cost $\n"
        "judge             4       0       0       100        20     0.5000\n"
        "target           12       3       1      4567       890     1.2346")


def test_the_budget_stops_a_call_once_spending_reaches_it_and_says_so_word_for_word():
    # usage.py:61 (`>=` -> `>`): a limit reached exactly stops the next call; usage.py:62 (the message)
    ledger = UsageLedger(max_cost=2.5)
    ledger.roles["target"] = usage_module.RoleUsage(cost=2.5)
    with pytest.raises(BudgetExceeded) as stopped:
        ledger.check_budget()
    assert str(stopped.value) == ("spent $2.5000 of --max-cost $2.5: the run stopped here; resume it with the same "
                                  "command and a higher --max-cost")
    ledger.roles["target"].cost = 2.4999
    ledger.check_budget()  # under it: the call goes on
    UsageLedger().check_budget()  # no limit


def test_a_roles_seconds_are_the_wall_time_inside_its_calls_added_up(monkeypatch):
    # usage.py:110 (`- start` -> `+ start`; the first call's 0.0 -> 1.0): two calls of 0.25 s and 0.5 s on a clock
    # the test sets, the second one raising (its time is counted too)
    ticks = iter([10.0, 10.25, 20.0, 20.5])
    monkeypatch.setattr(usage_module, "time", types.SimpleNamespace(perf_counter=lambda: next(ticks)))

    ledger = UsageLedger()
    model = RoleModel("judge", FunctionModel(_fine_but_boom), ledger)
    _ask(model, "x")
    assert ledger.seconds == {"judge": 0.25}
    with pytest.raises(RuntimeError):
        _ask(model, "boom")
    assert ledger.seconds == {"judge": 0.75}


# --- models/cache.py --------------------------------------------------------------------------------------------

def test_the_default_cache_folder_is_the_variable_then_xdg_then_home(monkeypatch, tmp_path):
    # cache.py:27 (the variable's name emptied), :29 and :30 (returned as None), :30 (`/` -> `*`)
    monkeypatch.setenv("JUDGEAGENT_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("JUDGEAGENT_CACHE_DIR")
    assert default_cache_dir() == tmp_path / "xdg" / "judgeagent"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "judgeagent"
    monkeypatch.setenv("JUDGEAGENT_CACHE_DIR", str(tmp_path / "mine"))
    assert ResponseCache().path == tmp_path / "mine" / "responses.sqlite"


def test_switching_to_wal_waits_out_a_lock_for_thirty_seconds_with_doubling_sleeps(monkeypatch):
    # cache.py:33 (the 30 s patience as 31): a file locked by another process is tried again, each wait twice the
    # last up to 0.2 s, until 30 s have passed (a clock the test sets); another error is raised at once
    clock, sleeps = {"reads": iter([0.0, *range(1, 10), 30.5])}, []
    monkeypatch.setattr(cache_module, "time", types.SimpleNamespace(monotonic=lambda: next(clock["reads"]),
                                                                    sleep=sleeps.append))

    class Locked:
        tries = 0

        def execute(self, sql):
            self.tries += 1
            raise sqlite3.OperationalError(self.error)

    db = Locked()
    db.error = "database is locked"
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        cache_module._switch_to_wal(db)
    assert db.tries == 10 and sleeps == [0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.2, 0.2, 0.2]
    other, sleeps[:], clock["reads"] = Locked(), [], iter([0.0])
    other.error = "no such table"
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        cache_module._switch_to_wal(other)
    assert other.tries == 1 and sleeps == []


def test_a_cache_that_cannot_be_used_says_why_and_what_to_do_word_for_word(tmp_path):
    # cache.py:79 (`and` -> `or`: every error said as "is a file"), :80, :83, :87 (the messages' words)
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(JudgeAgentError) as error:
        ResponseCache(afile)
    assert str(error.value) == (f"cannot use the response store {afile / 'responses.sqlite'}: {afile} is a file, not "
                                "a folder; give a folder (--cache-dir)")
    folder = tmp_path / "store"
    (folder / "responses.sqlite").mkdir(parents=True)  # a folder where the file should be: SQLite cannot open it
    with pytest.raises(JudgeAgentError) as error:
        ResponseCache(folder)
    assert str(error.value) == (f"cannot use the response store {folder / 'responses.sqlite'}: unable to open "
                                f"database file; make {folder} writable, then run the same command again (a run "
                                "resumes where it stopped)")
    store = ResponseCache(tmp_path / "full")
    full = ("the disk is full: free some space there, then run the same command again (a run resumes where it "
            "stopped)")
    for failure, reason in ((OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
                            (sqlite3.OperationalError("database or disk is full"), "database or disk is full")):
        with pytest.raises(JudgeAgentError) as error, store._failing():
            raise failure
        assert str(error.value) == f"cannot use the response store {store.path}: {reason}; {full}"
    store.close()


def test_a_folder_that_is_not_there_is_not_nearly_full(tmp_path):
    # cache.py:228 (`return False` -> True when the free space cannot be read): only a disk seen to be nearly full
    # is said to be
    assert cache_module._nearly_full(tmp_path / "missing") is False


def test_a_cache_used_from_another_thread_is_closed_from_this_one(tmp_path):
    # cache.py:94 (`check_same_thread=False` -> True): a run's calls store answers from worker threads, and the
    # thread that ends the job closes every connection
    store = ResponseCache(tmp_path)
    worker = threading.Thread(target=store.put, args=("k", {"text": "t", "usage": {}, "model": "m"}))
    worker.start()
    worker.join()
    store.close()
    assert [value for _, value, _ in ResponseCache(tmp_path).entries()] == [{"text": "t", "usage": {}, "model": "m"}]


def test_a_caches_sources_count_answers_and_bytes_and_removal_by_source_or_age(tmp_path):
    # cache.py:141 (an answer counted twice), :143 (`newest` emptied), :151 (`or` -> `and`: a removal by source
    # alone compared a time with None)
    store = ResponseCache(tmp_path)
    values = {"a": {"text": "x", "usage": {}, "model": "m", "source": "one"},
              "b": {"text": "yy", "usage": {}, "model": "m", "source": "one"},
              "c": {"text": "z", "usage": {}, "model": "old"}}
    for key, value in values.items():
        store.put(key, value)
    for key, created in (("a", 100.0), ("b", 300.0), ("c", time.time())):
        store._db().execute("UPDATE responses SET created = ? WHERE key = ?", (created, key))
    size = {k: len(json.dumps(v, ensure_ascii=False)) for k, v in values.items()}
    listed = store.sources()
    assert list(listed) == ["old", "one"]
    assert listed["one"] == {"answers": 2, "bytes": size["a"] + size["b"], "oldest": 100.0, "newest": 300.0}
    assert listed["old"]["answers"] == 1 and listed["old"]["bytes"] == size["c"]
    assert store.remove(source="one") == 2 and [k for k, _, _ in store.entries()] == ["c"]
    assert store.remove(older_than=3600) == 0 and len(store) == 1
    assert store.remove() == 1 and len(store) == 0
    store.close()


def test_each_kind_of_model_identity_has_its_one_line_source():
    # cache.py:235 and :237 (`in` -> `not in`), :236 (`model` emptied), :239 (`sort_keys` off)
    assert source_of({"model": "gpt", "base_url": "http://h/v1"}) == "gpt at http://h/v1"
    assert source_of({"function": "scripted"}) == "function scripted"
    assert source_of({"weights": {"file": "w.gguf", "sha256": "0"}, "model": "x"}) == "local:w.gguf"
    assert source_of({"z": 1, "a": 2}) == '{"a": 2, "z": 1}'
    assert source_of({"k": "v" * 100}) == json.dumps({"k": "v" * 100})[:80]


def test_a_journaled_calls_time_is_its_own_in_seconds(tmp_path):
    # cache.py:299 (`monotonic() - started` -> `+`): the time a run's journal keeps for a call
    with FakeServer(latency=0.05) as server:
        spec = ModelSpec(name="fake", base_url=server.base_url, model="fake-model")
        model = CachedModel(OpenAIChatModel(spec), ResponseCache(tmp_path), keep_messages=True)
        _ask(model, "hi", max_tokens=3)
    (value,) = [v for _, v, _ in ResponseCache(tmp_path).entries()]
    assert 0.05 <= value["seconds"] < 60 and value["settings"] == {"max_tokens": 3} and "schema" not in value


# --- graph/relevance.py -----------------------------------------------------------------------------------------

def _check(**changes):
    from judgeagent.graph.relevance import Miss, PathsCheck, Ratio, WayFigures

    fields = dict(questions=3, skipped=2, seeds=2, hops=3, graph=WayFigures(0.5, 0.75, 2.5, 1.5),
                  dense=WayFigures(0.625, 1.0, 1.25, 1.0), touch_ratio=Ratio(0.75, None, None),
                  chunk_ratio=Ratio(0.8, 0.5, 1.25), level=0.9, unmatched=6,
                  misses=[Miss("Who?", ["d1", "d2"], 0.25, 0.5, "Ada", "PERSON", ["Ada", "Babbage"], ["d1", "d3"],
                               ["d2", "d1", "d1"])], graph_by_hop=[0.5, 0.25], dense_by_rank=[1.0, 0.5, 0.25])
    return PathsCheck(**{**fields, **changes})


def test_paths_checks_printed_figures_word_for_word():
    # relevance.py:284-315: the header's widths, each way's row, each ratio's three forms (a value and interval, no
    # interval, none), the unmatched paths, by position and a miss's lines
    from judgeagent.graph.relevance import Ratio, WayFigures, render_check

    assert render_check(_check()).split("\n") == [
        "3 questions (2 left out: none of their supporting documents is in the graph), 2 seeds, 3 hops",
        "  way    chunks from support paths touching docs/path distinct/q",
        "  graph                0.500          0.750      2.50       1.50",
        "  dense                0.625          1.000      1.25       1.00",
        "  RATIO graph / dense top-3, paths touching a supporting document: 0.750 (no interval: every resample's "
        "shares were 0)",
        "  RATIO graph / dense top-3, chunks from supporting documents: 0.800 (90% interval 0.500-1.250)",
        "  RATIO graph / dense at the graph's spread, chunks from supporting documents: n/a (the ranking could not "
        "match any graph path)",
        "  (spread: dense's top chunks over as many documents as each graph path, in rank order, 6 graph paths left "
        "out: the ranking could not match them)",
        "  by position, chunk from support: graph hop 0.500 / 0.250; dense rank 1.000 / 0.500 / 0.250",
        "Furthest below dense top-3 (chunks from support, mean over the seeds; the first seed's paths, * a "
        "supporting document):",
        " 1. graph 0.250, dense 0.500: Who?",
        "    graph: from 'Ada' (PERSON) through Ada > Babbage; documents d1*, d3",
        "    dense: documents d2*, d1*, d1*; support d1*, d2*"]
    matched = render_check(_check(skipped=0, unmatched=0, misses=[], touch_ratio=Ratio(None, None, None),
                                  spread=WayFigures(0.375, 0.5, 2.0, 1.0)))
    assert matched.split("\n")[:5] == [
        "3 questions, 2 seeds, 3 hops", "  way    chunks from support paths touching docs/path distinct/q",
        "  graph                0.500          0.750      2.50       1.50",
        "  dense                0.625          1.000      1.25       1.00",
        "  spread               0.375          0.500      2.00       1.00"]
    assert ("  RATIO graph / dense top-3, paths touching a supporting document: n/a (dense never reached one)\n"
            in matched)
    assert ("  RATIO graph / dense at the graph's spread, chunks from supporting documents: n/a (dense never reached "
            "one)\n  (spread: dense's top chunks over as many documents as each graph path, in rank order)\n"
            in matched)
    assert "Furthest" not in matched


def test_a_ratio_without_resamples_has_a_value_and_no_interval():
    # relevance.py:274 (`return Ratio(value, None, None)` -> None): no draw gave a ratio
    from judgeagent.graph.relevance import Ratio, _ratio

    assert _ratio([[1.0], [0.0]], [[0.5], [0.5]], 0, 0.95) == Ratio(1.0, None, None)


def test_by_position_reads_only_the_paths_long_enough():
    from judgeagent.graph.relevance import _by_position

    assert _by_position([[True, False], [False], [True, True, True]], 4) == [2 / 3, 0.5, 1.0]


def test_a_question_file_names_every_field_it_has_and_reads_json_too(demo_graph, tmp_path):
    # relevance.py:107 (the fields' ", " emptied): a record of two fields names both
    from judgeagent.graph.relevance import SupportedQuestion, read_supported_questions

    file = tmp_path / "q.JSONL"
    for record, fields in (({"q": "x", "id": 1}, "'q', 'id'"), ({}, "none")):
        file.write_text(json.dumps(record) + "\n")
        with pytest.raises(JudgeAgentError) as error:
            read_supported_questions(file, demo_graph)
        assert str(error.value) == f"{file}:1: no field 'question' (fields: {fields}); name yours with --question-field"
    table = tmp_path / "q.json"
    table.write_text(json.dumps([{"text": "Which rocket?", "docs": ["demo-05", "elsewhere"]},
                                 {"text": "Which?", "docs": ["elsewhere"]}]))
    assert read_supported_questions(table, demo_graph, "text", "docs") == (
        [SupportedQuestion("Which rocket?", frozenset({"demo-05"}))], 1)


def test_one_seeds_misses_show_the_dense_ranking_of_that_seed(demo_graph):
    # relevance.py:200 (`skipped` defaulting to 1), :225 (the miss's dense documents read from the second seed's
    # ranking, which one seed does not have): the misses of a one-seed check, by hand
    from judgeagent.graph.relevance import check_paths, read_supported_questions
    from judgeagent.graph.sample import PathSampler
    from tests.conftest import DEMO

    found, _ = read_supported_questions(DEMO / "questions.jsonl", demo_graph)
    got = check_paths(demo_graph, found[:6], seeds=1, resamples=50)
    assert (got.questions, got.skipped, got.seeds) == (6, 0, 1)
    walks, dense = PathSampler(demo_graph), PathSampler(demo_graph)
    doc_of = dict(zip(demo_graph.chunk_ids, demo_graph.chunk_doc_ids))
    below = []
    for i, (q, support) in enumerate(found[:6]):
        path, top = walks.sample([q], 3, seed=i), dense.dense([q], 3, i)
        g = sum(doc_of[c] in support for c in set(path.chunk_ids)) / len(set(path.chunk_ids))
        d = sum(doc_of[c] in support for c in top) / len(top)
        if g < d - 1e-9:
            below.append((g - d, q, [doc_of[c] for c in path.chunk_ids], [doc_of[c] for c in top], path.seed))
    assert below and len(got.misses) == min(5, len(below))
    assert [(m.question, m.path_docs, m.dense_docs, m.seed) for m in got.misses] == [
        row[1:] for row in sorted(below, key=lambda r: r[0])[:5]]


def test_a_checks_figures_cannot_be_changed_once_made():
    # relevance.py:142 (`Ratio`'s `frozen=True` -> False): what paths-check measured is read, never rewritten
    import dataclasses

    from judgeagent.graph.relevance import Ratio

    check = _check()
    for part, name in ((check, "questions"), (check.graph, "chunk_share"), (check.chunk_ratio, "value"),
                       (Ratio(1.0, 0.5, 2.0), "low"), (check.misses[0], "question")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(part, name, None)


def test_a_cache_key_does_not_depend_on_the_order_of_an_identitys_or_settings_keys():
    # cache.py:250 (`sort_keys=True` -> False): the same model and settings named in another order are the same
    # request, and a rerun must find its answers
    from judgeagent.models.cache import cache_key

    messages = [{"role": "user", "content": "hi"}]
    key = cache_key({"model": "m", "base_url": "http://h/v1"}, messages, None, {"temperature": 0.0, "max_tokens": 5})
    assert key == cache_key({"base_url": "http://h/v1", "model": "m"}, messages, None,
                            {"max_tokens": 5, "temperature": 0.0})
    assert key != cache_key({"base_url": "http://h/v1", "model": "m"}, messages, None, {"max_tokens": 6,
                                                                                         "temperature": 0.0})
