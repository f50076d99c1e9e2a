"""A scripted interviewer for planted-gap runs: medium and hard questions written from the path's own
sentences without a model, its own golds for the self-check, a fixed feedback.

Figures measured with it describe the interview's sampling and adaptivity machinery, not an LLM
interviewer: its questions are sentence look-ups of two difficulties, nothing more.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from typing import Any

from ..cloze import split_sentences

HARD_WORDS = 6
"""Words kept either side of the gap in a hard question (a medium one keeps the whole sentence)."""
_NAME = re.compile(r"(?<=\s)[A-Z][\w&.'-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w&.'-]*)*")
FEEDBACK = {"flaws_knowledge": "scripted", "flaws_capability": "scripted", "comprehensive_performance": "scripted",
            "suggestions": "scripted interviewer: no feedback is written"}


class ScriptedInterviewer:
    """The interviewer (and self-check answerer) role as a reply function for a loopback server."""

    def __init__(self) -> None:
        self.golds: dict[str, str] = {}
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> str:
        messages = request["messages"]
        prompt = messages[0]["content"]
        if "writing questions from the text fragments" in prompt:
            return json.dumps({"generated_question": self.questions(prompt)})
        if "how a model answered a series of questions" in prompt:
            return json.dumps(FEEDBACK)
        if prompt.startswith("Answer the question"):  # the self-check: it knows its own golds
            asked = messages[-1]["content"].split("Question: ", 1)[-1].split("\n")[0].strip()
            with self._lock:
                return self.golds.get(asked, "I do not know.")
        return "{}"

    def questions(self, prompt: str) -> list[dict[str, str]]:
        """One question: a path sentence naming a path entity (any name on `--no-graph`), that name
        asked for. The choice is a function of the prompt alone, so reruns ask the same."""
        fragments = prompt.split("Fragments:\n", 1)[1].split("\n\nWrite ", 1)[0]
        found = re.search(r"Centre the questions on these entities: (.*)\.\n", prompt)
        entities = [e.strip() for e in (found.group(1).split(", ") if found else []) if e.strip()]
        hard = "HARD - analysis" in prompt
        pick = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        candidates = _candidates(fragments, entities)
        if not candidates:
            return []
        sentence, start, end = candidates[pick % len(candidates)]
        before, after = sentence[:start].split(), sentence[end:].split()
        if hard:
            before, after = before[-HARD_WORDS:], after[:HARD_WORDS]
        question = f'Which name is missing from this statement: "{" ".join(before)} ... {" ".join(after)}"?'
        answer = sentence[start:end]
        with self._lock:
            self.golds[question] = answer
        return [{"question": question, "answer": answer}]


def _candidates(fragments: str, entities: list[str]) -> list[tuple[str, int, int]]:
    """(sentence, start, end) of each path-entity mention; of each capitalised name when none is found."""
    sentences = [fragments[s:e] for s, e in split_sentences(fragments)]
    sentences = [s for s in sentences if 8 <= len(s.split()) <= 60]
    out = []
    for sentence in sentences:
        for entity in entities:
            for m in re.finditer(rf"(?<!\w){re.escape(entity)}(?!\w)", sentence, flags=re.IGNORECASE):
                out.append((sentence, m.start(), m.end()))
    if out:
        return out
    return [(s, m.start(), m.end()) for s in sentences for m in _NAME.finditer(s) if len(m.group()) > 3]
