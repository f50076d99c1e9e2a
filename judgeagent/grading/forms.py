"""Surface forms an answer may take without changing what it says: accents and other Unicode variants,
hyphens, and word forms (lemmas from the project's spaCy pipeline, plus agent-noun and -ing derivations)."""
from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

from ..threads import load_in_background

_DASHES = re.compile(r"[-‐‑‒–—―]")
_SPECIAL = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ł": "l", "ı": "i", "þ": "th"})
_SPECIAL.update(str.maketrans({"ẞ": "SS", "Æ": "Ae", "Œ": "Oe", "Ø": "O", "Đ": "D", "Ł": "L", "Þ": "Th"}))  # no NFKD


def plain(text: str) -> str:
    """The text with accents, ligatures and full-width forms folded ("Dáin" -> "Dain"), case kept."""
    text = unicodedata.normalize("NFKD", text.translate(_SPECIAL))
    return "".join(c for c in text if not unicodedata.combining(c))


def unhyphen(text: str) -> str:
    """Hyphens and dashes read as spaces ("Jean-Pierre" -> "Jean Pierre")."""
    return _DASHES.sub(" ", text)


# Words that carry no answer: a reply's extra function words do not make it another answer.
_FUNCTION_POS = frozenset({"DET", "ADP", "PUNCT", "CCONJ", "SCONJ", "AUX", "PRON", "PART", "SPACE", "SYM"})
_DERIVED = re.compile(r"(?:ers|er|ings|ing|e|s)$")


_loading = threading.Lock()


def _lemmatiser():  # type: ignore[no-untyped-def]
    with _loading:  # one load, whichever thread asks first (`preload`'s or a check's)
        return _load()


@lru_cache(maxsize=1)
def _load():  # type: ignore[no-untyped-def]
    # Imported here: spaCy is slow to load and only replies no cheaper rule decided reach this.
    from ..entities import load_spacy

    return load_spacy("en_core_web_sm", ("parser", "ner", "senter"))


def preload() -> None:
    """Start loading the pipeline on a background thread. The rules run on the event loop: loaded by the first
    reply that needs it, the load (seconds) stalled every call in flight (issue 31: the interviewer's ratio
    1.39 -> 2.03 on 40 items in a fresh process)."""
    if _load.cache_info().currsize == 0:
        load_in_background(_lemmatiser, name="grading-spacy")


@lru_cache(maxsize=4096)
def stems(text: str) -> tuple[str, ...]:
    """The content words of `text` as stems: spaCy's lemma, then (not for names) without an agent or -ing ending
    ("sharecroppers", "Sharecropping" -> "sharecrop"; "painter", "painting" -> "paint")."""
    out = []
    for token in _lemmatiser()(unhyphen(plain(text))):
        letter = len(token.text) == 1 and token.text.isalpha() and token.text.lower() not in "ai"
        if (token.pos_ in _FUNCTION_POS and not letter) or not any(c.isalnum() for c in token.text):
            continue  # a lone letter is content: "s-block" is not "p-block"
        lemma = token.lemma_.lower()
        if token.pos_ == "PROPN" or len(lemma) < 4:  # names keep their letters: "Ross" is not "Rose"
            out.append(lemma)
            continue
        stem = _DERIVED.sub("", lemma)
        stem = stem if len(stem) >= 3 else lemma
        if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
            stem = stem[:-1]  # "sharecropp" -> "sharecrop"
        out.append(stem)
    return tuple(out)
