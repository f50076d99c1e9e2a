"""Knowledge gaps a run names (documents and entities ranked by failure rate) and how well they recover
a planted truth: precision@k, recall@k, AUC, questions needed to reach a precision."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ....runs import first_per_key, read_rows
from ..records import QuestionRecord, as_records


@dataclass(frozen=True)
class Weak:
    """One document or entity with its failure evidence. Counts are weighted: a question spreads one
    unit over the documents (entities) of its path, so a long path does not count more."""

    name: str
    asked: float
    failed: float

    @property
    def rate(self) -> float:
        return self.failed / self.asked if self.asked else 0.0

    @property
    def score(self) -> float:
        """The rank key: the failure rate shrunk towards 1/2 by half a question (Jeffreys), so that one
        failure of one question ranks below five of five."""
        return (self.failed + 0.5) / (self.asked + 1.0)


def read_records(folder: str | Path) -> list[QuestionRecord]:
    """A run folder's records, typed, in the order they were written: a record written twice (a crash between
    append and journal) once, a torn last line skipped, a line damaged elsewhere one error naming it (`read_rows`,
    as every reader of a run)."""
    return as_records(first_per_key(read_rows(Path(folder) / "records.jsonl", "record_id"), "record_id"))


def chunk_document(chunk_id: str) -> str:
    """A chunk id's document: graphs name chunks `<doc_id>#<position>` (docs/graph-format.md)."""
    return chunk_id.rsplit("#", 1)[0]


def _spread(records: Iterable[QuestionRecord], units: Callable[[QuestionRecord], Sequence[str]]) -> list[Weak]:
    asked: dict[str, float] = {}
    failed: dict[str, float] = {}
    for r in records:
        names = list(dict.fromkeys(units(r)))
        if not names:
            continue
        for name in names:
            asked[name] = asked.get(name, 0.0) + 1.0 / len(names)
            if not r.correct:
                failed[name] = failed.get(name, 0.0) + 1.0 / len(names)
    ranked = [Weak(n, asked[n], failed.get(n, 0.0)) for n in asked]
    return sorted(ranked, key=lambda w: (-w.score, -w.failed, w.name))


def weak_documents(records: Iterable[QuestionRecord], chunk_docs: Mapping[str, str] | None = None,
                   entity_docs: Mapping[str, Sequence[str]] | None = None) -> list[Weak]:
    """Documents of the questions' knowledge paths, weakest first; each path chunk's document carries an
    equal share of its question. A question with no path (a base question) counts only when
    `entity_docs` is given: then over the documents of the entities it names."""
    def docs(r: QuestionRecord) -> list[str]:
        chunks = r.chunk_ids
        if not chunks and entity_docs is not None:
            return [d for e in r.entities or [] for d in entity_docs.get(e, ())]
        return [chunk_docs.get(c, chunk_document(c)) if chunk_docs else chunk_document(c) for c in chunks]

    return _spread(records, docs)


def weak_entities(records: Iterable[QuestionRecord]) -> list[Weak]:
    """Entities of the questions' paths (extension) or named by the question and gold (base), weakest first."""
    return _spread(records, lambda r: r.path_entities or r.entities or [])


@dataclass(frozen=True)
class Recovery:
    """How well the named weak documents match the planted unknown documents."""

    k: int
    precision_at_k: float
    recall_at_k: float
    auc: float | None
    """P(an unknown document's failure rate > a known one's), ties half; None without both kinds."""
    documents_seen: int
    questions: int
    questions_to_precision: int | None
    """Questions (in the order asked) after which precision@k first reached `target_precision`."""
    target_precision: float


def precision_recall(ranked: Sequence[Weak], unknown: set[str], k: int) -> tuple[float, float]:
    top = [w.name for w in ranked[:k]]
    hits = sum(1 for d in top if d in unknown)
    return (hits / len(top) if top else 0.0), (hits / len(unknown) if unknown else 0.0)


def auc(ranked: Sequence[Weak], unknown: set[str]) -> float | None:
    """Mann-Whitney AUC of per-document failure rate, unknown (positive) vs known documents."""
    pos = [w.rate for w in ranked if w.name in unknown]
    neg = [w.rate for w in ranked if w.name not in unknown]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def questions_to_precision(records: Sequence[QuestionRecord], unknown: set[str], k: int, target: float,
                           chunk_docs: Mapping[str, str] | None = None,
                           entity_docs: Mapping[str, Sequence[str]] | None = None) -> int | None:
    """The fewest leading questions whose weak-document ranking has precision@k >= target (k documents
    ranked at least)."""
    for n in range(1, len(records) + 1):
        ranked = weak_documents(records[:n], chunk_docs, entity_docs)
        if len(ranked) >= k and precision_recall(ranked, unknown, k)[0] >= target:
            return n
    return None


def recovery(records: Sequence[QuestionRecord], unknown: Iterable[str], k: int = 10,
             target_precision: float = 0.8, chunk_docs: Mapping[str, str] | None = None,
             entity_docs: Mapping[str, Sequence[str]] | None = None) -> Recovery:
    """Gap recovery of one run's records against the planted unknown documents (`weak_documents`)."""
    truth = set(unknown)
    ranked = weak_documents(records, chunk_docs, entity_docs)
    precision, recall = precision_recall(ranked, truth, k)
    used = [r for r in records if r.chunk_ids or (entity_docs is not None and r.entities)]
    return Recovery(k, precision, recall, auc(ranked, truth), len(ranked), len(used),
                    questions_to_precision(used, truth, k, target_precision, chunk_docs, entity_docs),
                    target_precision)
