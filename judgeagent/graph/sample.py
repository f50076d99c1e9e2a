"""Algorithm 4: knowledge paths sampled on the context graph, seeded from a batch's questions."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..config import EntityConfig
from ..embedding import Encoder
from ..entities import EntityExtractor, SpacyExtractor
from ..errors import JudgeAgentError
from .model import ContextGraph, LinkKind


@dataclass(frozen=True)
class KnowledgePath:
    """A walk on the graph: the entities visited, one chunk per entity, and their text joined."""

    question: str
    """The question whose entity seeded the path (chunks are ranked by similarity to it)."""
    seed: str
    """The mention taken from the question (the whole question when it has no entity)."""
    entities: list[str]
    entity_ids: list[int]
    chunk_ids: list[str]
    chunk_texts: list[str]
    text: str
    """The distinct chunk texts joined by newlines, in path order: the background for question generation.
    (An entity whose every chunk is already on the path repeats a chunk id but adds no text.)"""
    hops: int
    """Hops asked for; `len(entities)` is what was reached."""
    stopped_early: bool
    stop_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PathSampler:
    """Samples knowledge paths; holds the extractor and encoder so that repeated samples are cheap."""

    def __init__(self, graph: ContextGraph, extractor: EntityExtractor | None = None,
                 encoder: Encoder | None = None) -> None:
        if graph.n_entities == 0:
            raise JudgeAgentError("the graph has no entities: nothing to sample paths from")
        self.graph = graph
        # Question seeds always use spaCy: fast, and needs no model server even for LLM-built graphs.
        self.extractor = extractor or SpacyExtractor(EntityConfig(**graph.manifest["config"]["entities"]))
        self.encoder = encoder or Encoder(graph.manifest["embedding"]["model"])
        self._batches: OrderedDict[tuple[str, ...], list[tuple[int, str]]] = OrderedDict()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        from threadpoolctl import ThreadpoolController

        self._threads = ThreadpoolController()
        if self.encoder.dim != graph.entity_vectors.shape[1]:
            raise JudgeAgentError(
                f"embedding model {self.encoder.name!r} gives {self.encoder.dim}-d vectors; "
                f"the graph has {graph.entity_vectors.shape[1]}-d ones"
            )

    def sample(self, questions: str | Sequence[str], hops: int = 3, seed: int = 0, candidates: int = 5,
               kinds: tuple[LinkKind, ...] = ("chunk", "document")) -> KnowledgePath:
        questions = check_questions(questions)
        if hops < 1:
            raise JudgeAgentError("sampling a path needs hops >= 1")
        # Single-threaded BLAS: these products are small, and OpenBLAS threads spinning after one
        # steal the cores the encoder's threads need next (measured: median 110 -> 45 ms per path).
        with self._threads.limit(limits=1, user_api="blas"):
            return self._sample(list(questions), hops, seed, candidates, kinds)

    def _sample(self, questions: list[str], hops: int, seed: int, candidates: int,
                kinds: tuple[LinkKind, ...]) -> KnowledgePath:
        rng = np.random.default_rng(seed)
        q, seed_text = self._seed(questions, rng)
        seed_vec, q_vec = self._encode([seed_text, questions[q]])
        _, found = self.graph.entity_index.search(seed_vec[None, :], 1)
        entity = int(found[0, 0])
        path, chunks = [entity], [self._pick_chunk(entity, q_vec, [], rng, candidates)]
        reason = None
        while len(path) < hops:
            entity_or_none = self._next_entity(path, rng, candidates, kinds)
            if entity_or_none is None:
                reason = f"no unvisited neighbour of {self.graph.entity_names[path[-1]]!r}"
                break
            path.append(entity_or_none)
            chunks.append(self._pick_chunk(entity_or_none, q_vec, chunks, rng, candidates))
        g = self.graph
        return KnowledgePath(
            question=questions[q], seed=seed_text, entities=[g.entity_names[e] for e in path],
            entity_ids=path, chunk_ids=[g.chunk_ids[c] for c in chunks],
            chunk_texts=[g.chunk_texts[c] for c in chunks],
            text="\n".join(g.chunk_texts[c] for c in dict.fromkeys(chunks)), hops=hops,
            stopped_early=reason is not None, stop_reason=reason,
        )

    def _seed(self, questions: list[str], rng: np.random.Generator) -> tuple[int, str]:
        """Step 1: a random entity mention among all the questions' (the question itself if none)."""
        pool = _remember(self._batches, tuple(questions), lambda: [
            (i, m.surface) for i, found in enumerate(self.extractor.extract(questions)) for m in found])
        if not pool:
            i = int(rng.integers(len(questions)))
            return i, questions[i]
        return pool[int(rng.integers(len(pool)))]

    def dense(self, questions: str | Sequence[str], hops: int = 3, seed: int = 0) -> list[str]:
        """The `--path dense` baseline: the top chunks for the questions by similarity, no graph walk.

        Questions take turns (in an order drawn with `seed`), each adding its best chunk not yet taken,
        until `hops` chunks: one question gets its top `hops`; a batch spreads over its questions."""
        questions = check_questions(questions)
        order = np.random.default_rng(seed).permutation(len(questions))
        with self._threads.limit(limits=1, user_api="blas"):
            vectors = np.stack(self._encode([questions[i] for i in order]))
            k = min(hops, len(self.graph.chunk_ids))
            _, found = self.graph.chunk_index.search(vectors, k)
        taken: dict[int, None] = {}
        for rank in range(k):
            for row in found[:, rank].tolist():
                if len(taken) < k and row >= 0:
                    taken.setdefault(int(row))
        return [self.graph.chunk_ids[c] for c in taken]

    def _encode(self, texts: list[str]) -> list[np.ndarray]:
        found = {t: self._vectors[t] for t in texts if t in self._vectors}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:  # one encoder call for all of them
            for text, vector in zip(missing, self.encoder.encode(missing)):
                found[text] = _remember(self._vectors, text, lambda v=vector: v)
        return [found[t] for t in texts]

    def _next_entity(self, path: list[int], rng: np.random.Generator, k: int,
                     kinds: tuple[LinkKind, ...]) -> int | None:
        """Steps 3: one of the k linked, unvisited entities most similar to the current one."""
        current = path[-1]
        options = np.setdiff1d(self.graph.neighbours(current, kinds), np.asarray(path))
        if len(options) == 0:
            return None
        scores = self.graph.entity_vectors[options] @ self.graph.entity_vectors[current]
        return int(options[_top(scores, k)][rng.integers(min(k, len(options)))])

    def _pick_chunk(self, entity: int, q_vec: np.ndarray, used: list[int], rng: np.random.Generator,
                    k: int) -> int:
        """One of the k chunks of `entity` most similar to the question, avoiding chunks already used."""
        own = self.graph.chunks_of(entity)
        fresh = own[~np.isin(own, used)]
        options = fresh if len(fresh) else own
        scores = self.graph.chunk_vectors[options] @ q_vec
        top = options[_top(scores, k)]
        return int(top[rng.integers(len(top))])


