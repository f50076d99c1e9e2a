"""Free-text rules for names: initials for the gold (or the gold for its acronym), and part of a person's name
that keeps the surname."""
from __future__ import annotations

import re

from .case import Case, Rule
from .forms import plain, unhyphen
from .text import fold, numbers
from .verdict import Verdict

_CONNECTORS = frozenset({"of", "and", "for", "the", "de", "von", "van", "da", "del", "la", "le"})


def acronym(case: Case) -> Rule:
    """The gold's initials for the gold ("JPL" for "Jet Propulsion Laboratory", "SBF" for "Sam Bankman-Fried"),
    or the gold spelled out for a gold acronym: the acronym written in capitals."""
    raw = re.sub(r"[^\w\s]", "", plain(case.reply.raw)).strip()
    for gold in case.golds:
        short, long = (raw, gold) if raw.isupper() else (re.sub(r"[^\w\s]", "", gold).strip(), case.reply.raw)
        if not (short.isupper() and 2 <= len(short) <= 8 and " " not in short):
            continue
        words = [w for w in fold(long).split()]
        full = "".join(w[0] for w in words)
        content = "".join(w[0] for w in words if w not in _CONNECTORS)
        if len(words) >= 2 and short.lower() in (full, content):
            return Verdict(True, "acronym", fold(case.reply.raw), case.score, "the gold's initials, or the gold spelled out")
    return None


TITLES = frozenset({"dr", "sir", "mr", "mrs", "ms", "st", "saint", "lord", "lady", "dame", "prof", "professor",
                     "governor", "gov", "president", "senator", "sen", "judge", "justice", "general", "gen", "captain",
                     "king", "queen", "prince", "princess", "emperor", "pope", "father", "rev", "reverend"})
_REGNAL = frozenset({"king", "queen", "prince", "princess", "emperor", "empress", "pope", "saint", "st"})
"""Titles followed by a given name, not a surname: "King George" is not "David Lloyd George"."""
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
# Nouns that make "which/what <noun>" ask for a person as "who" does.
_PERSONS = ("person|man|woman|people|composer|writer|author|novelist|poet|playwright|painter|artist|sculptor|architect|"
            "scientist|physicist|chemist|biologist|mathematician|astronomer|inventor|engineer|explorer|philosopher|"
            "economist|historian|jurist|lawyer|politician|statesman|president|king|queen|emperor|ruler|monarch|leader|"
            "founder|singer|songwriter|musician|actor|actress|director|player|athlete|coach|footballer")
_WHO = re.compile(r"\b(?:who|whom|whose)\b|\b(?:which|what)\s+(?:of\s+the\s+)?(?:[\w-]+\s+){0,2}?(?:" + _PERSONS
                  + r")s?(?![\w-])", re.IGNORECASE)
_SUBJECTS = frozenset({"it", "was", "is", "he", "she", "that", "this", "by"})
"""Words that only point at the name ("It was Governor Winter.")."""


def asks_for_person(question: str) -> bool:
    """"Who ...?", "Which composer ...?": the question asks for a person."""
    return _WHO.search(question) is not None


def name_part(case: Case) -> Rule:
    """For a question asking for a person ("who", "which composer"), part of the gold person's name that keeps the
    surname ("Telemann", "Richard Bach", "B. R. Ambedkar" for "Bhimrao Ramji Ambedkar", "It was Governor Winter."),
    with titles and the question's own words around it, when no other item's gold shares that surname."""
    if not _WHO.search(case.question):
        return None
    asked = set(fold(case.question).split())
    words = fold(case.reply.raw).split()
    own = {fold(g) for g in case.golds}  # the item's aliases share its surname: no other person's
    for gold in case.golds:
        if "," in gold or numbers(gold):
            continue
        name = [w for w in fold(gold).split() if w not in _SUFFIXES]
        # a title is dropped unless it is part of the name ("King" for "Stephen King")
        said = [w for w in words if w in name or (w not in TITLES | _SUBJECTS and w not in asked)]
        if len(name) < 2 or not said or name[-1] not in said or name[-1] in asked or (_REGNAL - set(name)) & set(words):
            continue
        if not written_as_name(case.reply.raw, name[-1]):
            continue  # "a cat always has an alibi" does not name "Macavity, the Mystery Cat"
        if all(w in name or (len(w) == 1 and any(n.startswith(w) for n in name[:-1])) for w in said) \
                and not any(o not in own for o in case.rivals.folded_with(name[-1])):
            return Verdict(True, "name_part", " ".join(said), case.score, "part of the gold's name, with its surname")
    return None


def written_as_name(raw: str, word: str) -> bool:
    """`word` capitalised in the reply, as a name is (a reply written all in lower case gives no sign)."""
    text = unhyphen(plain(raw))
    if text == text.lower():
        return True
    return any(m.group(0)[0].isupper() for m in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE))
