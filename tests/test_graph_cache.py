"""The edit loop's graph cache (tests/graph_cache.py): a graph comes back from the cache only while everything it
was built from is unchanged, and what comes back is the graph that was built."""
from __future__ import annotations

import json

import pytest

from tests import graph_cache


def _corpus(path, extra=""):
    docs = [{"doc_id": "a", "text": "Ada Lovelace worked with Charles Babbage in London on the Analytical Engine."},
            {"doc_id": "b", "text": f"Charles Babbage designed the Difference Engine in London.{extra}"}]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


def test_the_import_closure_holds_the_build_and_its_models_and_no_protocol():
    names = {str(f.relative_to(graph_cache.ROOT)) for f in graph_cache.import_closure()}
    assert {"judgeagent/graph/build.py", "judgeagent/graph/link.py", "judgeagent/entities.py",
            "judgeagent/embedding.py", "judgeagent/chunking.py", "judgeagent/corpus.py", "judgeagent/__init__.py",
            "judgeagent/graph/__init__.py"} <= names
    assert not any(n.startswith(("judgeagent/protocols", "judgeagent/grading", "judgeagent/cli")) for n in names)


def test_the_key_follows_the_corpus_and_the_source(tmp_path, monkeypatch):
    docs = _corpus(tmp_path / "docs.jsonl")
    first = graph_cache.key(docs)
    assert graph_cache.key(docs) == first
    assert graph_cache.key(_corpus(tmp_path / "docs.jsonl", " It was never finished.")) != first
    _corpus(tmp_path / "docs.jsonl")
    assert graph_cache.key(docs) == first
    # a source file of the closure read differently (an edit) changes the key; one outside it does not
    real = graph_cache.Path.read_bytes

    def edited(path, *, target):
        return real(path) + (b"# edited\n" if path.name == target else b"")

    monkeypatch.setattr(graph_cache.Path, "read_bytes", lambda p: edited(p, target="link.py"))
    assert graph_cache.key(docs) != first
    monkeypatch.setattr(graph_cache.Path, "read_bytes", lambda p: edited(p, target="leakage.py"))
    assert graph_cache.key(docs) == first


def test_a_cached_graph_is_the_built_one_and_is_not_built_again(tmp_path, monkeypatch):
    import judgeagent

    docs = _corpus(tmp_path / "docs.jsonl")
    monkeypatch.setenv(graph_cache.ENV, str(tmp_path / "cache"))
    built = graph_cache.build(docs, tmp_path / "one")
    stored = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert stored == [f"{tmp_path.name}-docs-{graph_cache.key(docs)}", f"{tmp_path.name}-docs.lock"]

    def no_build(*args, **kwargs):
        raise AssertionError("built again although nothing changed")

    monkeypatch.setattr(judgeagent, "build_graph", no_build)
    again = graph_cache.build(docs, tmp_path / "two")
    assert again.path == tmp_path / "two"
    for name, table in built.tables.items():
        assert again.tables[name].equals(table), name
    assert (again.chunk_vectors == built.chunk_vectors).all() and (again.entity_vectors == built.entity_vectors).all()
    # saved elsewhere (as tests do with the session graph), it writes the same files: the same graph id
    from judgeagent import save_graph

    save_graph(again, tmp_path / "saved")
    assert again.manifest["graph_id"] == built.manifest["graph_id"]
    # a changed corpus is built (here: refused by the stand-in), never served the old graph
    _corpus(docs, " It was never finished.")
    with pytest.raises(AssertionError, match="built again"):
        graph_cache.build(docs, tmp_path / "three")


def test_without_the_variable_every_graph_is_built(tmp_path, monkeypatch):
    import judgeagent

    monkeypatch.delenv(graph_cache.ENV, raising=False)
    monkeypatch.delenv(graph_cache.RUN_ENV, raising=False)
    calls = []
    monkeypatch.setattr(judgeagent, "build_graph", lambda docs, out: calls.append(out) or "graph")
    docs = _corpus(tmp_path / "docs.jsonl")
    assert graph_cache.build(docs, tmp_path / "one") == "graph" and graph_cache.build(docs, tmp_path / "two") == "graph"
    assert calls == [tmp_path / "one", tmp_path / "two"]


def test_a_run_builds_each_graph_once_for_all_its_workers(tmp_path, monkeypatch):
    """Without the edit loop's cache, the run's own folder (RUN_ENV): two workers (here threads, each with its
    own lock file handle, as two processes have) that take the same graph at once build it once; the other
    waits and copies it."""
    import threading
    import time

    import judgeagent
    import judgeagent.graph

    monkeypatch.delenv(graph_cache.ENV, raising=False)
    monkeypatch.setenv(graph_cache.RUN_ENV, str(tmp_path / "run"))
    calls = []

    def slow_build(docs, out):
        calls.append(out)
        time.sleep(0.5)  # the other thread arrives while this one builds
        out.mkdir(parents=True)
        (out / "manifest.json").write_text("{}")
        return f"built {out.name}"

    monkeypatch.setattr(judgeagent, "build_graph", slow_build)
    monkeypatch.setattr(judgeagent.graph, "load_graph", lambda out: f"loaded {out.name}")
    monkeypatch.setattr(graph_cache, "as_built", lambda graph: graph)
    docs = _corpus(tmp_path / "docs.jsonl")
    known = graph_cache.key(docs)  # once, here: ast.parse in two threads at once can fail in CPython 3.11
    monkeypatch.setattr(graph_cache, "key", lambda docs: known)  # ("AST constructor recursion depth mismatch")
    got = {}
    threads = [threading.Thread(target=lambda n=n: got.setdefault(n, graph_cache.build(docs, tmp_path / n)))
               for n in ("gw0", "gw1")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1, calls
    first = calls[0].name
    assert got == {first: f"built {first}", ({"gw0", "gw1"} - {first}).pop(): f"loaded {({'gw0', 'gw1'} - {first}).pop()}"}
    assert ((tmp_path / "gw0" / "manifest.json").is_file() and (tmp_path / "gw1" / "manifest.json").is_file())
