"""Other items' golds indexed by word, so that rules find the ones a reply can contain without reading them all
(TriviaQA-style benchmarks list tens of thousands of aliases)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache

from .text import fold


@dataclass(frozen=True)
class Rivals:
    """Other golds, normalised (as given) and folded, each indexed by its words."""

    normalised: frozenset[str]
    folded: frozenset[str]
    _by_word: dict[str, tuple[str, ...]]
    _by_folded_word: dict[str, tuple[str, ...]]

    def within(self, words: Iterable[str]) -> list[str]:
        """The normalised others all of whose words are among `words`."""
        return _within(self._by_word, set(words))

    def folded_within(self, words: Iterable[str]) -> list[str]:
        """The folded others all of whose words are among `words`."""
        return _within(self._by_folded_word, set(words))

    def folded_with(self, word: str) -> tuple[str, ...]:
        """The folded others that have `word` among their words."""
        return self._by_folded_word.get(word, ())


def _within(index: dict[str, tuple[str, ...]], words: set[str]) -> list[str]:
    seen = {o for w in words for o in index.get(w, ())}
    return [o for o in seen if set(o.split()) <= words]


def _index(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        for word in set(text.split()):
            index[word].append(text)
    return {w: tuple(ts) for w, ts in index.items()}


@lru_cache(maxsize=16)
def _rivals(others: frozenset[str]) -> Rivals:
    normalised = frozenset(o for o in others if o)
    folded = frozenset(f for f in map(fold, normalised) if f)
    return Rivals(normalised, folded, _index(normalised), _index(folded))


def rivals(others: Collection[str]) -> Rivals:
    """The index of `others` (built once per set of others: a checker passes the same set for every reply)."""
    return _rivals(others if isinstance(others, frozenset) else frozenset(others))
