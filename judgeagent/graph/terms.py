"""Rare terms of a question found in the graph's entity names by their letters: seeds for the questions whose
mentions give none (spaCy's small model drops rare technical nouns: "Is hidradenitis suppurativa ...")."""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .specificity import name_rarity

RARE_TERM = 2 / 3
"""A question word is a term when its rarity in general English (specificity.name_rarity) is at least this:
Zipf 4 or less, about 10 uses per million words ("vaccines", "stent", not "institution", "patients" or
"study"). At 0.5 (Zipf 4.5) "institution" was a term and found "institute for supply management"."""
STEM = 6
"""Two words are one term when they share their first max(STEM, shorter length - 1) letters, or the whole of
a shorter one under STEM: "stent" and "stents", "cholecystectomy" and "cholecystectomies", not "antibiotic"
and "antibody"."""
_WORD = re.compile(r"[^\W\d_]{4,}")


def rare_terms(text: str) -> list[str]:
    """The text's words of four letters or more that are rare in general English, rarest first, each once."""
    words = dict.fromkeys(w.casefold() for w in _WORD.findall(text))
    rarity = {w: name_rarity(w) for w in words}
    return sorted((w for w in words if rarity[w] >= RARE_TERM), key=lambda w: -rarity[w])


class TermIndex:
    """The graph's entity names by their words' first four letters: which entities hold a term."""

    def __init__(self, names: Sequence[str]) -> None:
        by_stem: dict[str, dict[str, list[int]]] = {}
        for e, name in enumerate(names):
            for word in _WORD.findall(name):
                by_stem.setdefault(word[:4].casefold(), {}).setdefault(word.casefold(), []).append(e)
        self._by_stem = by_stem

    def holding(self, term: str) -> np.ndarray:
        """The entities whose name holds a word that is `term` or shares its stem, sorted."""
        words = self._by_stem.get(term[:4], {})
        found = [ids for word, ids in words.items() if _same_stem(word, term)]
        return np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)


def _same_stem(a: str, b: str) -> bool:
    shorter = min(len(a), len(b))
    n = max(min(STEM, shorter), shorter - 1)
    return a[:n] == b[:n]
