"""Algorithm 3: corpus -> chunks -> entities -> linked context graph, embedded and indexed."""
from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
from scipy import sparse

from .. import __version__
from ..chunking import Chunk, iter_chunks
from ..config import GraphConfig
from ..corpus import Corpus, Document, read_corpus
from ..embedding import Encoder, build_index
from ..entities import EntityExtractor, Mention, SpacyExtractor
from ..llm_entities import open_llm_extractor
from ..progress import Progress, Timings
from .model import ContextGraph
from .store import FORMAT, FORMAT_VERSION, check_writable, save_graph


def build_graph(
    corpus: str | Path | Corpus,
    out: str | Path | None = None,
    config: GraphConfig = GraphConfig(),
    *,
    overwrite: bool = False,
    progress: Progress | None = None,
    extractor: EntityExtractor | None = None,
) -> ContextGraph:
    """Build a context graph from a corpus; with `out`, store it there atomically.

    `extractor` overrides the one `config.entities` names (to share a loaded model, or to pass an
    LLM extractor with its own cache settings).
    """
    out_path = Path(out) if out is not None else None
    if out_path is not None:
        check_writable(out_path, overwrite)  # refuse before an hour of work, not after
    with contextlib.ExitStack() as stack:
        timings = Timings()
        with timings.timed(progress, "reading"):
            corpus = corpus if isinstance(corpus, Corpus) else read_corpus(corpus, config.fields)
        with timings.timed(progress, "loading models"):
            encoder = Encoder(config.embedding_model)
            if extractor is None and config.entities.extractor == "llm":
                extractor = stack.enter_context(open_llm_extractor(config.entities))
            extractor = extractor or SpacyExtractor(config.entities)
        return _build(corpus, out_path, config, overwrite, progress, encoder, extractor, timings)


def _build(corpus: Corpus, out_path: Path | None, config: GraphConfig, overwrite: bool,
           progress: Progress | None, encoder: Encoder, extractor: EntityExtractor,
           timings: Timings) -> ContextGraph:
    docs = corpus.documents
    with timings.timed(progress, "chunking", len(docs), "doc") as advance:
        chunks = []
        for doc_chunks in iter_chunks(docs, config.chunking):
            chunks.extend(doc_chunks)
            advance(1)
    with timings.timed(progress, "extracting", len(chunks), "chunk") as advance:
        mentions = extractor.extract([c.text for c in chunks], advance)
    with timings.timed(progress, "linking"):
        tables = link(docs, chunks, mentions)
    names = tables["entities"].column("name").to_pylist()
    with timings.timed(progress, "embedding chunks", len(chunks), "chunk") as advance:
        chunk_vectors = encoder.encode([c.text for c in chunks], config.embedding_batch_size, advance)
    with timings.timed(progress, "embedding entities", len(names), "entity") as advance:
        entity_vectors = encoder.encode(names, config.embedding_batch_size, advance)
    with timings.timed(progress, "indexing"):
        entity_index, entity_info = build_index(entity_vectors, config.index)
        chunk_index, chunk_info = build_index(chunk_vectors, config.index)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "judgeagent_version": __version__,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "corpus": {"path": str(corpus.root)},
        "config": config.model_dump(mode="json"),
        "embedding": {"model": config.embedding_model, "dim": encoder.dim, "normalized": True},
        "extractor": extractor.describe(),
        "indexes": {"entities": entity_info, "chunks": chunk_info},
    }
    graph = ContextGraph(tables, entity_vectors, chunk_vectors, entity_index, chunk_index, manifest)
    manifest["counts"] = graph.counts()
    manifest["timings"] = dict(timings)  # the stored record: stages up to writing
    graph.timings = timings  # and, in memory, the write itself too
    if out_path is not None:
        with timings.timed(progress, "writing"):
            save_graph(graph, out_path, overwrite=overwrite)
    return graph


