"""The realistic planted-gap target: a real model answering with the top-k chunks of its known documents
in its prompt (a small RAG). Its knowledge is roughly its documents: it may still answer from what it
learnt in training, and may misread what it is given."""
from __future__ import annotations

from typing import Any

import numpy as np

from ....graph.model import ContextGraph
from ....models.base import Message
from .target import ExactTarget, KnownDocuments

NOTES = "Notes you remember (use them if they help):\n{notes}\n\n"


class RagTarget:
    """`reply(messages)`: the same messages with the `k` known chunks most similar to the question put
    before the question, sent to an OpenAI-compatible endpoint (synchronously: a loopback server's
    thread calls it)."""

    def __init__(self, graph: ContextGraph, known: KnownDocuments, base_url: str, model: str, k: int = 3,
                 encoder: Any = None, max_tokens: int = 64) -> None:
        from openai import OpenAI

        self.lookup = ExactTarget(graph, known, encoder=encoder)
        self.graph, self.k, self.model, self.max_tokens = graph, k, model, max_tokens
        self.client = OpenAI(base_url=base_url, api_key="none", max_retries=2, timeout=300)

    def notes(self, question: str) -> list[str]:
        """The texts of the `k` known chunks most similar to the question (none when nothing is known)."""
        rows = self.lookup.rows
        if not len(rows):
            return []
        scores = self.graph.chunk_vectors[rows] @ self.lookup.encoder.encode([question])[0]
        best = np.argsort(-scores)[: self.k]
        return [self.graph.chunk_texts[int(rows[i])] for i in best]

    def messages(self, messages: list[Message]) -> list[Message]:
        question = messages[-1]["content"].split("Question: ", 1)[-1]
        notes = "\n---\n".join(self.notes(question)) or "(none)"
        return [*messages[:-1], {"role": "user", "content": NOTES.format(notes=notes) + messages[-1]["content"]}]

    def reply(self, messages: list[Message]) -> str:
        out = self.client.chat.completions.create(model=self.model, messages=self.messages(messages),  # type: ignore[arg-type]
                                                  temperature=0, max_tokens=self.max_tokens)
        return out.choices[0].message.content or ""
