"""The graph build's per-document stages (reading and chunking, extraction, embedding) as Ray Data stages.

Work is planned as blocks of documents (byte ranges of a .jsonl file, or one whole file of another
kind); each block flows through a task stage (read + chunk) and two actor pools (spaCy, the encoder),
each actor loading its model once. The coordinator sorts the finished blocks back into corpus order,
so that linking sees exactly the chunks and mentions the local engine sees: the same graph. Blocks
are linked and written out as they arrive (graph/build.py): the coordinator never gathers the chunk
texts or vectors.
"""
from __future__ import annotations

import contextlib
import logging
import os
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..chunking import Chunk, iter_chunks
from ..config import ChunkConfig, EntityConfig, FieldMap, GraphConfig, RayConfig
from ..corpus import Document, _read_file, corpus_files, to_document
from ..entities import Mention
from ..errors import JudgeAgentError
from ..files import jsonl_records
from ..progress import Progress, Timings

Row = dict[str, Any]


Consume = Callable[[list[Document], list[Chunk], list[list[Mention]], np.ndarray], None]


# --- the cluster -----------------------------------------------------------------------------------
@contextlib.contextmanager
def ray_cluster(engine: RayConfig) -> Iterator[None]:
    """Join `engine.address`, reuse a cluster this process already joined, or start a local one and
    stop it on exit."""
    try:
        import ray
    except ImportError:
        raise JudgeAgentError("--engine ray needs Ray: pip install 'judgeagent[ray]'") from None
    if ray.is_initialized():
        yield
        return
    kwargs: dict[str, Any] = {"address": engine.address} if engine.address else {
        # Two model stages of `workers` actors each, plus room for the read tasks.
        "num_cpus": 2 * engine.workers + 1, "include_dashboard": False,
        "object_store_memory": 512 * 1024 * 1024}
    try:
        ray.init(logging_level=logging.WARNING, log_to_driver=False, configure_logging=False, **kwargs)
    except ConnectionError as e:
        raise JudgeAgentError(f"cannot join the Ray cluster at {engine.address}: {e}") from None
    try:
        yield
    finally:
        ray.shutdown()


# --- planning --------------------------------------------------------------------------------------
def plan_blocks(root: Path, block_docs: int) -> list[Row]:
    """Blocks of about `block_docs` records: line ranges of .jsonl files (found by counting newlines,
    without decoding), whole files otherwise. The coordinator never holds the texts."""
    if not root.exists():
        raise JudgeAgentError(f"corpus not found: {root}")
    files = corpus_files(root)
    if not files:
        raise JudgeAgentError(f"corpus {root} has no .jsonl/.json/.txt/.md/.parquet files")
    blocks: list[Row] = []
    for file in files:
        if file.suffix.lower() != ".jsonl":
            blocks.append({"file": str(file), "first_line": 1, "start": 0, "end": -1})
            continue
        for first_line, start, end in _line_ranges(file, block_docs):
            blocks.append({"file": str(file), "first_line": first_line, "start": start, "end": end})
    for i, block in enumerate(blocks):
        block["block"] = i
    return blocks


def _line_ranges(file: Path, lines_per_block: int) -> Iterator[tuple[int, int, int]]:
    start, first_line, line, offset = 0, 1, 0, 0
    with open(file, "rb") as f:
        for raw in f:
            line += 1
            offset += len(raw)
            if line - first_line + 1 == lines_per_block:
                yield first_line, start, offset
                start, first_line = offset, line + 1
    if offset > start:
        yield first_line, start, offset


# --- stages (run on workers) -----------------------------------------------------------------------
def _read_block(row: Row, root: str, fields: FieldMap, chunking: ChunkConfig) -> Row:
    """Read and chunk one block; a corpus error becomes the row's `error` (file and line), not a crash."""
    try:
        docs = list(_documents(row, Path(root), fields))
        chunks = [c for doc_chunks in iter_chunks(docs, chunking) for c in doc_chunks]
    except JudgeAgentError as e:
        return {"block": row["block"], "error": str(e), "data": b""}
    return {"block": row["block"], "error": "", "data": pickle.dumps((docs, chunks))}


def _documents(row: Row, root: Path, fields: FieldMap) -> Iterator[Document]:
    file = Path(row["file"])
    if row["end"] < 0:
        yield from _read_file(file, root, fields)
        return
    with open(file, "rb") as f:
        f.seek(row["start"])
        data = f.read(row["end"] - row["start"])
    try:
        text = data.decode("utf-8-sig" if row["start"] == 0 else "utf-8")
    except UnicodeDecodeError as e:
        line = row["first_line"] + data[: e.start].count(b"\n")
        raise JudgeAgentError(f"{file}:{line}: not valid UTF-8") from None
    for record, source in jsonl_records(file, text, row["first_line"]):
        yield to_document(record, source, fields)


