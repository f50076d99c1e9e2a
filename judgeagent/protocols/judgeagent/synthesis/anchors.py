"""Where each slot's knowledge path starts: a chunk of a document chosen for coverage (every document in
turn, in a seeded order) or, from a run, for weakness (documents drawn by the run's failure rate)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ....errors import JudgeAgentError
from ....graph.model import ContextGraph
from ....runs import Run, a_run_of
from ..records import question_records


@dataclass(frozen=True)
class Weakness:
    """What a run got wrong, by document and entity of the failed questions' knowledge paths."""

    asked: dict[str, int]
    """Questions whose path touched the document, by document id."""
    failed: dict[str, int]
    failed_chunks: frozenset[str]
    """Chunks on the paths of failed questions: anchors are taken among them where a document has some."""
    entities: dict[str, int]
    """Failed questions per path entity."""
    questions: tuple[str, ...]
    """Every question the run asked (base and extension): none may come back as a training item."""

    def rate(self, doc_id: str) -> float:
        return self.failed.get(doc_id, 0) / max(1, self.asked.get(doc_id, 0))

    def table(self, limit: int = 20) -> list[dict[str, Any]]:
        docs = sorted(self.failed, key=lambda d: (-self.rate(d), -self.failed[d], d))
        return [{"doc_id": d, "failed": self.failed[d], "asked": self.asked[d], "failure_rate": round(self.rate(d), 3)}
                for d in docs[:limit]]


def run_weakness(run: Run, graph: ContextGraph) -> Weakness:
    """Failure counts per document and entity from the run's records (their knowledge paths' chunks)."""
    if run.manifest.get("protocol", "judgeagent") != "judgeagent":
        raise JudgeAgentError(f"run {run.folder} is {a_run_of(run.manifest.get('protocol'))}; --from-run needs a "
                              "JudgeAgent run (its questions carry knowledge paths)")
    used = (run.manifest.get("graph") or {}).get("graph_id")
    if used and used != graph.manifest.get("graph_id"):
        raise JudgeAgentError(f"run {run.folder} used graph {used}, not this graph "
                              f"({graph.manifest.get('graph_id')}); give the graph the run was made with")
    doc_of = graph.doc_of
    asked: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    entities: Counter[str] = Counter()
    chunks: set[str] = set()
    records = question_records(run)
    for record in records:
        docs = {doc_of[c] for c in record.chunk_ids if c in doc_of}
        asked.update(docs)
        if not record.correct:
            failed.update(docs)
            entities.update(record.path_entities)
            chunks.update(c for c in record.chunk_ids if c in doc_of)
    if not failed:
        raise JudgeAgentError(f"run {run.folder} has no failed question with a knowledge path: nothing to aim at; "
                              "synthesize without --from-run for a set spread over the whole graph")
    return Weakness(dict(asked), dict(failed), frozenset(chunks), dict(entities),
                    tuple(dict.fromkeys(r.question for r in records)))


@dataclass
class AnchorPlan:
    """The anchor chunk of slot k, the same on every run with the same graph, seed and weakness."""

    graph: ContextGraph
    seed: int
    weakness: Weakness | None = None
    _docs: list[str] = field(init=False)
    _chunks: dict[str, list[str]] = field(init=False)

    def __post_init__(self) -> None:
        self._chunks = {}
        for chunk, doc in self.graph.doc_of.items():
            self._chunks.setdefault(doc, []).append(chunk)
        rng = np.random.default_rng(self.seed)
        if self.weakness is None:
            self._docs = [self.graph.doc_ids[i] for i in rng.permutation(len(self.graph.doc_ids))
                          if self.graph.doc_ids[i] in self._chunks]
        else:
            self._docs = [d for d in sorted(self.weakness.failed) if d in self._chunks]

    def document(self, slot: int) -> str:
        if self.weakness is None:  # every document once before any twice: coverage first
            return self._docs[slot % len(self._docs)]
        weights = np.array([self.weakness.rate(d) for d in self._docs])
        rng = np.random.default_rng([self.seed, slot])
        return self._docs[int(rng.choice(len(self._docs), p=weights / weights.sum()))]

    def chunk(self, slot: int) -> tuple[str, str]:
        """(document id, chunk id) anchoring `slot`."""
        doc = self.document(slot)
        options = self._chunks[doc]
        if self.weakness is not None:
            options = [c for c in options if c in self.weakness.failed_chunks] or options
        rng = np.random.default_rng([self.seed, slot, 1])
        return doc, options[int(rng.integers(len(options)))]

