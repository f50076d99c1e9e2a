"""The walks a knowledge path is drawn from: from a seed entity, the best-scored walks of a wide search."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .model import ContextGraph, LinkKind

GENERIC_HOP = 0.2
"""Taken off the score of a hop candidate that is a generic concept (specificity below GENERIC): it
links anything to anything ("way" took a path about Rosetta to the Curiosity rover)."""
LINK_WEIGHT = 0.5
"""How much a link's best shared chunk (its similarity to the question) adds to a neighbour's score."""
WIDEN = 5
"""Each walk of a path's pool is extended by its WIDEN * `candidates` best next steps before the best walks
are kept: a wide search, so that the pool holds the best walks and not the first ones found."""
BEAM = 2
"""Before the last hop, at most BEAM * `candidates` walks are extended (the best): long paths stay cheap."""
DOC_FLOOR = 5 / 6
"""A pool's walks span at least DOC_FLOOR documents per hop on average (2.5 per 3-hop walk) where its
candidates allow (`_spread`): a knowledge path is for multi-hop questions. It replaced a penalty on each hop
to a document already on the walk (`SEEN_DOC`, 0.1), which spread every walk evenly: issue 29, on
MultiHop-RAG medium that penalty held chunks from supporting documents at 0.46 for 2.81 documents per path
(0 gave 0.50 for 2.38, under the floor); with the floor and no penalty the pool keeps a question's best
walks that stay in one article and spreads the others (with NAMED_SOURCE: 0.503 for 2.60; 0.495 for 2.72
with the penalty at 0.05). The draw by score holds it too (`sample._draw_weights`)."""
POOL_MARGIN = 1.0
"""A walk scoring more than this below the best of its pool is left out of it: on a small graph a seed has
few good walks, and filling the pool to 25 with walks through unrelated articles added variety of the
wrong kind (issue 29, sixth pass, bench/paths.py: HotpotQA small chunks from supporting documents 0.568 ->
0.584 for 3.88 -> 3.84 distinct paths in 5 seeds, HotpotQA medium 0.480 -> 0.484, MultiHop-RAG unchanged;
0.8 gave HotpotQA small 0.608 but 3.56 distinct, 0.5 took MultiHop-RAG small under 2.5 documents per path)."""
ON_PATH = 2.0
"""Taken off the similarity of a chunk on the path already: it is taken again only by an entity that has
no other chunk (and then adds no text)."""


@dataclass(frozen=True)
class Walk:
    """A path being built: entity and chunk rows, and the sum of its hops' scores."""

    entities: tuple[int, ...]
    chunks: tuple[int, ...]
    score: float


class WalkIndex:
    """What every walk on a graph reads, derived once per sampler: chunk to document, chunk to entities,
    which entities are generic."""

    def __init__(self, graph: ContextGraph, generic: np.ndarray) -> None:
        self.graph = graph
        self.generic = generic
        self._scratch = threading.local()

    @cached_property
    def chunk_doc(self) -> np.ndarray:
        rows = {d: i for i, d in enumerate(self.graph.doc_ids)}
        return np.fromiter((rows[d] for d in self.graph.chunk_doc_ids),
                           dtype=np.int64, count=len(self.graph.chunk_ids))

    @cached_property
    def doc_chunks(self) -> Any:
        """Document x chunk incidence (CSR)."""
        from scipy import sparse

        n = len(self.chunk_doc)
        return sparse.csr_matrix((np.ones(n, dtype=np.int8), (self.chunk_doc, np.arange(n))),
                                 shape=(len(self.graph.doc_ids), n))

    @cached_property
    def chunk_entities(self) -> Any:
        return self.graph.entity_chunks.T.tocsr()

    @cached_property
    def doc_entities(self) -> Any:
        """Document x entity incidence (CSR), from the entities' chunks: an entity is in a document when one of
        its chunks is."""
        m = (self.doc_chunks @ self.chunk_entities).tocsr()
        m.data[:] = 1
        m.sort_indices()
        return m

    @cached_property
    def n_docs(self) -> np.ndarray:
        """Per entity, the number of documents its chunks are in."""
        return np.bincount(self.doc_entities.indices, minlength=self.graph.n_entities)

    @cached_property
    def generic_cost(self) -> np.ndarray:
        """Per entity, what a hop to it loses for being a generic concept (GENERIC_HOP or 0)."""
        return GENERIC_HOP * self.generic

    @cached_property
    def chunk_rows(self) -> _ChunkRows:
        """The entity x chunk incidence as `best_chunks` reads it per question."""
        m = self.graph.entity_chunks
        if not m.has_sorted_indices:
            m = m.sorted_indices()
        counts = np.diff(m.indptr)
        column = np.full(len(counts), -1, dtype=np.int64)
        column[counts == 1] = m.indices[m.indptr[:-1][counts == 1]]
        multi = np.flatnonzero(counts > 1)
        chunks, lengths = _gather(m, multi)
        return _ChunkRows(column, multi, chunks, np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64),
                          bool((counts == 0).any()))

    def scratch(self) -> _Scratch:
        """This thread's zeroed per-entity arrays (a walk's steps mark a few entities, read them, then zero them)."""
        mine = getattr(self._scratch, "arrays", None)
        if mine is None:
            n = self.graph.n_entities
            mine = self._scratch.arrays = _Scratch(np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.float32))
        return mine


