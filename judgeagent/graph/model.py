"""`ContextGraph`: entity nodes N = (e, C, D) linked by co-occurrence, with their vectors and FAISS indexes.

The graph is its tables (documents, chunks, entities, mentions, edges) plus vectors; everything else
here is derived from them on construction, so a graph loaded from disk is the graph that was built.
Chunk links are materialised (`edges`); document links are derived from the node-to-document map
because their number grows with the square of entities per document (see docs/graph-format.md).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy import sparse

TABLES = ("documents", "chunks", "entities", "mentions", "edges")
_ARTICLE = re.compile(r"^(?:the|a|an) ")
_WORD = re.compile(r"[^\W_]+")
LinkKind = Literal["chunk", "document"]


def name_keys(name: str, qualifiers: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The entity names a cleaned, case-folded title or metadata value may be: itself, its part before each
    qualifier, each with and without a leading article (mention names drop it: "The Jump" is "jump")."""
    keys = (name, *(name.split(q)[0].strip() for q in qualifiers))
    return tuple(dict.fromkeys((*keys, *(_ARTICLE.sub("", k) for k in keys))))


class Link(NamedTuple):
    entity: int
    """Row of the linked entity."""
    kind: LinkKind
    """`chunk` when the two share a chunk (the stronger link), else `document`."""
    weight: int
    """Shared chunks for a chunk link, shared documents for a document link."""


