"""Algorithm 3's node construction and linking: mentions per chunk -> the graph's tables."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from scipy import sparse

from ..chunking import Chunk
from ..corpus import Document
from ..entities import Mention

_MENTION_COLUMNS = ("chunk_id", "entity_id", "surface", "label", "start", "end")


class _Nodes:
    """Entities in order of first sight, with their labels, surface forms and (entity, chunk) pairs."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.labels: list[Counter[str]] = []
        self.surfaces: list[dict[str, None]] = []  # ordered sets
        self.pairs: set[tuple[int, int]] = set()
        self.mentions: dict[str, list] = {k: [] for k in _MENTION_COLUMNS}

    def add(self, chunk_row: int, chunk: Chunk, m: Mention) -> None:
        e = self.rows.setdefault(m.name, len(self.rows))
        if e == len(self.labels):
            self.labels.append(Counter())
            self.surfaces.append({})
        self.labels[e][m.label] += 1
        self.surfaces[e][m.surface] = None
        self.pairs.add((e, chunk_row))
        for key, value in zip(_MENTION_COLUMNS, (chunk.chunk_id, e, m.surface, m.label, m.start, m.end)):
            self.mentions[key].append(value)

    def incidence(self, n_chunks: int) -> sparse.csr_matrix:
        """Entity x chunk membership: row e holds C of node e."""
        pairs = np.array(sorted(self.pairs), dtype=np.int64).reshape(-1, 2)
        ones = np.ones(len(pairs), np.int32)
        return sparse.csr_matrix((ones, (pairs[:, 0], pairs[:, 1])), shape=(len(self.rows), n_chunks))


def link(docs: Sequence[Document], chunks: Sequence[Chunk], mentions: Sequence[list[Mention]]) -> dict[str, pa.Table]:
    """Nodes N = (e, C, D) and chunk co-occurrence links, as the graph's tables."""
    nodes = _Nodes()
    for c, (chunk, found) in enumerate(zip(chunks, mentions)):
        for m in found:
            nodes.add(c, chunk, m)
    in_chunks = nodes.incidence(len(chunks))
    doc_row = {d.doc_id: i for i, d in enumerate(docs)}
    chunk_doc = sparse.csr_matrix(
        (np.ones(len(chunks), np.int32), (np.arange(len(chunks)), [doc_row[c.doc_id] for c in chunks])),
        shape=(len(chunks), len(docs)))
    in_docs = (in_chunks @ chunk_doc).tocsr()
    in_docs.data[:] = 1  # membership, not mention counts
    return {
        "documents": _documents_table(docs, chunks),
        "chunks": _chunks_table(chunks),
        "entities": _entities_table(nodes, in_chunks, in_docs, [c.chunk_id for c in chunks],
                                    [d.doc_id for d in docs]),
        "mentions": _mentions_table(nodes),
        "edges": _edges_table(in_chunks),
    }


def _ids(m: sparse.csr_matrix, names: list[str]) -> list[list[str]]:
    return [[names[j] for j in sorted(m.indices[m.indptr[i]:m.indptr[i + 1]].tolist())] for i in range(m.shape[0])]


def _entities_table(nodes: _Nodes, in_chunks: sparse.csr_matrix, in_docs: sparse.csr_matrix,
                    chunk_ids: list[str], doc_ids: list[str]) -> pa.Table:
    return pa.table({
        "entity_id": pa.array(np.arange(len(nodes.rows), dtype=np.int32)),
        "name": pa.array(list(nodes.rows), pa.string()),
        "label": pa.array([lab.most_common(1)[0][0] for lab in nodes.labels], pa.string()),
        "surface_forms": pa.array([list(s) for s in nodes.surfaces], pa.list_(pa.string())),
        "chunk_ids": pa.array(_ids(in_chunks, chunk_ids), pa.list_(pa.string())),
        "doc_ids": pa.array(_ids(in_docs, doc_ids), pa.list_(pa.string())),
        "n_chunks": pa.array(np.diff(in_chunks.indptr).astype(np.int32)),
        "n_docs": pa.array(np.diff(in_docs.indptr).astype(np.int32)),
    })


def _mentions_table(nodes: _Nodes) -> pa.Table:
    types = {"entity_id": pa.int32(), "start": pa.int32(), "end": pa.int32()}
    return pa.table({k: pa.array(v, types.get(k, pa.string())) for k, v in nodes.mentions.items()})


def _edges_table(in_chunks: sparse.csr_matrix) -> pa.Table:
    """Chunk links: entity pairs sharing chunks, weighted by how many (one sparse product)."""
    shared = sparse.triu(in_chunks @ in_chunks.T, k=1).tocoo()
    order = np.lexsort((shared.col, shared.row))
    return pa.table({
        "source": pa.array(shared.row[order].astype(np.int32)),
        "target": pa.array(shared.col[order].astype(np.int32)),
        "kind": pa.array(["chunk"] * len(order), pa.string()),
        "weight": pa.array(shared.data[order].astype(np.int32)),
    })


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
