"""Algorithm 3's node construction and linking: mentions per chunk -> the graph's tables."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from scipy import sparse

from ..chunking import Chunk
from ..corpus import Document, duplicate_doc
from ..entities import Mention

_MENTION_COLUMNS = ("chunk_id", "entity_id", "surface", "label", "start", "end")


class Linker:
    """Linking block by block, in corpus order: entity ids in order of first sight, as one pass would.

    `add` returns a block's chunk and mention rows, which the caller may write out at once (the ray
    engine does); `finish` builds the tables that need the whole corpus. What it keeps grows with the
    entities and their (entity, chunk) pairs, never with chunk texts.
    """

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.labels: list[Counter[str]] = []
        self.surfaces: list[dict[str, None]] = []  # ordered sets
        self.pairs: list[np.ndarray] = []  # (entity, chunk row) per block, each pair once
        self.docs: dict[str, list] = {k: [] for k in ("doc_id", "title", "meta", "n_chunks", "n_chars")}
        self.doc_row: dict[str, int] = {}
        self._sources: list[str] = []  # where each document was read: for the duplicate error
        self.chunk_ids: list[pa.Array] = []
        self.chunk_doc: list[np.ndarray] = []  # each chunk's document row
        self.n_chunks = 0
        self.section_pairs: set[tuple[int, int]] = set()  # (entity, document row): a section label there

    def add(self, docs: Sequence[Document], chunks: Sequence[Chunk],
            mentions: Sequence[list[Mention]]) -> tuple[pa.Table, pa.Table]:
        """One block's documents, their chunks and each chunk's mentions -> its chunks and mentions tables."""
        self._add_documents(docs, chunks)
        rows: dict[str, list] = {k: [] for k in _MENTION_COLUMNS}
        pairs: list[tuple[int, int]] = []
        for c, (chunk, found) in enumerate(zip(chunks, mentions), start=self.n_chunks):
            in_chunk: dict[int, None] = {}
            for m in found:
                e = self._entity(m)
                in_chunk[e] = None
                if is_section_label(chunk.text, m.start, m.end):
                    self.section_pairs.add((e, self.doc_row[chunk.doc_id]))
                for key, value in zip(_MENTION_COLUMNS, (chunk.chunk_id, e, m.surface, m.label, m.start, m.end)):
                    rows[key].append(value)
            pairs.extend((e, c) for e in in_chunk)
        self.pairs.append(np.array(pairs, dtype=np.int64).reshape(-1, 2))
        chunk_table = _chunks_table(chunks)
        self.chunk_ids.append(chunk_table.column("chunk_id").combine_chunks())
        self.chunk_doc.append(np.array([self.doc_row[c.doc_id] for c in chunks], dtype=np.int64))
        self.n_chunks += len(chunks)
        types = {"entity_id": pa.int32(), "start": pa.int32(), "end": pa.int32()}
        return chunk_table, pa.table({k: pa.array(v, types.get(k, pa.string())) for k, v in rows.items()})

    def _add_documents(self, docs: Sequence[Document], chunks: Sequence[Chunk]) -> None:
        per_doc = Counter(c.doc_id for c in chunks)
        for d in docs:
            if d.doc_id in self.doc_row:
                raise duplicate_doc(d, self._sources[self.doc_row[d.doc_id]])
            self.doc_row[d.doc_id] = len(self.doc_row)
            self._sources.append(d.source)
            for key, value in zip(self.docs, (d.doc_id, d.title, json.dumps(d.meta, ensure_ascii=False, sort_keys=True),
                                              per_doc[d.doc_id], len(d.text))):
                self.docs[key].append(value)

    def _entity(self, m: Mention) -> int:
        e = self.rows.setdefault(m.name, len(self.rows))
        if e == len(self.labels):
            self.labels.append(Counter())
            self.surfaces.append({})
        self.labels[e][m.label] += 1
        self.surfaces[e][m.surface] = None
        return e

    def finish(self) -> dict[str, pa.Table]:
        """The documents, entities and edges tables, from everything added."""
        in_chunks = self._incidence()
        chunk_doc = np.concatenate(self.chunk_doc) if self.chunk_doc else np.zeros(0, np.int64)
        to_doc = sparse.csr_matrix((np.ones(self.n_chunks, np.int32), (np.arange(self.n_chunks), chunk_doc)),
                                   shape=(self.n_chunks, len(self.doc_row)))
        in_docs = (in_chunks @ to_doc).tocsr()
        in_docs.data[:] = 1  # membership, not mention counts
        in_docs.sort_indices()
        chunk_ids = pa.concat_arrays(self.chunk_ids) if self.chunk_ids else pa.array([], pa.string())
        documents = pa.table({
            "doc_id": pa.array(self.docs["doc_id"], pa.string()),
            "title": pa.array(self.docs["title"], pa.string()),
            "meta": pa.array(self.docs["meta"], pa.string()),
            "n_chunks": pa.array(self.docs["n_chunks"], pa.int32()),
            "n_chars": pa.array(self.docs["n_chars"], pa.int32()),
        })
        entities = pa.table({
            "entity_id": pa.array(np.arange(len(self.rows), dtype=np.int32)),
            "name": pa.array(list(self.rows), pa.string()),
            "label": pa.array([lab.most_common(1)[0][0] for lab in self.labels], pa.string()),
            "surface_forms": pa.array([list(s) for s in self.surfaces], pa.list_(pa.string())),
            "chunk_ids": _ids(in_chunks, chunk_ids),
            "doc_ids": _ids(in_docs, documents.column("doc_id").combine_chunks()),
            "n_chunks": pa.array(np.diff(in_chunks.indptr).astype(np.int32)),
            "n_docs": pa.array(np.diff(in_docs.indptr).astype(np.int32)),
        })
        return {"documents": documents, "entities": entities, "edges": _edges_table(in_chunks)}

    def section_label_docs(self) -> np.ndarray:
        """Per entity, the number of documents in which a mention of it stands as a section label."""
        entities = np.fromiter((e for e, _ in self.section_pairs), np.int64, len(self.section_pairs))
        return np.bincount(entities, minlength=len(self.rows)).astype(np.int32)

    def _incidence(self) -> sparse.csr_matrix:
        """Entity x chunk membership: row e holds C of node e."""
        pairs = np.concatenate(self.pairs) if self.pairs else np.zeros((0, 2), np.int64)
        ones = np.ones(len(pairs), np.int32)
        m = sparse.csr_matrix((ones, (pairs[:, 0], pairs[:, 1])), shape=(len(self.rows), self.n_chunks))
        m.sort_indices()
        return m


def is_section_label(text: str, start: int, end: int) -> bool:
    """Whether the mention at text[start:end] stands where a section label does: first on its line (or
    after a sentence's end, for abstracts run together on one line) and right before a colon
    ("RESULTS: Of the 40 ...", "Photograph: Reuters")."""
    if not text[end:end + 8].lstrip(" \t").startswith(":"):
        return False
    before = text[:start].rstrip(" \t")  # only for the few mentions before a colon
    return not before or before[-1] in "\n.;"


def link(docs: Sequence[Document], chunks: Sequence[Chunk], mentions: Sequence[list[Mention]],
         linker: Linker | None = None) -> dict[str, pa.Table]:
    """Nodes N = (e, C, D) and chunk co-occurrence links, as the graph's tables (one block: everything).
    Pass a `linker` to read what else it counted (`section_label_docs`)."""
    linker = linker or Linker()
    chunk_table, mention_table = linker.add(docs, chunks, mentions)
    rest = linker.finish()
    return {"documents": rest["documents"], "chunks": chunk_table, "entities": rest["entities"],
            "mentions": mention_table, "edges": rest["edges"]}


def _ids(m: sparse.csr_matrix, names: pa.Array) -> pa.Array:
    """Row i's column names, in column order (indices sorted), as a list column."""
    values = names.take(pa.array(m.indices.astype(np.int64)))
    return pa.ListArray.from_arrays(pa.array(m.indptr.astype(np.int32)), values)


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
