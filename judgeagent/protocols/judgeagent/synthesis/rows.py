"""A synthesis's rows: each slot's walk and candidate (slots.jsonl, its resumable log) and each item kept
(items.jsonl). JSON-shaped, so TypedDicts; the order of an item's keys is the order the dataset's files have."""
from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from ....graph.sample import KnowledgePath


class SlotPath(TypedDict):
    entities: list[str]
    entity_ids: list[int]
    chunk_ids: list[str]
    seed: str
    seed_kind: str


class Candidate(TypedDict):
    """A generated item before the selector: its question, gold, tier and generator, where its gold is stated,
    the path it came from, and the checks it passed."""

    question: str
    answer: str
    aliases: list[str]
    difficulty: str
    question_type: str
    generator: str
    supporting_doc_ids: list[str]
    source_chunk_ids: list[str]
    path_chunk_ids: list[str]
    path_entities: list[str]
    path_doc_ids: list[str]
    seed_entity: str
    checks: list[str]


class KeptItem(Candidate, total=False):
    """An item of the dataset (items.jsonl): the candidate with its id, its anchor document and how near it is
    to the items kept before it and (with --from-run) to the run's questions."""

    qid: str
    anchor_doc_id: str
    nearest_item_similarity: float
    nearest_asked_similarity: float


class SlotRow(TypedDict, total=False):
    """A slot of slots.jsonl: its anchor and path, and the candidate it gave (None, with the reasons, when none
    passed). `_path`, the walked path itself, lives in memory only until the slot is filled."""

    key: str
    slot: int
    difficulty: str
    doc_id: str
    anchor_chunk_id: str
    path: SlotPath
    _path: KnowledgePath
    item: Candidate | None
    rejected: list[str]