class _Extract:
    """Actor: spaCy loaded once; adds each chunk's mentions to a block."""

    def __init__(self, config: EntityConfig) -> None:
        from ..entities import SpacyExtractor

        # One process per actor: the pool's `workers` are this engine's parallelism.
        self.extractor = SpacyExtractor(config.model_copy(update={"spacy_processes": 1}))

    def __call__(self, row: Row) -> Row:
        if row["error"]:
            return row
        docs, chunks = pickle.loads(row["data"])
        mentions = self.extractor.extract([c.text for c in chunks])
        extractor = self.extractor.describe()
        return {**row, "data": pickle.dumps((docs, chunks, mentions, extractor))}


class _Embed:
    """Actor: the encoder loaded once; adds chunk vectors to a block, or encodes a block of names."""

    def __init__(self, model: str, batch_size: int, gpu: bool) -> None:
        from ..embedding import Encoder

        self.encoder = Encoder(model, device="cuda" if gpu else None)
        self.batch_size = batch_size

    def __call__(self, row: Row) -> Row:
        if row.get("error"):
            return row
        if "names" in row:
            vectors = self.encoder.encode(list(row["names"]), self.batch_size)
            return {"block": row["block"], "vectors": vectors.tobytes(), "dim": self.encoder.dim}
        docs, chunks, mentions, extractor = pickle.loads(row["data"])
        vectors = self.encoder.encode([c.text for c in chunks], self.batch_size)
        return {**row, "data": pickle.dumps((docs, chunks, mentions, extractor, vectors, self.encoder.dim))}


# --- the coordinator -------------------------------------------------------------------------------
def run_document_stages(root: Path, config: GraphConfig, engine: RayConfig, consume: Consume,
                        timings: Timings, progress: Progress | None) -> tuple[dict[str, Any], int]:
    """Reading, chunking, extraction and chunk embedding on Ray. Each finished block is handed to
    `consume` in corpus order as soon as the blocks before it are: a block that arrives early waits,
    the rest is never gathered. Returns the extractor's description and the embedding dimension."""
    import ray.data

    _quiet_ray_data()
    blocks = plan_blocks(root, engine.block_docs)
    ds = ray.data.from_items(blocks, override_num_blocks=len(blocks))
    ds = ds.map(_read_block, fn_kwargs={"root": str(root), "fields": config.fields,
                                        "chunking": config.chunking}, num_cpus=0.5)
    ds = ds.map(_Extract, fn_constructor_kwargs={"config": config.entities},
                concurrency=engine.workers, num_cpus=1)
    ds = ds.map(_Embed, fn_constructor_kwargs=_embed_args(config, engine), concurrency=engine.workers,
                num_cpus=1, num_gpus=engine.gpus_per_worker or None)
    early: dict[int, bytes] = {}
    extractor, dim, next_block = {}, 0, 0
    with timings.timed(progress, "document stages (ray)", len(blocks), "block") as advance:
        for row in ds.iter_rows():
            if row["error"]:
                raise JudgeAgentError(row["error"])  # leaves the cluster; nothing has been published
            early[int(row["block"])] = row["data"]
            while next_block in early:
                docs, chunks, mentions, extractor, vectors, dim = pickle.loads(early.pop(next_block))
                consume(docs, chunks, mentions, vectors)
                next_block += 1
            advance(1)
    return extractor, dim


def embed_names(names: list[str], config: GraphConfig, engine: RayConfig, dim: int,
                per_block: int = 4096) -> np.ndarray:
    """Entity names through the encoder pool, in blocks, back in order."""
    import ray.data

    if not names:
        return np.zeros((0, dim), np.float32)
    rows = [{"block": i, "names": names[s:s + per_block]} for i, s in enumerate(range(0, len(names), per_block))]
    ds = ray.data.from_items(rows, override_num_blocks=len(rows))
    ds = ds.map(_Embed, fn_constructor_kwargs=_embed_args(config, engine),
                concurrency=min(engine.workers, len(rows)), num_cpus=1,
                num_gpus=engine.gpus_per_worker or None)
    # Each block is copied into place as it arrives: one copy of the entity vectors, not blocks + a concat.
    out = np.empty((len(names), dim), np.float32)
    for r in ds.iter_rows():
        vectors = np.frombuffer(r["vectors"], np.float32).reshape(-1, dim)
        start = int(r["block"]) * per_block
        out[start:start + len(vectors)] = vectors
    return out


def _embed_args(config: GraphConfig, engine: RayConfig) -> dict[str, Any]:
    return {"model": config.embedding_model, "batch_size": config.embedding_batch_size,
            "gpu": engine.gpus_per_worker > 0}


def _quiet_ray_data() -> None:
    import ray.data

    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    ctx.verbose_stats_logs = False
    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    logging.getLogger("ray.data").setLevel(logging.ERROR)
