"""The exact planted-gap target: a `ChatModel` that knows a chosen set of documents and nothing else."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from pydantic import BaseModel

from ....graph.model import ContextGraph
from ....models.base import Completion, Message
from ..cloze import BLANK, INSTRUCTION

UNKNOWN = "I don't know."
MIN_SIMILARITY = 0.45
"""Cosine similarity (MiniLM) below which no known chunk is about the question: the target abstains.
Above it a question is answered from its best chunk, right or wrong, as a confident model would."""
_WINDOW = 40
"""Characters of the cloze passage either side of the blank that must match the known chunk."""


@dataclass(frozen=True)
class KnownDocuments:
    """The planted truth: which documents the target knows, and the topics they were drawn by."""

    doc_ids: frozenset[str]
    topics: dict[str, str]
    """Every document's topic (category, title, ...): the unit gaps are drawn in."""
    share: float

    def known(self, doc_id: str) -> bool:
        return doc_id in self.doc_ids


def document_topics(graph: ContextGraph, field: str = "category") -> dict[str, str]:
    """Each document's topic: its `meta[field]` when it has one (MultiHop-RAG's categories), else its title."""
    docs = graph.tables["documents"]
    topics = {}
    for doc_id, title, meta in zip(*(docs.column(c).to_pylist() for c in ("doc_id", "title", "meta"))):
        value = (json.loads(meta) if meta else {}).get(field)
        topics[doc_id] = str(value) if value else (title or doc_id)
    return topics


def select_documents(graph: ContextGraph, share: float, seed: int = 0, field: str = "category") -> KnownDocuments:
    """Whole topics, in a seeded order, until `share` of the documents are known; the last topic is cut
    (a seeded subset) so that exactly round(share x documents) are known."""
    topics = document_topics(graph, field)
    by_topic: dict[str, list[str]] = {}
    for doc, topic in topics.items():
        by_topic.setdefault(topic, []).append(doc)
    rng = np.random.default_rng([seed, 16])
    order = sorted(by_topic)
    want = round(share * len(topics))
    chosen: list[str] = []
    for t in rng.permutation(len(order)).tolist():
        members = sorted(by_topic[order[t]])
        need = want - len(chosen)
        if need <= 0:
            break
        if len(members) > need:
            members = sorted(rng.choice(members, size=need, replace=False).tolist())
        chosen.extend(members)
    return KnownDocuments(frozenset(chosen), topics, share)


class ExactTarget:
    """Answers from its known documents only.

    A cloze question (`grading.cloze`) is answered with the mention that fills the blank in a known
    chunk whose text matches the passage around the blank; any other question with the mention, in the
    known chunk most similar to the question (the graph's encoder), from the sentence that shares most
    words with the question and that the question does not already name; otherwise "I don't know".
    """

    def __init__(self, graph: ContextGraph, known: KnownDocuments | Sequence[str], encoder: Any = None,
                 name: str = "exact-target", min_similarity: float = MIN_SIMILARITY) -> None:
        self.graph = graph
        self.known = known if isinstance(known, KnownDocuments) else KnownDocuments(frozenset(known), {}, 0.0)
        self.name = name
        self.min_similarity = min_similarity
        self._encoder = encoder
        self.rows = np.array([i for i, d in enumerate(graph.chunk_doc_ids) if self.known.known(d)], dtype=np.int64)

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from ....embedding import Encoder

            self._encoder = Encoder(self.graph.manifest["embedding"]["model"])
        return self._encoder

    @cached_property
    def _mentions(self) -> dict[int, list[tuple[int, int, str]]]:
        """Known chunk row -> its recorded mentions (start, end, surface), in text order."""
        table = self.graph.tables["mentions"]
        rows = set(self.rows.tolist())
        out: dict[int, list[tuple[int, int, str]]] = {}
        for chunk, start, end, surface in zip(*(table.column(c).to_pylist()
                                                for c in ("chunk_id", "start", "end", "surface"))):
            row = self.graph.chunk_row[chunk]
            if row in rows:
                out.setdefault(row, []).append((start, end, surface))
        return {r: sorted(m) for r, m in out.items()}

    async def complete(self, messages: list[Message], *, schema: type[BaseModel] | None = None,
                       **settings: Any) -> Completion:
        return Completion(self.reply(messages), model=self.name)

    def reply(self, messages: list[Message]) -> str:
        """The answer to the last user message (the `answer_messages` layout: "Question: ...")."""
        prompt = messages[-1]["content"]
        question = prompt.split("Question: ", 1)[-1].strip()
        if BLANK in question and question.startswith(INSTRUCTION):
            return self.fill(question) or UNKNOWN
        return self.lookup(question) or UNKNOWN

    def fill(self, question: str) -> str | None:
        """The known mention whose surroundings are the cloze passage's either side of the blank."""
        before, after = _passage(question).split(BLANK, 1)
        want_before, want_after = _norm(before)[-_WINDOW:], _norm(after)[:_WINDOW]
        texts = self.graph.chunk_texts
        for row, mentions in self._mentions.items():
            text = texts[row]
            for start, end, surface in mentions:
                if (_norm(text[max(0, start - 3 * _WINDOW):start]).endswith(want_before)
                        and _norm(text[end:end + 3 * _WINDOW]).startswith(want_after)):
                    return surface
        return None

    def lookup(self, question: str) -> str | None:
        """The best known chunk's mention that answers `question`, or None when no known chunk is close."""
        if not len(self.rows):
            return None
        vector = self.encoder.encode([question])[0]
        scores = self.graph.chunk_vectors[self.rows] @ vector
        best = int(np.argmax(scores))
        if scores[best] < self.min_similarity:
            return None
        return self._phrase(int(self.rows[best]), question)

    def _phrase(self, row: int, question: str) -> str | None:
        """In the chunk's sentence sharing most words with the question, the first mention the question
        does not name (a reader who found the right sentence reads off the missing name)."""
        from ..cloze import split_sentences

        text, asked = self.graph.chunk_texts[row], _tokens(question)
        mentions = self._mentions.get(row, [])
        sentences = sorted(split_sentences(text), key=lambda se: -len(_tokens(text[se[0]:se[1]]) & asked))
        for s, e in sentences:
            for start, end, surface in mentions:
                if s <= start and end <= e and not _tokens(surface) <= asked:
                    return surface
        return None


def _passage(question: str) -> str:
    """The cloze passage inside `INSTRUCTION. In "title": "passage"` or `INSTRUCTION: "passage"`."""
    rest = question[len(INSTRUCTION):]
    if rest.startswith('. In "'):
        cut = rest.find('": "', 6)
        rest = rest[cut + 3:] if cut >= 0 else rest
    else:
        rest = rest.lstrip(": ")
    rest = rest.strip()
    return rest[1:-1] if rest.startswith('"') and rest.endswith('"') else rest.strip('"')


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _tokens(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 2}
