"""Whether a graph folder is what its manifest says: the fields loading reads, every file's size and checksum,
the tables' columns, the vectors' and indexes' shapes. Anything else is one line naming the file and the fix."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import JudgeAgentError

FIX = "rebuild it with build-graph --overwrite"
FULL_HASH_MAX = 256 << 20
"""Files up to this size are hashed whole on every load. Measured: sha256 reads 1.5 GB/s here while np.load reads
6 GB/s from the page cache, so hashing doubled the load of a 31 MB graph (0.028 -> 0.052 s) and would add seconds per
gigabyte. A larger file is checked by its size and by the hash of three 1 MiB blocks (start, middle, end): a
truncation, a swap or a rewrite is caught, a few flipped bytes elsewhere in it are not."""
BLOCK = 1 << 20

_STRING, _INT, _FLOAT = pa.types.is_string, pa.types.is_integer, pa.types.is_floating


def _strings(t: pa.DataType) -> bool:
    return pa.types.is_list(t) and pa.types.is_string(t.value_type)


COLUMNS: dict[str, dict[str, Callable[[pa.DataType], bool]]] = {
    "documents": {"doc_id": _STRING, "title": _STRING, "meta": _STRING, "n_chunks": _INT, "n_chars": _INT},
    "chunks": {"chunk_id": _STRING, "doc_id": _STRING, "position": _INT, "start": _INT, "end": _INT,
               "n_words": _INT, "text": _STRING},
    "entities": {"entity_id": _INT, "name": _STRING, "label": _STRING, "surface_forms": _strings,
                 "chunk_ids": _strings, "doc_ids": _strings, "n_chunks": _INT, "n_docs": _INT},
    "mentions": {"chunk_id": _STRING, "entity_id": _INT, "surface": _STRING, "label": _STRING, "start": _INT,
                 "end": _INT},
    "edges": {"source": _INT, "target": _INT, "kind": _STRING, "weight": _INT},
}
"""docs/graph-format.md's columns; format version 2 adds the entities' float `specificity`."""
_NAMES = {_STRING: "text", _INT: "integers", _FLOAT: "numbers", _strings: "lists of text"}

MANIFEST_FIELDS = {"config": dict, "config.entities": dict, "config.index": dict, "config.index.hnsw_ef_search": int,
                   "embedding": dict, "embedding.model": str, "embedding.dim": int, "extractor": dict,
                   "indexes": dict, "indexes.entities": dict, "indexes.chunks": dict, "files": dict}
"""What loading and sampling read from a manifest."""


def damaged(folder: Path, file: str, what: str) -> JudgeAgentError:
    return JudgeAgentError(f"graph {folder} is damaged: {file} {what}; {FIX}")


def check_manifest(folder: Path, manifest: dict[str, Any], files: list[str]) -> None:
    """Every field loading reads, of its type, and a size and checksum for each of `files`."""
    for path, kind in MANIFEST_FIELDS.items():
        value: Any = manifest
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise damaged(folder, "manifest.json", f"has no {kind.__name__} at '{path}'")
    recorded = manifest["files"]
    for name in [*files, *(n for n in recorded if files and n not in files)]:  # a hand-added entry is read too
        info = recorded.get(name)
        if not (isinstance(info, dict) and isinstance(info.get("sha256"), str) and isinstance(info.get("bytes"), int)):
            raise damaged(folder, "manifest.json", f"records no checksum for {name}")


def file_record(path: Path) -> dict[str, Any]:
    """What the manifest keeps of a file: its sha256 and size, and for a large file the hash of its blocks."""
    size = path.stat().st_size
    record: dict[str, Any] = {"sha256": sha256(path), "bytes": size}
    if size > FULL_HASH_MAX:
        record["blocks_sha256"] = blocks_sha256(path, size)
    return record


def check_files(folder: Path, recorded: dict[str, Any]) -> None:
    """Each recorded file there, of its size, with its checksum (whole, or its blocks for a large file)."""
    for name, info in recorded.items():
        file = folder / name
        if not file.is_file():
            raise JudgeAgentError(f"graph {folder} is incomplete: {name} is missing; {FIX}")
        size = file.stat().st_size
        if size != info["bytes"]:
            raise damaged(folder, name, f"has {size:,} bytes where {info['bytes']:,} were written (truncated or "
                                        "replaced)")
        if size > FULL_HASH_MAX and isinstance(info.get("blocks_sha256"), str):
            matches = blocks_sha256(file, size) == info["blocks_sha256"]
        else:  # a small file, or a graph written before block hashes: the whole file
            matches = sha256(file) == info["sha256"]
        if not matches:
            raise damaged(folder, name, "does not match its checksum")


def check_table(folder: Path, name: str, schema: pa.Schema, version: int) -> None:
    columns = dict(COLUMNS[name])
    if name == "entities" and version >= 2:
        columns["specificity"] = _FLOAT
    for column, fits in columns.items():
        if column not in schema.names:
            raise damaged(folder, f"{name}.parquet", f"has no column '{column}'")
        if not fits(schema.field(column).type):
            raise damaged(folder, f"{name}.parquet", f"column '{column}' holds {schema.field(column).type}, "
                                                     f"not {_NAMES[fits]}")


def check_shapes(folder: Path, rows: dict[str, int], dim: int, vectors: dict[str, np.ndarray],
                 indexes: dict[str, Any]) -> None:
    """A float32 vector and an index entry per table row, all of the manifest's dimension."""
    for table, vector_file, index_file, array, index in (
            ("entities", "entity_vectors.npy", "entities.faiss", vectors["entity_vectors"], indexes["entity_index"]),
            ("chunks", "chunk_vectors.npy", "chunks.faiss", vectors["chunk_vectors"], indexes["chunk_index"])):
        n = rows[table]
        if array.dtype != np.float32 or array.shape != (n, dim):
            raise damaged(folder, vector_file, f"holds {array.dtype} {list(array.shape)} where {table}.parquet and "
                                               f"the manifest want float32 [{n}, {dim}]")
        if index.ntotal != n or index.d != dim:
            raise damaged(folder, index_file, f"indexes {index.ntotal} vectors of {index.d} dimensions where "
                                              f"{table}.parquet and the manifest want {n} of {dim}")
        if n and not _holds(index, 0, array[0]) or n > 1 and not _holds(index, n - 1, array[n - 1]):
            raise damaged(folder, index_file, f"does not index {vector_file}'s vectors (its first or last entry "
                                              "differs)")


def _holds(index: Any, row: int, vector: np.ndarray) -> bool:
    """Whether an exact or HNSW index stores `vector` at `row`; an IVF-PQ index keeps only codes (not compared)."""
    try:
        stored = index.reconstruct(row)
    except RuntimeError:  # IVF-PQ without a direct map: its codes approximate the vector anyway
        return True
    return bool(np.allclose(stored, vector, atol=1e-5))


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(BLOCK), b""):
            h.update(block)
    return h.hexdigest()


def blocks_sha256(path: Path, size: int) -> str:
    h = hashlib.sha256(str(size).encode())
    with open(path, "rb") as f:
        for start in (0, max(0, size // 2 - BLOCK // 2), max(0, size - BLOCK)):
            f.seek(start)
            h.update(f.read(BLOCK))
    return h.hexdigest()