_REMEMBERED = 256  # batches and texts: a run samples each batch's questions once per round


def _remember(store: OrderedDict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
    """A small LRU: rounds of one batch reuse its question entities and vectors."""
    if key in store:
        store.move_to_end(key)
        return store[key]
    value = store[key] = make()
    if len(store) > _REMEMBERED:
        store.popitem(last=False)
    return value


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest scores, best first; ties broken by position for reproducibility."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return order[:k]


def random_chunks(graph: ContextGraph, hops: int, seed: int) -> list[str]:
    """The `--no-graph` ablation: `hops` chunks drawn at random from the whole knowledge base."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(len(graph.chunk_ids), size=min(hops, len(graph.chunk_ids)), replace=False)
    return [graph.chunk_ids[i] for i in sorted(rows.tolist())]


def check_questions(questions: str | Sequence[str]) -> list[str]:
    """At least one question, none blank: an empty seed samples from nothing the user asked."""
    questions = [questions] if isinstance(questions, str) else list(questions)
    if not questions:
        raise JudgeAgentError("sampling a path needs at least one question")
    blank = next((n for n, q in enumerate(questions, start=1) if not q.strip()), None)
    if blank is not None:
        raise JudgeAgentError(f"question {blank} is empty: give each --question some text")
    return questions


def sample_path(graph: ContextGraph, questions: str | Sequence[str], hops: int = 3, seed: int = 0) -> KnowledgePath:
    """One knowledge path (Algorithm 4). Loads the graph's extractor and encoder on first use."""
    check_questions(questions)  # before the models load
    sampler = graph.__dict__.get("_sampler")
    if sampler is None:
        sampler = graph.__dict__["_sampler"] = PathSampler(graph)
    return sampler.sample(questions, hops=hops, seed=seed)
