"""One walk from a given root entity, cut into overlapping windows: the authors' path shape
(DataArcTech/JudgeAgent@2b1b921, `synthetize_questions_multi_rounds`, judge_agent.py:480-536), on our walk
(`walk.pool`: each hop scored by its chunk's similarity to the batch's questions)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from . import walk
from .model import ContextGraph
from .sample import KnowledgePath, PathSampler, check_questions

CANDIDATES = 5
"""The pool's width, as `PathSampler.sample`'s default: a pool of CANDIDATES ** (hops - 1) walks."""


class Root(NamedTuple):
    """The entity a batch's walk starts from: the graph node, and the mention counted (`most_frequent`)."""

    entity: int
    mention: str
    count: int


def most_frequent(sampler: PathSampler, questions: Sequence[str]) -> Root | None:
    """The entity the batch's questions mention most often (ties: the first mentioned), mapped to the graph
    node of that name or else the node named most like it, as the authors' `get_name_on_graph`. The authors
    count the entities a model labelled in each question; we count the extractor's mentions (the graph's own
    spaCy), less those whose node is a generic concept (a "patient" in every MedQA question would root every
    walk). None when no question mentions anything: the authors' code then asks no extension question."""
    row, generic = sampler.graph.entity_row, sampler.graph.specificity < _generic_floor()
    counts: Counter[str] = Counter()
    for mentions in sampler.extract(check_questions(questions)):
        counts.update(m.name for m in mentions if m.name not in row or not generic[row[m.name]])
    if not counts:
        return None
    name, count = counts.most_common(1)[0]  # Counter keeps first-seen order among equal counts
    if name in row:
        return Root(row[name], name, count)
    _, found = sampler.graph.entity_index.search(sampler.vector(name)[None, :], 1)
    return Root(int(found[0, 0]), name, count)


def _generic_floor() -> float:
    from .specificity import GENERIC

    return GENERIC


def rooted_walk(sampler: PathSampler, root: Root, questions: Sequence[str], hops: int, seed: int) -> KnowledgePath:
    """One walk of up to `hops` entities from `root`: its first chunk drawn among the root's chunks (the authors
    draw a random position of the root), then our walk (`walk.pool`) towards the chunks most like any of the
    batch's questions, one walk of the pool drawn with `seed`."""
    questions = check_questions(questions)
    graph = sampler.graph
    rng = np.random.default_rng(seed)
    vectors = sampler.encoder.encode(list(dict.fromkeys(questions)))  # one call for the batch
    relevance = (vectors @ graph.chunk_vectors.T).max(axis=0)
    own = graph.chunks_of(root.entity)
    first = int(own[int(rng.integers(len(own)))])
    steps = walk.Steps(_index(graph), relevance, np.zeros(0, dtype=np.int64), ("chunk", "document"))
    pool = walk.pool(steps, walk.Walk((root.entity,), (first,), 0.0), hops, CANDIDATES)
    drawn = pool[int(rng.integers(len(pool)))]
    entities, chunks = list(drawn.entities), list(drawn.chunks)
    reason = None if len(entities) == hops else f"no unvisited neighbour of {graph.entity_names[entities[-1]]!r}"
    return KnowledgePath(
        question=" / ".join(dict.fromkeys(questions)), seed=root.mention,
        entities=[graph.entity_names[e] for e in entities], entity_ids=entities,
        chunk_ids=[graph.chunk_ids[c] for c in chunks], chunk_texts=[graph.chunk_texts[c] for c in chunks],
        text="\n".join(graph.chunk_texts[c] for c in dict.fromkeys(chunks)), hops=hops,
        stopped_early=reason is not None, stop_reason=reason, seed_kind="named",
        similarities=[round(float(relevance[c]), 4) for c in chunks])


def windows(path: KnowledgePath, size: int, rounds: int) -> list[KnowledgePath]:
    """The authors' per-round windows of one walk: `size` consecutive entities each, the next window one entity
    further on (consecutive windows share `size - 1` entities), at most `rounds` of them. As their code, none at
    all unless the walk is longer than one window (`if len(sampled_path) > self.sample_hop`)."""
    n = len(path.entities)
    if n <= size:
        return []
    out = []
    for start in range(min(rounds, n - size + 1)):
        part = slice(start, start + size)
        chunk_ids = path.chunk_ids[part]
        texts = path.chunk_texts[part]
        distinct = dict(zip(chunk_ids, texts))
        out.append(replace(path, entities=path.entities[part], entity_ids=path.entity_ids[part], chunk_ids=chunk_ids,
                           chunk_texts=texts, text="\n".join(distinct.values()), hops=size, stopped_early=False,
                           stop_reason=None, similarities=path.similarities[part]))
    return out


def _index(graph: ContextGraph) -> walk.WalkIndex:
    """The graph's walk index, made once per graph (its incidences are products over the whole graph)."""
    index = graph.__dict__.get("_rooted_walks")
    if index is None:
        index = graph.__dict__["_rooted_walks"] = walk.WalkIndex(graph, graph.specificity < _generic_floor())
    return index
