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


# Words that say what kind of place or body a name is ("Indian Ocean", "University of Cambridge"): without
# them the name still names the same thing.
_KINDS = frozenset({
    "ocean", "sea", "river", "lake", "mount", "mountain", "mountains", "island", "islands", "desert", "bay", "gulf",
    "strait", "peninsula", "valley", "canal", "city", "state", "county", "province", "region", "university",
    "college", "school", "institute", "company", "corporation", "corp", "inc", "ltd", "republic", "kingdom",
    "empire", "airport", "station", "museum", "cathedral", "church", "palace", "castle", "bridge", "tower", "park",
    "club", "fc", "party", "of"})
_POLITIES = frozenset({"republic", "kingdom", "empire", "state", "commonwealth", "federation"})
"""Kinds whose "KIND of NAME" is that name's country ("Republic of Ireland"); any other kind of NAME (a gulf,
a church, a university) is another thing than NAME ("Mexico", "England", "California")."""
_AROUND = frozenset({"in", "at", "on", "from", "to", "it", "is", "was", "its", "that"})
_KIND_NAMES = {"mount": "mountain", "mt": "mountain", "isle": "island", "corporation": "company",
               "corp": "company", "inc": "company", "ltd": "company", "firm": "company", "fc": "club"}
"""Kind words a question may name in another form ("Which mountain ...?" names Mount Everest's kind)."""


def _kind(word: str) -> str:
    """One name for a kind word however written: "Mountains", "Mount" -> "mountain"; "Ltd" -> "company"."""
    singular = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return _KIND_NAMES.get(singular, singular)


def kind_dropped(case: Case) -> Rule:
    """A short reply that is the gold name without the word for its kind, where the question names that kind
    ("Esk" for "River Esk" asked "Which river ...?", "the Indian" for "Indian Ocean" asked "Which ocean ...?"),
    or a state's formal name without its polity ("Ireland" for "Republic of Ireland"), when the question does
    not name that distinctive part: the reply with the question's kind word is then the gold. Without the
    question naming the kind, the rest of a name is often another thing's name ("Panama" for "Panama Canal",
    "London" for "London Bridge", "British" for "British Museum", "Michigan" for "Michigan State University"),
    which other items' golds do not always list (#46)."""
    said = [w for w in fold(case.reply.raw).split() if w not in _AROUND]
    if not said or len(said) > 4:
        return None
    asked = set(fold(case.question).split())
    kinds_asked = {_kind(w) for w in asked}
    own = {fold(g) for g in case.golds}
    for gold in case.golds:
        words = fold(gold).split()
        core = [w for w in words if w not in _KINDS]
        if len(core) == len(words) or not core or numbers(gold) or set(core) & asked:
            continue
        formal = "of" in words and words[0] in _POLITIES
        if "of" in words and not formal:  # "Gulf of Mexico", "Church of England": another place
            continue
        if not formal and not {_kind(w) for w in words if w in _KINDS} <= kinds_asked:
            continue  # the question does not say what kind of thing the rest of the name names
        if said == core and not (" ".join(said) in case.rivals.folded and " ".join(said) not in own):
            return Verdict(True, "name_part", " ".join(said), case.score, "the gold's name without the word for its kind")
    return None