def link(docs: Sequence[Document], chunks: Sequence[Chunk], mentions: Sequence[list[Mention]]) -> dict[str, pa.Table]:
    """Nodes N = (e, C, D) and chunk co-occurrence links, as the graph's tables."""
    rows: dict[str, int] = {}
    labels: list[Counter[str]] = []
    surfaces: list[dict[str, None]] = []  # ordered sets, in order of first sight
    mention_rows: dict[str, list] = {k: [] for k in ("chunk_id", "entity_id", "surface", "label", "start", "end")}
    pairs: set[tuple[int, int]] = set()
    for c, (chunk, found) in enumerate(zip(chunks, mentions)):
        for m in found:
            e = rows.setdefault(m.name, len(rows))
            if e == len(labels):
                labels.append(Counter())
                surfaces.append({})
            labels[e][m.label] += 1
            surfaces[e][m.surface] = None
            pairs.add((e, c))
            for key, value in zip(mention_rows, (chunk.chunk_id, e, m.surface, m.label, m.start, m.end)):
                mention_rows[key].append(value)
    n_ent, n_chunk = len(rows), len(chunks)
    ent, chk = (np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2).T if pairs
                else (np.zeros(0, np.int64), np.zeros(0, np.int64)))
    incidence = sparse.csr_matrix((np.ones(len(ent), np.int32), (ent, chk)), shape=(n_ent, n_chunk))
    doc_row = {d.doc_id: i for i, d in enumerate(docs)}
    chunk_doc = np.array([doc_row[c.doc_id] for c in chunks], dtype=np.int64)
    entity_docs = sparse.csr_matrix(
        (np.ones(len(ent), np.int32), (ent, chunk_doc[chk] if len(chk) else chk)), shape=(n_ent, len(docs))
    )
    entity_docs.data[:] = 1  # duplicates were summed: membership, not counts
    shared = sparse.triu(incidence @ incidence.T, k=1).tocoo()
    order = np.lexsort((shared.col, shared.row))
    chunk_ids = [c.chunk_id for c in chunks]
    doc_ids = [d.doc_id for d in docs]
    return {
        "documents": _documents_table(docs, chunks),
        "chunks": _chunks_table(chunks),
        "entities": pa.table({
            "entity_id": pa.array(np.arange(n_ent, dtype=np.int32)),
            "name": pa.array(list(rows), pa.string()),
            "label": pa.array([lab.most_common(1)[0][0] for lab in labels], pa.string()),
            "surface_forms": pa.array([list(s) for s in surfaces], pa.list_(pa.string())),
            "chunk_ids": pa.array([[chunk_ids[j] for j in _row(incidence, e)] for e in range(n_ent)],
                                  pa.list_(pa.string())),
            "doc_ids": pa.array([[doc_ids[j] for j in _row(entity_docs, e)] for e in range(n_ent)],
                                pa.list_(pa.string())),
            "n_chunks": pa.array(np.diff(incidence.indptr).astype(np.int32)),
            "n_docs": pa.array(np.diff(entity_docs.indptr).astype(np.int32)),
        }),
        "mentions": pa.table({
            "chunk_id": pa.array(mention_rows["chunk_id"], pa.string()),
            "entity_id": pa.array(mention_rows["entity_id"], pa.int32()),
            "surface": pa.array(mention_rows["surface"], pa.string()),
            "label": pa.array(mention_rows["label"], pa.string()),
            "start": pa.array(mention_rows["start"], pa.int32()),
            "end": pa.array(mention_rows["end"], pa.int32()),
        }),
        "edges": pa.table({
            "source": pa.array(shared.row[order].astype(np.int32)),
            "target": pa.array(shared.col[order].astype(np.int32)),
            "kind": pa.array(["chunk"] * len(order), pa.string()),
            "weight": pa.array(shared.data[order].astype(np.int32)),
        }),
    }


def _row(m: sparse.csr_matrix, i: int) -> list[int]:
    return sorted(m.indices[m.indptr[i]:m.indptr[i + 1]].tolist())


def _documents_table(docs: Sequence[Document], chunks: Sequence[Chunk]) -> pa.Table:
    per_doc = Counter(c.doc_id for c in chunks)
    return pa.table({
        "doc_id": pa.array([d.doc_id for d in docs], pa.string()),
        "title": pa.array([d.title for d in docs], pa.string()),
        "meta": pa.array([json.dumps(d.meta, ensure_ascii=False, sort_keys=True) for d in docs], pa.string()),
        "n_chunks": pa.array([per_doc[d.doc_id] for d in docs], pa.int32()),
        "n_chars": pa.array([len(d.text) for d in docs], pa.int32()),
    })


def _chunks_table(chunks: Sequence[Chunk]) -> pa.Table:
    return pa.table({
        "chunk_id": pa.array([c.chunk_id for c in chunks], pa.string()),
        "doc_id": pa.array([c.doc_id for c in chunks], pa.string()),
        "position": pa.array([c.position for c in chunks], pa.int32()),
        "start": pa.array([c.start for c in chunks], pa.int32()),
        "end": pa.array([c.end for c in chunks], pa.int32()),
        "n_words": pa.array([c.n_words for c in chunks], pa.int32()),
        "text": pa.array([c.text for c in chunks], pa.string()),
    })
