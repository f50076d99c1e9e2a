"""When a gold found inside a longer reply is not what the reply answers: contrast words, enumerations,
and another name asserted before the gold. (The rules that use these live with the others in `text`.)"""
from __future__ import annotations

import re

from .forms import _lemmatiser, plain, unhyphen

# Words that bring a second candidate or deny one: with any of them the reply is more than the gold, and
# which one it commits to is for a judge to read ("Raphael rather than Michelangelo", "X, but Y").
# (With the negations of `text`.)
CONTRAST = frozenset({
    "or", "either", "whether", "instead", "rather", "than", "unlike", "versus", "vs", "against", "but", "however",
    "although", "though", "whereas", "runner", "runners", "runnerup", "runnersup", "maybe", "perhaps", "possibly",
    "probably", "might", "could", "unsure", "uncertain", "depending", "depends", "assume", "assumed", "think",
    "thought", "believe", "believed", "claim", "claimed", "mistakenly", "incorrect", "wrong", "false", "myth",
    "contrary"})


def _word(text: str) -> str:
    return re.sub(r"[^\w]", "", plain(text).lower())


def listed(raw: str, gold: list[str]) -> bool:
    """The gold (its folded words) as one item of an enumeration: "X and Y", "Y, X, Z", "X / Y"."""
    words = r"\s+".join(re.escape(w) for w in gold)
    text = unhyphen(plain(raw)).lower()
    text = " ".join(re.sub(r"\b(?:a|an|the)\b", " ", re.sub(r"[^\w\s,/&]", " ", text)).split())
    return bool(re.search(rf"(?:\band|\bor|,|/|&)\s+{words}\b|\b{words}\s*(?:\band\b|\bor\b|/|&|,\s*\w+(?:\s+\w+)?"
                          rf"\s*(?:,|\band\b|\bor\b))", text))


# Words after which a name is what a sentence asserts: "... was built by <name>", "... is <name>".
_SLOTS = frozenset({"is", "was", "are", "were", "by", "named", "called"})


def other_name_first(raw: str, known: set[str], gold: list[str]) -> bool:
    """Before the gold, the reply asserts another name (spaCy: proper nouns none of whose words is `known`,
    the gold's or the question's), opening the reply or after "is"/"by": that name is its answer
    ("Apple, which Google pays ...", "built by the NASA Space Shuttle program ... at NASA's Jet Propulsion
    Laboratory")."""
    doc = _lemmatiser()(unhyphen(plain(raw))[:400])
    names: list[list[str]] = []
    previous, in_name = "", False
    for k, token in enumerate(doc):
        word = _word(token.text)
        if word == gold[0] and [_word(t.text) for t in doc[k:k + len(gold)]] == gold:
            if in_name:  # a name running into the gold is the gold's longer form: "Pallas Athena", "Sir Alexander"
                names.pop()
            break  # only what comes before the gold
        if token.pos_ == "PROPN" and (k == 0 or previous in _SLOTS or in_name):
            if not in_name:
                names.append([])
            names[-1].append(word)
            in_name = True
        else:
            in_name = False
        if token.pos_ not in ("DET", "PUNCT"):
            previous = word
    return any(n and not any(w in known for w in n) for n in names)
