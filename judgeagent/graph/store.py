"""A graph on disk: manifest.json, parquet tables, .npy vectors, FAISS indexes; written atomically."""
from __future__ import annotations

import contextlib
import copy
import errno
import glob
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..embedding import read_index, write_index
from ..errors import JudgeAgentError
from ..files import cannot_write, check_format, folder_kind, remove_stale, temporary, wrong_kind
from .check import FIX, check_files, check_manifest, check_shapes, check_table, damaged, file_record
from .model import TABLES, ContextGraph

FORMAT = "judgeagent.context-graph"
FORMAT_VERSION = 2
"""Version 2 added the entities' `specificity` column; version 1 graphs still load (it is computed)."""
READABLE_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
VECTORS = {"entity_vectors": "entity_vectors.npy", "chunk_vectors": "chunk_vectors.npy"}
INDEXES = {"entity_index": "entities.faiss", "chunk_index": "chunks.faiss"}
_KIND = {"entity_index": "entities", "chunk_index": "chunks"}
GRAPH_FILES = [*(f"{name}.parquet" for name in TABLES), *VECTORS.values(), *INDEXES.values()]


def check_writable(out: Path, overwrite: bool) -> None:
    """Refuse an output that cannot be written, an existing one unless `overwrite`, and never overwrite
    something not a graph."""
    _check_parent(out)
    if not out.exists():
        return
    if not out.is_dir():
        raise JudgeAgentError(f"output {out} is a file, not a folder; choose another --out")
    if not _replaceable(out):  # said first: --overwrite would not help
        raise wrong_kind(out, "graph", fix="; it is kept: choose another --out")
    if not overwrite:
        raise JudgeAgentError(f"output folder {out} already exists (use --overwrite to replace it)")


def _replaceable(out: Path) -> bool:
    """An empty folder, a graph (its manifest names the graph format), or what is left of one (only a graph's
    own files, its manifest lost or damaged): not a run folder or a dataset that happens to hold a manifest.json."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # none, or damaged: judged by the files beside it
        manifest = None
    if isinstance(manifest, dict) and manifest.get("format") == FORMAT:
        return True
    if folder_kind(out, manifest if isinstance(manifest, dict) else None) is not None:
        return False  # a run, a dataset: another kind of judgeagent folder
    return only_graph_files(out)


def only_graph_files(folder: Path) -> bool:
    """Whether a folder holds nothing but files a graph is made of (what is left of a graph whose manifest was lost
    or damaged: build-graph --overwrite may replace it)."""
    own = {MANIFEST, *VECTORS.values(), *INDEXES.values(), *(f"{name}.parquet" for name in TABLES)}
    return all(entry.is_file() and entry.name in own for entry in folder.iterdir())


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


def save_graph(graph: ContextGraph, out: str | Path, *, overwrite: bool = False, adopt: bool = False) -> Path:
    """Write to a hidden sibling folder, then rename into place: a crash never leaves half a graph.
    `adopt`: the graph becomes the saved one (a build's): its manifest takes the files' checksums and id. Otherwise
    the copy's manifest is the caller's copied, so saving a loaded graph elsewhere leaves its id as it was."""
    out = Path(out)
    check_writable(out, overwrite)
    with staging(out) as tmp:
        for name in TABLES:
            pq.write_table(as_built(graph.tables[name]), tmp / f"{name}.parquet")
        for attr, file in VECTORS.items():
            np.save(tmp / file, getattr(graph, attr), allow_pickle=False)
        write_indexes(graph.entity_index, graph.chunk_index, tmp)
        seal(tmp, graph.manifest if adopt else copy.deepcopy(graph.manifest))
        publish(tmp, out)
    return out  # the caller's graph keeps its path: a copy saved elsewhere does not move it


def as_built(table: pa.Table) -> pa.Table:
    """The table as a build holds it, so that a loaded graph saved again is written in the same bytes and keeps its
    id: list items under Arrow's own name (`item`; Parquet reads them back as `element`, and the name is in the
    file's stored Arrow schema) and each column in one chunk (a read table's chunks would change the pages)."""
    fields = [f.with_type(pa.list_(f.type.value_field.with_name("item"))) if pa.types.is_list(f.type) else f
              for f in table.schema]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata)).combine_chunks()


@contextlib.contextmanager
def staging(out: Path | None) -> Iterator[Path]:
    """The folder a graph is written into before it is published: hidden beside `out` (so the final
    rename stays on one file system), or a temporary folder without `out`. Removed on the way out,
    whatever happened: a failed or killed build leaves nothing half-written."""
    if out is None:
        with tempfile.TemporaryDirectory(prefix="judgeagent-graph-") as tmp:
            yield Path(tmp)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    # Earlier builds of `out` killed mid-write (SIGKILL runs no cleanup) left their staging folders: a large
    # graph's half would stay on disk for good. A build still running keeps its own.
    remove_stale(out.parent, f".{glob.escape(out.name)}.tmp-*")
    tmp = temporary(out)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        yield tmp
    except OSError as e:  # a full disk, a quota, a folder made read-only mid-build: one line, nothing left
        if e.errno is None and _full(tmp):  # NumPy and FAISS say "written" or "write error", not ENOSPC
            e = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), e.filename)
        if e.errno not in _WRITE_ERRORS:
            raise
        raise JudgeAgentError(cannot_write(Path(e.filename or out), e, "run build-graph again")
                              .replace(str(tmp), str(out))) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG}


def _full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < (1 << 20)
    except OSError:
        return False


def write_indexes(entity_index: Any, chunk_index: Any, folder: Path) -> None:
    for index, file in zip((entity_index, chunk_index), INDEXES.values()):
        try:
            write_index(index, folder / file)
        except RuntimeError as e:  # FAISS's "write error" (a C++ exception): an OSError like the others'
            raise OSError(None, str(e).strip().splitlines()[-1][-200:], str(folder / file)) from None


def seal(folder: Path, manifest: dict[str, Any]) -> None:
    """Record every file's checksum and the graph id in `manifest`, and write it last."""
    files = {p.name: file_record(p) for p in sorted(folder.iterdir())}
    manifest["files"] = files
    manifest["graph_id"] = hashlib.sha256(
        json.dumps({k: v["sha256"] for k, v in files.items()}, sort_keys=True).encode()
    ).hexdigest()[:16]
    with open(folder / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())


