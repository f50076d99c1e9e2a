"""Checks on generated questions (spec notes; the paper has none). The leakage guard is `grading.leakage`."""
from __future__ import annotations

import re
from collections.abc import Sequence

from ...grading.answers import normalise_answer
from .prompts import GeneratedQuestion

_STOP = {"a", "an", "the", "of", "in", "on", "to", "and", "or", "is", "was", "for", "by", "with", "what",
         "which", "who", "when", "where", "why", "how", "did", "does", "do", "that", "this", "it", "as", "at"}


def _tokens(text: str) -> set[str]:
    return {t for t in normalise_answer(text).split() if t not in _STOP}


def jaccard(a: str, b: str) -> float:
    x, y = _tokens(a), _tokens(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def rejection(candidate: GeneratedQuestion, path_text: str, base_questions: Sequence[str],
              accepted: Sequence[str], max_answer_words: int = 8, duplicate_jaccard: float = 0.6) -> str | None:
    """Why a generated question is unusable, or None when it passes."""
    question, answer = candidate.question.strip(), candidate.answer.strip()
    if len(question.split()) < 3 or not answer:
        return "empty question or answer"
    if len(answer.split()) > max_answer_words:
        return f"answer longer than {max_answer_words} words"
    if answer_in_question(question, answer):
        return "answer appears in the question"
    if copied_sentence(question, answer, path_text):
        return "question copies a path sentence with the answer in it"
    if not supported(answer, path_text):
        return "answer not supported by the path text"
    for other in [*base_questions, *accepted]:
        if jaccard(question, other) >= duplicate_jaccard:
            return "near-duplicate of a question already asked"
    return None


def answer_in_question(question: str, answer: str) -> bool:
    """The gold, or all of its content words, already stated in the question ("the planet orbiting Saturn")."""
    norm_q, norm_a = f" {normalise_answer(question)} ", normalise_answer(answer)
    if norm_a and f" {norm_a} " in norm_q:
        return True
    words = _tokens(answer)
    return bool(words) and words <= set(norm_q.split())


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def copied_sentence(question: str, answer: str, path_text: str, overlap: float = 0.8) -> bool:
    """The question is a path sentence, barely reworded, that still holds part of the answer.

    ("Voyager rode a Titan rocket from Cape Canaveral: which rocket?" for "Titan IIIE".) Such a question
    is answered by recognising the sentence, not by knowing the fact; a whole answer left in is
    `answer_in_question`'s to catch.
    """
    words, answer_words = _tokens(question), _tokens(answer)
    if len(words) < 4 or not answer_words or len(answer_words & words) * 2 < len(answer_words):
        return False
    norm_a = normalise_answer(answer)
    return any(f" {norm_a} " in f" {normalise_answer(s)} " and len(words & _tokens(s)) / len(words) >= overlap
               for s in _SENTENCE.split(path_text))


def supported(answer: str, text: str) -> bool:
    """The answer appears in the fragments, or most of its content words do (a derived phrase)."""
    norm_answer, norm_text = normalise_answer(answer), normalise_answer(text)
    if norm_answer and f" {norm_answer} " in f" {norm_text} ":
        return True
    words = _tokens(answer)
    if not words:
        return False
    present = words & set(norm_text.split())
    return len(present) / len(words) >= 0.6
