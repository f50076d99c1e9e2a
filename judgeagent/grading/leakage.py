"""The leakage guard: whether a model's text (feedback, a teacher's guidance, an interviewer's hint) states a
gold answer, and the text with it withheld. Shared by every protocol that shows one model's words to another."""
from __future__ import annotations

import re
from collections.abc import Sequence

from .answers import normalise_answer


def leaked_strings(text: str, golds: Sequence[tuple[str, dict[str, str] | None, str | None]]) -> list[str]:
    """Gold answers, gold option texts or "the answer is X" statements that appear in `text`.

    `golds` holds (gold answer, options, gold letter) per base question. Short golds ("Yes", "42") are
    too common to search for alone; for them only an explicit "answer is ..." counts.
    """
    found: list[str] = []
    norm = f" {normalise_answer(text)} "
    for answer, options, letter in golds:
        candidates = [answer] + ([options[letter]] if options and letter in options else [])
        for gold in candidates:
            g = normalise_answer(gold)
            if len(g) >= 4 and any(c.isalpha() for c in g) and f" {g} " in norm:
                found.append(gold)
            elif g and re.search(rf"\b(answer|correct option|correct choice)\s*(?:(?:is|was)\s*:?|:)\s*\W*"
                                 rf"{re.escape(g)}\b", text, re.IGNORECASE):  # "is 42", "is: 42", ": 42"
                found.append(gold)
        if letter and re.search(rf"\b(answer|option|choice)\s+(is\s+|was\s+|:\s*)?\(?{letter}\)?(?![\w'])", text):
            found.append(f"option {letter}")
    return list(dict.fromkeys(found))


def redact(text: str, strings: Sequence[str]) -> str:
    for s in sorted(strings, key=len, reverse=True):
        if s.startswith("option "):
            letter = re.escape(s.split()[-1])
            text = re.sub(rf"\b(answer|option|choice)(\s+(is\s+|was\s+|:\s*)?)\(?{letter}\)?(?![\w'])",
                          r"\1\2[withheld]", text)
        else:
            text = re.sub(re.escape(s), "[withheld]", text, flags=re.IGNORECASE)
    return text