class ChunkWriter:
    """The chunk side of a graph written as it is produced, block by block in corpus order: the
    chunks and mentions tables in row groups, the chunk vectors appended to a raw file that becomes
    `chunk_vectors.npy` at the end. What it holds at a time is one row group's rows."""

    ROWS_PER_GROUP = 16_384

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pending: dict[str, list[pa.Table]] = {"chunks": [], "mentions": []}
        self.writers: dict[str, pq.ParquetWriter] = {}
        self.rows = {"chunks": 0, "mentions": 0}  # written or pending
        self.pending_rows = {"chunks": 0, "mentions": 0}
        self.raw = folder / "chunk_vectors.f32.part"
        self.vectors = open(self.raw, "wb")  # noqa: SIM115  (open across blocks; closed by close())

    def add(self, chunks: pa.Table, mentions: pa.Table, vectors: np.ndarray) -> None:
        if len(vectors) != chunks.num_rows:
            raise ValueError(f"{chunks.num_rows} chunks but {len(vectors)} vectors")
        for name, table in (("chunks", chunks), ("mentions", mentions)):
            self.pending[name].append(table)
            self.rows[name] += table.num_rows
            self.pending_rows[name] += table.num_rows
            if self.pending_rows[name] >= self.ROWS_PER_GROUP:
                self._flush(name)
        self.vectors.write(np.ascontiguousarray(vectors, np.float32).tobytes())  # a vector per chunk row

    def _flush(self, name: str) -> None:
        if not self.pending[name]:
            return
        table = pa.concat_tables(self.pending[name])
        self.pending[name], self.pending_rows[name] = [], 0
        if name not in self.writers:
            self.writers[name] = pq.ParquetWriter(self.folder / f"{name}.parquet", table.schema)
        if table.num_rows or not self.rows[name]:  # an empty corpus still gets its (empty) tables
            self.writers[name].write_table(table)

    def close(self, dim: int) -> np.ndarray:
        """Finish the files; the chunk vectors come back memory-mapped, not loaded."""
        for name in self.pending:
            self._flush(name)
            self.writers[name].close()
        self.vectors.close()
        path, n_vectors = self.folder / VECTORS["chunk_vectors"], self.rows["chunks"]
        if n_vectors == 0:
            np.save(path, np.zeros((0, dim), np.float32), allow_pickle=False)
        else:
            out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n_vectors, dim))
            raw = np.memmap(self.raw, dtype=np.float32, mode="r", shape=(n_vectors, dim))
            for start in range(0, n_vectors, 65_536):  # copied in slices: never all in memory
                out[start:start + 65_536] = raw[start:start + 65_536]
            out.flush()
            del out, raw
        self.raw.unlink()
        return np.load(path, mmap_mode="r")


def publish(tmp: Path, out: Path) -> None:
    """Rename a staged graph into place (replacing an older one only once the new one is there)."""
    _publish(tmp, out)
    # An old graph that an earlier `publish`, killed between its two renames, left aside: replaced now.
    remove_stale(out.parent, f".{glob.escape(out.name)}.old-*")