@dataclass
class ContextGraph:
    tables: dict[str, pa.Table]
    entity_vectors: np.ndarray
    chunk_vectors: np.ndarray
    entity_index: Any
    chunk_index: Any
    manifest: dict[str, Any]
    path: Path | None = None
    timings: dict[str, float] | None = None
    """Seconds per stage of the build that made this graph in this process (None when loaded)."""

    # --- identities -------------------------------------------------------------------------------
    @cached_property
    def entity_names(self) -> list[str]:
        return self.tables["entities"].column("name").to_pylist()

    @cached_property
    def chunk_ids(self) -> list[str]:
        return self.tables["chunks"].column("chunk_id").to_pylist()

    @cached_property
    def chunk_texts(self) -> list[str]:
        return self.tables["chunks"].column("text").to_pylist()

    @cached_property
    def doc_ids(self) -> list[str]:
        return self.tables["documents"].column("doc_id").to_pylist()

    @cached_property
    def chunk_doc_ids(self) -> list[str]:
        """Per chunk row, the id of its document."""
        return self.tables["chunks"].column("doc_id").to_pylist()

    @cached_property
    def doc_of(self) -> dict[str, str]:
        """Chunk id -> the id of its document."""
        return dict(zip(self.chunk_ids, self.chunk_doc_ids))

    @cached_property
    def entity_row(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.entity_names)}

    @cached_property
    def chunk_row(self) -> dict[str, int]:
        return {cid: i for i, cid in enumerate(self.chunk_ids)}

    @cached_property
    def specificity(self) -> np.ndarray:
        """Per entity row, how specific it is (graph/specificity.py): stored since format version 2,
        computed from the tables for a graph of version 1."""
        ents = self.tables["entities"]
        if "specificity" in ents.column_names:
            return ents.column("specificity").to_numpy().astype(np.float32)
        from .specificity import specificity

        return specificity(ents, self.tables["mentions"], self.tables["documents"].num_rows)

    @cached_property
    def home(self) -> np.ndarray:
        """Per document row, the entity row its title names (-1 for none): the document is that entity's home,
        the article about it. A title names an entity when, case-folded and cleaned as mention names are, it
        or its part before a parenthesis or comma ("Scott Howell (political consultant)", "Laie, Hawaii"),
        with or without a leading article (names drop it: "The Jump" is "jump"), is the entity's name and the
        document mentions it, or a longer form of a name of two words or more: every word of "scott howell" is
        in its "scott howell iii", of "drew fuller" in 'andrew alan "drew" fuller' (one word in a longer
        name is often another thing: "mercury" in "freddie mercury"). News headlines and "PubMed 1571683"
        name none. Only unambiguous names have a home (issue 48): none for a name that two titles give (which
        "Scott Howell" a question means, the fit decides, not a 10x seed weight), nor for a part before a
        comma that is one word of a longer name ("Young, New South Wales" and "neil young"; a qualifier in
        parentheses says what the thing is: "Monogram (company)" is "monogram" beside "monogram pictures").
        On HotpotQA medium chunks from support 0.486 -> 0.487, distinct paths over 5 seeds 4.69 -> 4.68."""
        from ..entities import clean_name

        out = np.full(len(self.doc_ids), -1, dtype=np.int64)
        row = self.entity_row
        for d, title in enumerate(self.tables["documents"].column("title").to_pylist()):
            name = clean_name(title or "").casefold()
            for key in name_keys(name, qualifiers=(" (", ",")):
                e = row.get(key)
                if e is None:
                    continue
                if d in self.docs_of(e) or self._names_longer(d, key):
                    if key not in name_keys(name, qualifiers=(" (",)) and self._a_word_of_longer_names(key):
                        break  # "Young, New South Wales" is no home for the "young" of "neil young"
                    out[d] = e
                    break
        named, titles = np.unique(out[out >= 0], return_counts=True)
        out[np.isin(out, named[titles > 1])] = -1  # "Scott Howell (footballer)", "Scott Howell (political consultant)"
        return out

    def _a_word_of_longer_names(self, key: str) -> bool:
        """Whether `key` is one word that an entity name of two words or more holds: a first name or a surname
        ("young" of "neil young"), which a title's part before a comma must not take for its own."""
        words = _WORD.findall(key)
        return len(words) == 1 and words[0] in self._words_of_longer_names

    @cached_property
    def _words_of_longer_names(self) -> frozenset[str]:
        return frozenset(w for n in self.entity_names if len(ws := _WORD.findall(n)) >= 2 for w in ws)

    def _names_longer(self, doc: int, name: str) -> bool:
        """Whether document `doc` mentions a longer form of `name`, a name of two words or more: an entity
        name holding every one of its words and more ("scott howell iii" for "scott howell")."""
        words = set(_WORD.findall(name))
        if len(words) < 2:
            return False
        m = self.doc_entities
        mentioned = m.indices[m.indptr[doc]:m.indptr[doc + 1]].tolist()
        return any(words < set(_WORD.findall(self.entity_names[e])) for e in mentioned)

    @cached_property
    def named_in_meta(self) -> dict[str, np.ndarray]:
        """Name -> the rows of the documents whose metadata holds it as a value: a publisher or an author
        ("TechCrunch", "Devin Coldewey"). String values of at most 6 words with a letter (a year names no one),
        case-folded and cleaned as mention names are, also their part before " | ", " - " or ": " ("Cnbc | World
        Business News Leader", "FOX News - Health", "Live Science: The Most Interesting Articles") and without a
        leading article. A name held by more than half the documents is left out: it sets none apart (the demo
        corpus's "source": "written for the judgeagent demo"); so is a date or timestamp (`dated_in_meta`)."""
        from ..entities import clean_name
        from .dates import metadata_day

        found: dict[str, set[int]] = {}
        for d, value in self._meta_values():
            if (isinstance(value, str) and 0 < len(value.split()) <= 6 and any(c.isalpha() for c in value)
                    and metadata_day(value) is None):  # a timestamp ("...08:45:59.000000000Z") names no one
                # Split before cleaning: cleaning joins "News - Health" into "news-health".
                for part in {value, *(value.split(q)[0] for q in (" | ", " - ", ": "))}:
                    for key in name_keys(clean_name(part).casefold()):
                        if key:
                            found.setdefault(key, set()).add(d)
        return self._setting_apart(found)

    @cached_property
    def dated_in_meta(self) -> dict[str, np.ndarray]:
        """ISO day -> the rows of the documents whose metadata holds a date or timestamp of that day (a news
        article's "published_at"; `dates.metadata_day`). As for `named_in_meta`, a day held by more than half the
        documents is left out."""
        from .dates import metadata_day

        found: dict[str, set[int]] = {}
        for d, value in self._meta_values():
            if (day := metadata_day(value)) is not None:
                found.setdefault(day, set()).add(d)
        return self._setting_apart(found)

    def _meta_values(self) -> Iterator[tuple[int, Any]]:
        """(document row, value) for each value of each document's metadata (a JSON object, or nothing)."""
        for d, meta in enumerate(self.tables["documents"].column("meta").to_pylist()):
            values = json.loads(meta) if meta else {}
            for value in values.values() if isinstance(values, dict) else ():
                yield d, value

    def _setting_apart(self, found: dict[str, set[int]]) -> dict[str, np.ndarray]:
        """`found`'s keys held by at most half the documents, each with its documents' rows in order."""
        n = self.tables["documents"].num_rows
        return {k: np.array(sorted(v), dtype=np.int64) for k, v in found.items() if 2 * len(v) <= n}

    @property
    def n_entities(self) -> int:
        return self.tables["entities"].num_rows

    # --- node membership: N = (e, C, D) ------------------------------------------------------------
    @cached_property
    def entity_chunks(self) -> sparse.csr_matrix:
        """Entity x chunk incidence (CSR): row e holds the chunks that mention e."""
        return self._incidence("chunk_ids", self.chunk_row, len(self.chunk_ids))

    @cached_property
    def entity_docs(self) -> sparse.csr_matrix:
        return self._incidence("doc_ids", {d: i for i, d in enumerate(self.doc_ids)}, len(self.doc_ids))

    @cached_property
    def doc_entities(self) -> sparse.csr_matrix:
        return self.entity_docs.T.tocsr()

    def _incidence(self, column: str, rows: dict[str, int], width: int) -> sparse.csr_matrix:
        lists = self.tables["entities"].column(column).combine_chunks()
        cols = np.fromiter((rows[v] for v in lists.flatten().to_pylist()), dtype=np.int32)
        parents = pc.list_parent_indices(lists).to_numpy()
        data = np.ones(len(cols), dtype=np.int32)
        return sparse.csr_matrix((data, (parents, cols)), shape=(self.n_entities, width))

    def chunks_of(self, entity: int) -> np.ndarray:
        m = self.entity_chunks
        return m.indices[m.indptr[entity]:m.indptr[entity + 1]]

    def docs_of(self, entity: int) -> np.ndarray:
        m = self.entity_docs
        return m.indices[m.indptr[entity]:m.indptr[entity + 1]]

    # --- links ---------------------------------------------------------------------------------------
    @cached_property
    def chunk_links(self) -> sparse.csr_matrix:
        """Symmetric entity x entity matrix of shared-chunk counts, from the stored edges."""
        edges = self.tables["edges"]
        src = edges.column("source").to_numpy()
        dst = edges.column("target").to_numpy()
        w = edges.column("weight").to_numpy()
        n = self.n_entities
        upper = sparse.csr_matrix((w, (src, dst)), shape=(n, n))
        return (upper + upper.T).tocsr()

    def neighbours(self, entity: int, kinds: tuple[LinkKind, ...] = ("chunk", "document")) -> np.ndarray:
        """Rows of the entities linked to `entity` by any of `kinds`, sorted, without `entity` itself."""
        if "document" in kinds:  # sharing a chunk implies sharing a document: a superset
            m = self.doc_entities
            rows = [m.indices[m.indptr[d]:m.indptr[d + 1]] for d in self.docs_of(entity)]
            if not rows:
                return np.zeros(0, dtype=np.int32)
            # A mask, not np.unique: a hub's documents list tens of thousands of entities, and
            # marking them is linear where sorting is not.
            mask = np.zeros(self.n_entities, dtype=bool)
            mask[np.concatenate(rows)] = True
            mask[entity] = False
            return np.flatnonzero(mask).astype(np.int32)
        m = self.chunk_links
        found = m.indices[m.indptr[entity]:m.indptr[entity + 1]]
        return np.sort(found[found != entity])

    def links(self, entity: int) -> list[Link]:
        """Every link of `entity` with its kind and weight."""
        chunk = self.chunk_links
        shared_chunks = dict(zip(chunk.indices[chunk.indptr[entity]:chunk.indptr[entity + 1]].tolist(),
                                 chunk.data[chunk.indptr[entity]:chunk.indptr[entity + 1]].tolist()))
        m = self.doc_entities
        rows = [m.indices[m.indptr[d]:m.indptr[d + 1]] for d in self.docs_of(entity)]
        others, counts = np.unique(np.concatenate(rows), return_counts=True) if rows else ([], [])
        out = []
        for other, n_docs in zip(np.asarray(others).tolist(), np.asarray(counts).tolist()):
            if other == entity:
                continue
            if other in shared_chunks:
                out.append(Link(other, "chunk", shared_chunks[other]))
            else:
                out.append(Link(other, "document", n_docs))
        return out

    def iter_links(self, kind: LinkKind) -> Iterator[tuple[int, int, int]]:
        """All links of one kind as (a, b, weight) with a < b. Document links are computed here."""
        if kind == "chunk":
            edges = self.tables["edges"]
            yield from zip(*(edges.column(c).to_pylist() for c in ("source", "target", "weight")))
            return
        shared = sparse.triu(self.entity_docs @ self.entity_docs.T, k=1).tocsr()
        by_chunk = sparse.triu(self.chunk_links, k=1) > 0
        only = (shared - shared.multiply(by_chunk)).tocsr()
        only.eliminate_zeros()
        coo = only.tocoo()
        yield from zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist())

    def to_networkx(self, kinds: tuple[LinkKind, ...] = ("chunk",)):  # type: ignore[no-untyped-def]
        """A networkx graph of entity rows with `name`, `label`, `n_chunks`, `n_docs` and typed links.

        Document links are off by default: a long article can add tens of thousands of them.
        """
        import networkx as nx

        g = nx.Graph()
        ents = self.tables["entities"]
        for i, (name, label, nc, nd) in enumerate(zip(*(ents.column(c).to_pylist()
                                                         for c in ("name", "label", "n_chunks", "n_docs")))):
            g.add_node(i, name=name, label=label, n_chunks=nc, n_docs=nd)
        for kind in kinds:
            g.add_edges_from((a, b, {"kind": kind, "weight": w}) for a, b, w in self.iter_links(kind))
        return g

    # --- summary -------------------------------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        # Tables read lazily (a streamed build's) count from their files' footers, unread.
        rows = getattr(self.tables, "num_rows", lambda name: self.tables[name].num_rows)
        return {"documents": rows("documents"), "chunks": rows("chunks"), "entities": rows("entities"),
                "mentions": rows("mentions"), "chunk_links": rows("edges")}


def document_texts(graph: ContextGraph) -> dict[str, str]:
    """Each document's text rebuilt from its chunks (whitespace between chunks becomes a blank line)."""
    chunks = graph.tables["chunks"]
    parts: dict[str, list[tuple[int, str]]] = {}
    for doc, pos, text in zip(*(chunks.column(c).to_pylist() for c in ("doc_id", "position", "text"))):
        parts.setdefault(doc, []).append((pos, text))
    return {doc: "\n\n".join(t for _, t in sorted(p)) for doc, p in parts.items()}