@dataclass(frozen=True)
class _ChunkRows:
    """An entity's chunks, split by how many it has: three in four entities of MultiHop-RAG full have one, whose best
    chunk is that one whatever the question."""

    single: np.ndarray
    """Per entity, its chunk when it has one only, else -1."""
    multi: np.ndarray
    """The entities with more chunks, in row order."""
    chunks: np.ndarray
    """Their chunks, row after row (sorted within a row, as CSR keeps them)."""
    starts: np.ndarray
    """Where each of their rows starts in `chunks`."""
    empty: bool
    """Whether some entity has no chunk."""


@dataclass(frozen=True)
class _Scratch:
    """Per-entity arrays kept at zero between uses: marking a few entities and reading the candidates' values costs
    what they hold, where sorting and matching them against the candidates cost more (issue 50)."""

    count: np.ndarray
    """How many of a walk's documents an entity is in."""
    link: np.ndarray
    """The similarity of the best chunk an entity shares with the walk's last one (never below 0)."""


class Steps:
    """The next steps of walks towards one question. An entity's best chunk is computed once for all
    entities (one pass over the incidence); a walk recomputes it only for the entities with a chunk on the
    walk (ON_PATH). Each hop used to score every neighbour's chunks anew: on MultiHop-RAG medium a
    document link reaches thousands of entities, and a pool cost about 90 ms."""

    def __init__(self, on: WalkIndex, relevance: np.ndarray, linked: np.ndarray, kinds: tuple[LinkKind, ...],
                 best: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """`best`: `best_chunks(on, relevance)` when the caller keeps it (the seed candidates of a question
        share it)."""
        self.on, self.relevance, self.linked, self.kinds = on, relevance, linked, kinds
        self.top = float(relevance.max())
        best_score, self._chunk = best if best is not None else best_chunks(on, relevance)
        self._score = best_score - on.generic_cost
        """Per entity, its best chunk's similarity less GENERIC_HOP for a generic concept: the score of a hop to
        it before the link, unless that chunk is on the walk."""

    def options(self, walk: Walk, k: int) -> list[tuple[float, int, int]]:
        """The k best next steps (score, entity, chunk) of a walk: among the unvisited entities linked to
        its last one (in the graph, or through the question: `linked`) that can add a document not on the
        walk (all of them if none can), each scored by the similarity to the question of the chunk it would
        add (less ON_PATH for a chunk on the walk) plus LINK_WEIGHT times that of the best chunk it
        shares with the current entity (through the question: the question's best chunk), less GENERIC_HOP
        for a generic concept; the best entity for each of k different chunks."""
        options = self._candidates(walk)
        if len(options) == 0:
            return []
        fresh = self._fresh(walk, options)
        if fresh.any():
            options = options[fresh]
        scores, adds = self._chunk_scores(walk, options)
        if LINK_WEIGHT:
            scores = scores + LINK_WEIGHT * self._link_scores(walk.entities[-1], options)
        top = _best_distinct(scores, adds, k)
        return list(zip(scores[top].tolist(), options[top].tolist(), adds[top].tolist()))

    def _candidates(self, walk: Walk) -> np.ndarray:
        """Sorted rows of the entities linked to the walk's last one or through the question, not on it."""
        graph, current = self.on.graph, walk.entities[-1]
        mask = np.zeros(graph.n_entities, dtype=bool)
        if "document" in self.kinds:  # sharing a chunk implies sharing a document: a superset
            mask[_gather(graph.doc_entities, graph.docs_of(current))[0]] = True
        else:
            mask[graph.neighbours(current, self.kinds)] = True
        mask[self.linked] = True
        mask[list(walk.entities)] = False
        return np.flatnonzero(mask)

    def _fresh(self, walk: Walk, options: np.ndarray) -> np.ndarray:
        """Per option, whether it has a chunk of a document not on the walk: it is in more documents than those
        of the walk it is in (counted on the scratch array, one document's distinct entities at a time)."""
        on = self.on
        count = on.scratch().count
        m = on.doc_entities
        rows = [m.indices[m.indptr[d]:m.indptr[d + 1]] for d in set(on.chunk_doc[list(walk.chunks)].tolist())]
        try:
            for row in rows:
                count[row] += 1
            return on.n_docs[options] > count[options]
        finally:  # zero again even when interrupted: the next walk of this thread reads it
            for row in rows:
                count[row] = 0

    def _chunk_scores(self, walk: Walk, options: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per option: the score of the best chunk it would add (less GENERIC_HOP for a generic concept), and that
        chunk. Only what the walk changes is computed here (issue 50: re-scoring every entity of the walk's
        documents was most of a pool's time): a chunk on the walk scores ON_PATH less, so an option's best chunk
        changes only when it is on the walk (its other chunks were no better, and none before it as good)."""
        scores, adds = self._score[options], self._chunk[options]
        on_walk = adds == walk.chunks[0]
        for c in walk.chunks[1:]:  # a few chunks: np.isin costs more
            on_walk |= adds == c
        redo = np.flatnonzero(on_walk)
        if len(redo):
            penalised = self.relevance.astype(np.float64)  # a copy, as best_chunks scores
            penalised[list(walk.chunks)] -= ON_PATH
            rows = options[redo]
            best, adds[redo] = _rows_best(self.on.graph.entity_chunks, rows, penalised)
            scores[redo] = best - self.on.generic_cost[rows]
        return scores, adds

    def _link_scores(self, current: int, options: np.ndarray) -> np.ndarray:
        """Per option: the similarity to the question of the best chunk it shares with `current` (0 if none);
        through the question (`linked`), at least the question's best chunk's. As float32 (the link's
        precision since it was first written; rounding keeps the order, so the max of the rounded values)."""
        own = self.on.graph.chunks_of(current)
        entities, counts = _gather(self.on.chunk_entities, own)
        shared = self.on.scratch().link
        try:
            np.maximum.at(shared, entities, np.repeat(self.relevance[own].astype(np.float32), counts))
            link = shared[options]
        finally:  # zero again even when interrupted: the next walk of this thread reads it
            shared[entities] = 0
        through, _ = _positions(options, self.linked)
        link[through] = np.maximum(link[through], self.top)
        return link


def best_chunks(on: WalkIndex, relevance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per entity: the similarity of its chunk most similar to the question (-inf with no chunk) and that
    chunk (the first of equals in its row; -1 with none). One sort of the chunks, then each entity's best-ranked
    chunk: a minimum over small integers (issue 50: 0.6 of the max-then-first-equal passes over the incidence)."""
    rows = on.chunk_rows
    column = rows.single.copy()
    if not len(relevance):  # a graph without chunks
        return np.full(len(column), -np.inf), column
    if len(rows.multi):
        order = _descending(relevance)
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        column[rows.multi] = order[np.minimum.reduceat(rank[rows.chunks], rows.starts)]
    best = relevance[column].astype(np.float64)
    if rows.empty:
        best[column < 0] = -np.inf
    return best, column


def _descending(values: np.ndarray) -> np.ndarray:
    """Positions of `values` from the largest, equals in position order: a stable sort's order, from an unstable
    sort (half the time) whose runs of equals (a few dozen: chunks of the same text) are put in order after it."""
    order = np.argsort(-values)
    ranked = values[order]
    tied = np.flatnonzero(ranked[1:] == ranked[:-1])
    if len(tied):
        at = np.union1d(tied, tied + 1)  # the runs' positions; a run's value is its own, so a sort keeps them in place
        order[at] = order[at][np.lexsort((order[at], -ranked[at]))]
    return order


def pool(steps: Steps, start: Walk, hops: int, k: int) -> list[Walk]:
    """The walks a path is drawn from, best first. From `start`, each hop extends the best walks so far
    (BEAM * k) by their WIDEN * k best next steps; the k ** (hops - 1) distinct walks with the best summed
    hop scores (none more than POOL_MARGIN below the best) make the pool, as many as a uniform draw among
    the k best at each hop could give, so paths vary as much (issue 29: those draws took a weak first hop as often as the best one). A walk that cannot
    go on is dropped while others can; when none can, the walks stop there."""
    walks = [start]
    for hop in range(1, hops):
        longer = [Walk((*w.entities, e), (*w.chunks, c), w.score + s)
                  for w in walks for s, e, c in steps.options(w, WIDEN * k)]
        if not longer:
            break
        longer.sort(key=lambda w: -w.score)  # stable: ties keep the order the options came in
        unique: dict[tuple[int, ...], Walk] = {}
        for w in longer:  # one walk per sequence of chunks: its best
            unique.setdefault(w.chunks, w)
        ranked = list(unique.values())
        if hop == hops - 1:
            near = [w for w in ranked if w.score >= ranked[0].score - POOL_MARGIN]
            return _spread(near, k ** (hops - 1), steps.on.chunk_doc, DOC_FLOOR * hops)
        walks = ranked[:BEAM * k]
    return walks


def spanned(w: Walk, chunk_doc: np.ndarray) -> int:
    """How many documents a walk's chunks are in (what DOC_FLOOR counts)."""
    return len(set(chunk_doc[list(w.chunks)].tolist()))


def _spread(ranked: list[Walk], n: int, chunk_doc: np.ndarray, floor: float) -> list[Walk]:
    """The n best walks, with the worst of those that span the fewest documents swapped for the best left out
    that span more until they span `floor` documents on average (or no swap adds one). The walks left out
    are read only when a swap is needed: most pools span enough as they are."""
    kept = {i: spanned(ranked[i], chunk_doc) for i in range(min(n, len(ranked)))}
    left = iter(range(len(kept), len(ranked)))
    waiting: list[tuple[int, int]] = []  # (walk, documents) of the walks left out read so far, in rank order
    while floor and sum(kept.values()) < floor * len(kept):
        fewest = min(kept.values())
        better = next((j for j, d in waiting if d > fewest), None)
        while better is None:
            j = next(left, None)
            if j is None:
                return [ranked[i] for i in sorted(kept)]
            waiting.append((j, spanned(ranked[j], chunk_doc)))
            better = j if waiting[-1][1] > fewest else None
        del kept[max(i for i, d in kept.items() if d == fewest)]
        kept[better] = next(d for j, d in waiting if j == better)
        waiting = [(j, d) for j, d in waiting if j != better]
    return [ranked[i] for i in sorted(kept)]


def _best_distinct(scores: np.ndarray, adds: np.ndarray, k: int) -> list[int]:
    """Positions of the k best scores that add different chunks (the best of each chunk), best first; ties
    broken by position. Sorts only the best scores, widening while they hold fewer than k chunks."""
    n, m = len(scores), 4 * k
    while True:
        if m >= n:
            chosen = np.arange(n)
        else:  # every score at least a cut: a prefix of the full order, ties included, whatever the cut
            chosen = np.flatnonzero(scores >= _cut(scores, m))
        order = chosen[np.lexsort((chosen, -scores[chosen]))]
        taken: set[int] = set()
        top = []
        for i, chunk in zip(order.tolist(), adds[order].tolist()):  # a few hundred: cheaper than np.unique
            if chunk not in taken:
                taken.add(chunk)
                top.append(i)
                if len(top) == k:
                    return top
        if m >= n:
            return top
        m *= 4


def _cut(scores: np.ndarray, m: int) -> float:
    """A score with about m of `scores` at least as high: the m-th best, or for a long list that of every
    `step`-th score (a partition of a fraction of them; any cut gives `_best_distinct` a prefix of the order,
    and one too high only widens it)."""
    n = len(scores)
    step = n // (4 * m)
    if step < 2:
        return float(np.partition(scores, n - m)[n - m])
    sample = scores[::step]
    r = max(1, m // step)
    return float(np.partition(sample, len(sample) - r)[len(sample) - r])


def _gather(m: Any, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The column indices of some rows of a CSR matrix, concatenated in the rows' order, and each row's count:
    slicing without scipy's fancy indexing, which costs more than the rows of a walk hold."""
    rows = np.asarray(rows, dtype=np.int64)
    starts = m.indptr[rows].astype(np.int64)
    counts = m.indptr[rows + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), counts
    shift = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return m.indices[np.arange(total) + shift], counts


def _positions(rows: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the values of `wanted` (distinct) are in the sorted distinct `rows`, and which of `wanted` are there:
    a few values looked up in a long row list (a walk's entities among thousands of candidates) without a pass
    over all of it, as `np.isin` would make."""
    if not len(rows) or not len(wanted):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    at = np.minimum(np.searchsorted(rows, wanted), len(rows) - 1)
    found = np.flatnonzero(rows[at] == wanted)
    return at[found], found


def _rows_best(m: Any, rows: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For some rows of a CSR matrix, none empty: the largest of `values` at its columns and the first column
    holding it."""
    columns, counts = _gather(m, rows)
    vals = values[columns]
    starts = np.cumsum(counts) - counts
    best = np.maximum.reduceat(vals, starts)
    hits = np.flatnonzero(vals == np.repeat(best, counts))
    first = hits[np.r_[True, np.diff(np.searchsorted(starts, hits, side="right")) > 0]]  # a row's first hit
    return best, columns[first]