def _publish(tmp: Path, out: Path) -> None:
    if not out.exists():
        os.rename(tmp, out)
        return
    if _exchange(tmp, out):  # one atomic swap: `out` is the old graph or the new one at every instant
        shutil.rmtree(tmp, ignore_errors=True)  # the old graph now; a kill here leaves a stale staging folder
        return
    # Two renames where the system cannot swap: killed between them, `out` is missing and the old graph is
    # `.NAME.old-<pid>@<host>` (the next build of `out` removes it; `read_manifest` says where it is meanwhile).
    old = temporary(out, "old")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


_RENAME_EXCHANGE, _AT_FDCWD = 2, -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically (Linux's renameat2 with RENAME_EXCHANGE). False where the C library,
    kernel or file system has no such swap (macOS, old kernels, some network file systems), so the caller
    falls back to two renames."""
    import ctypes

    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


class LazyTables(Mapping[str, pa.Table]):
    """A graph folder's tables, each read on first use: a streamed build hands back its graph without
    reading every chunk text into the memory it took care not to fill."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.loaded: dict[str, pa.Table] = {}

    def __getitem__(self, name: str) -> pa.Table:
        if name not in TABLES:
            raise KeyError(name)
        if name not in self.loaded:
            self.loaded[name] = pq.read_table(self.folder / f"{name}.parquet")
        return self.loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(TABLES)

    def __len__(self) -> int:
        return len(TABLES)

    def num_rows(self, name: str) -> int:
        """From the file's footer when the table has not been read."""
        if name in self.loaded:
            return self.loaded[name].num_rows
        return pq.ParquetFile(self.folder / f"{name}.parquet").metadata.num_rows


def load_graph(path: str | Path, *, verify: bool = True) -> ContextGraph:
    """Restore exactly what was built; with `verify`, every file's size and checksum is checked first
    (`check.FULL_HASH_MAX` says which are hashed whole). A folder that is not what its manifest says is
    one line naming the file, never a traceback or a graph that samples wrong paths."""
    folder = Path(path)
    manifest = read_manifest(folder)
    check_manifest(folder, manifest, GRAPH_FILES if verify else [])
    if verify:
        check_files(folder, manifest["files"])
    tables = {name: _read(folder, f"{name}.parquet", pq.read_table) for name in TABLES}
    for name, table in tables.items():
        check_table(folder, name, table.schema, manifest["format_version"])
    vectors = {attr: _read(folder, file, lambda p: np.load(p, allow_pickle=False)) for attr, file in VECTORS.items()}
    indexes = {attr: _read(folder, file, read_index) for attr, file in INDEXES.items()}
    rows = {name: table.num_rows for name, table in tables.items()}
    check_shapes(folder, rows, manifest["embedding"]["dim"], vectors, indexes)
    ef = manifest["config"]["index"]["hnsw_ef_search"]
    for attr, index in indexes.items():
        if hasattr(index, "hnsw"):
            index.hnsw.efSearch = ef
        elif hasattr(index, "nprobe"):  # IVF-PQ: the probe count the recorded recall was measured at
            index.nprobe = manifest["indexes"][_KIND[attr]].get("nprobe", index.nprobe)
    return ContextGraph(tables=tables, manifest=manifest, path=folder, **vectors, **indexes)


def _read(folder: Path, file: str, read: Any) -> Any:
    """`read(path)`, with what a damaged file raises (Arrow, NumPy, FAISS's RuntimeError) as one line."""
    try:
        return read(folder / file)
    except FileNotFoundError:
        raise JudgeAgentError(f"graph {folder} is incomplete: {file} is missing; {FIX}") from None
    except (pa.ArrowException, OSError, ValueError, EOFError, RuntimeError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise damaged(folder, file, f"cannot be read ({reason[:200]})") from None


def read_manifest(folder: Path) -> dict[str, Any]:
    if not folder.exists():
        aside = sorted(folder.parent.glob(f".{glob.escape(folder.name)}.old-*"))
        if aside and aside[-1].is_dir():  # a `build-graph --overwrite` killed between `publish`'s two renames
            raise JudgeAgentError(f"graph not found: {folder}; a build that was replacing it was stopped and left "
                                  f"the previous graph at {aside[-1]}: rename it back to {folder}, or build again")
        raise JudgeAgentError(f"graph not found: {folder}")
    file = folder / MANIFEST
    if not file.is_file():
        rebuild = f"; {FIX}" if folder.is_dir() and any(folder.iterdir()) and only_graph_files(folder) else ""
        raise wrong_kind(folder, "graph", fix=f" (no {MANIFEST}){rebuild}")
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise JudgeAgentError(f"{file}: unreadable manifest ({e}); {FIX}") from None
    version = manifest.get("format_version") if isinstance(manifest, dict) else None
    check_format(manifest, folder, FORMAT, version if version in READABLE_VERSIONS else FORMAT_VERSION, "graph",
                 f": {FIX}")
    return manifest
