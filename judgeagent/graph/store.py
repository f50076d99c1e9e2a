"""A graph on disk: manifest.json, parquet tables, .npy vectors, FAISS indexes; written atomically."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from ..embedding import read_index, write_index
from ..errors import JudgeAgentError
from ..files import check_format
from .model import TABLES, ContextGraph

FORMAT = "judgeagent.context-graph"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
VECTORS = {"entity_vectors": "entity_vectors.npy", "chunk_vectors": "chunk_vectors.npy"}
INDEXES = {"entity_index": "entities.faiss", "chunk_index": "chunks.faiss"}
_KIND = {"entity_index": "entities", "chunk_index": "chunks"}


def check_writable(out: Path, overwrite: bool) -> None:
    """Refuse an output that cannot be written, an existing one unless `overwrite`, and never overwrite
    something not a graph."""
    _check_parent(out)
    if not out.exists():
        return
    if not overwrite:
        raise JudgeAgentError(f"output folder {out} already exists (use --overwrite to replace it)")
    if not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST).is_file()):
        raise JudgeAgentError(f"refusing to overwrite {out}: it is not a judgeagent graph")


def _check_parent(out: Path) -> None:
    """The nearest existing folder above `out` must take new files (`save_graph` makes the rest)."""
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        if not parent.is_dir():
            raise NotADirectoryError(parent)
        with tempfile.TemporaryFile(dir=parent):  # a real try: os.access says yes to root, even in /proc
            pass
    except OSError:
        raise JudgeAgentError(f"cannot write the graph to {out}: {parent} is not a writable folder; "
                              "choose another --out") from None


def save_graph(graph: ContextGraph, out: str | Path, *, overwrite: bool = False) -> Path:
    """Write to a hidden sibling folder, then rename into place: a crash never leaves half a graph."""
    out = Path(out)
    check_writable(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        _write_files(graph, tmp)
        _replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out  # the caller's graph keeps its path: a copy saved elsewhere does not move it


def _write_files(graph: ContextGraph, folder: Path) -> None:
    for name in TABLES:
        pq.write_table(graph.tables[name], folder / f"{name}.parquet")
    for attr, file in VECTORS.items():
        np.save(folder / file, getattr(graph, attr), allow_pickle=False)
    for attr, file in INDEXES.items():
        write_index(getattr(graph, attr), folder / file)
    files = {p.name: {"sha256": _sha256(p), "bytes": p.stat().st_size} for p in sorted(folder.iterdir())}
    graph.manifest["files"] = files
    graph.manifest["graph_id"] = hashlib.sha256(
        json.dumps({k: v["sha256"] for k, v in files.items()}, sort_keys=True).encode()
    ).hexdigest()[:16]
    with open(folder / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(graph.manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())


def _replace(tmp: Path, out: Path) -> None:
    if not out.exists():
        os.rename(tmp, out)
        return
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def load_graph(path: str | Path, *, verify: bool = True) -> ContextGraph:
    """Restore exactly what was built; with `verify`, every file's checksum is checked first."""
    folder = Path(path)
    manifest = read_manifest(folder)
    if verify:
        for name, info in manifest.get("files", {}).items():
            file = folder / name
            if not file.is_file():
                raise JudgeAgentError(f"graph {folder} is incomplete: {name} is missing")
            if _sha256(file) != info["sha256"]:
                raise JudgeAgentError(f"graph {folder} is corrupt: {name} does not match its checksum")
    tables = {name: pq.read_table(folder / f"{name}.parquet") for name in TABLES}
    vectors = {attr: np.load(folder / file, allow_pickle=False) for attr, file in VECTORS.items()}
    indexes = {attr: read_index(folder / file) for attr, file in INDEXES.items()}
    ef = manifest["config"]["index"]["hnsw_ef_search"]
    for attr, index in indexes.items():
        if hasattr(index, "hnsw"):
            index.hnsw.efSearch = ef
        elif hasattr(index, "nprobe"):  # IVF-PQ: the probe count the recorded recall was measured at
            index.nprobe = manifest["indexes"][_KIND[attr]].get("nprobe", index.nprobe)
    return ContextGraph(tables=tables, manifest=manifest, path=folder, **vectors, **indexes)


def read_manifest(folder: Path) -> dict[str, Any]:
    if not folder.exists():
        raise JudgeAgentError(f"graph not found: {folder}")
    file = folder / MANIFEST
    if not file.is_file():
        raise JudgeAgentError(f"{folder} is not a judgeagent graph (no {MANIFEST})")
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise JudgeAgentError(f"{file}: unreadable manifest ({e})") from None
    check_format(manifest, folder, FORMAT, FORMAT_VERSION, "graph", ": rebuild it with build-graph")
    return manifest


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
