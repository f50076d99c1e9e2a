"""Free-text rules for yes/no/maybe golds: the word the reply commits to (first, after a qualifier, or in a
conclusion), uncertainty as "maybe", and the question's claim restated or negated."""
from __future__ import annotations

import re

from .case import Case, Rule
from .forms import stems
from .phrases import CONTRAST
from .text import NEGATIONS, YES_NO, fold
from .verdict import Verdict

# A yes/no word deep inside a long reply may belong to the reasoning ("there is no evidence ..."),
# so beyond the first word only short replies are read this way.
_YES_NO_SHORT = 12
_YES_NO_HEDGE = re.compile(r"\b(yes|no|maybe) (?:or|and or) (?!\1\b)(yes|no|maybe)\b")


def yes_no_word(case: Case) -> Rule:
    reply, refs = case.reply, case.refs
    ref = refs[0]
    if ref not in YES_NO:
        return None
    words = reply.text.split()
    if _IDIOM.match(reply.text):  # "No doubt, it is visible.": a "no" that answers nothing
        return None
    said = next((w for w in words if w in YES_NO), None)
    if said is None or (words[0] != said and len(words) > _YES_NO_SHORT):
        said = _yes_no_stated(reply.raw)
        if said is None:
            return None
    hedge = _YES_NO_HEDGE.search(reply.text)
    if hedge:
        return Verdict(False, "yes_no", hedge.group(0), None, f"hedges between answers ({hedge.group(0)!r})")
    return Verdict(said in refs, "yes_no", said, None, f"answered {said!r}, gold {ref!r}")


_IDIOM = re.compile(r"^\W*no\s+(?:doubt|question|wonder|matter|longer|one|way\s+of|less)\b", re.IGNORECASE)
"""An opening "no" that belongs to a phrase, not an answer."""

# In a long reply the yes/no word that answers is the one after an opening qualifier ("In general, yes: ...",
# "Generally not; ...") or in a conclusion ("..., so yes.", "the answer is no:"); elsewhere it may be reasoning.
_QUALIFIED = re.compile(r"^\W*(?:(?:in\s+general|in\s+short|in\s+most\s+cases|generally|typically|usually|mostly|"
                        r"largely|overall|broadly|basically|essentially|normally)\W+)(yes|no|not)\b\s*[,.;:!\u2014-]",
                        re.IGNORECASE)
_CONCLUDED = re.compile(r"(?:\b(?:so|thus|therefore|hence|overall)\W+|\b(?:the\s+)?answer\s+is\W+)(yes|no|maybe)\b"
                        r"\s*(?:[.!:;,\u2014-]|$)", re.IGNORECASE)


def _yes_no_stated(raw: str) -> str | None:
    """The yes/no/maybe a long reply states after an opening qualifier or in its (last) conclusion."""
    found = _QUALIFIED.match(raw)
    if found:
        return "yes" if found.group(1).lower() == "yes" else "no"
    concluded = {m.lower() for m in _CONCLUDED.findall(raw)}
    return concluded.pop() if len(concluded) == 1 else None


# "Possibly.", "It is unclear whether ...", "It is uncertain": the reply commits to "maybe".
_UNCERTAIN = re.compile(r"^\W*(?:possibly|perhaps|uncertain|unclear|it\s+is\s+(?:uncertain|unclear|not\s+clear)|"
                        r"it'?s\s+(?:uncertain|unclear|not\s+clear)|(?:the\s+)?evidence\s+is\s+(?:mixed|inconclusive|"
                        r"unclear|limited))\b", re.IGNORECASE)


def uncertain(case: Case) -> Rule:
    """For a yes/no/maybe gold, a reply that opens uncertain and says neither yes nor no commits to "maybe"."""
    if case.refs[0] not in YES_NO or not _UNCERTAIN.match(case.reply.raw):
        return None
    if {"yes", "no"} & set(case.reply.first.split()):
        return None
    return Verdict(case.refs[0] == "maybe", "yes_no", "maybe", None, f"answered 'maybe', gold {case.refs[0]!r}")


_ASKS_YES_NO = re.compile(r"^\W*(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\b", re.IGNORECASE)
_RESTATED = 0.8
"""Share of the question's content words (as stems) a reply must repeat to count as restating it."""
_HEDGES = frozenset({"while", "whereas", "although", "though", "but", "however", "may", "might", "could", "some",
                     "partly", "partially", "only", "unclear", "uncertain", "depends", "depending", "hard"})


def restated(case: Case) -> Rule:
    """A yes/no question answered by restating its claim: as asked is "yes", with one added negation "no"
    ("Both magazines are British publications." for "Are both magazines British publications?")."""
    if case.refs[0] not in ("yes", "no") or not _ASKS_YES_NO.match(case.question):
        return None
    words = set(fold(case.reply.raw).split())
    asked_words = set(fold(case.question).split())
    if words & (_HEDGES | {"yes", "no", "maybe", "or", "either"}) or len(words) > 40:
        return None
    negated = (words - asked_words) & NEGATIONS
    if asked_words & NEGATIONS or len(negated) > 1:
        return None
    asked = set(stems(case.question))
    if not asked or len(asked & set(stems(case.reply.raw))) < _RESTATED * len(asked):
        return None
    said = "no" if negated else "yes"
    return Verdict(said == case.refs[0], "yes_no", said, None, f"restates the question's claim ({said}), gold {case.refs[0]!r}")


_VERB_NOT = re.compile(r"\b(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\s+not\b|n[’']t\b",
                       re.IGNORECASE)
_CLAUSE = re.compile(r"(?<=[.!?;:])\s+|\n")
_DENIED = 0.5
"""Share of the first clause's content words (as stems) that must come from the question."""


def denied(case: Case) -> Rule:
    """A yes/no question answered "no" by an opening clause that denies the question's own predicate with a
    negated verb ("It is not always necessary;" for "... Is it always necessary?", "The emphasis did not change;"):
    most of that clause's content words are the question's, and it carries no hedge or contrast."""
    if case.refs[0] not in ("yes", "no"):
        return None
    asked_sentence = _CLAUSE.split(case.question.strip())[-1]
    if not _ASKS_YES_NO.match(asked_sentence):
        return None
    clause = _CLAUSE.split(case.reply.raw.strip())[0]
    words = set(fold(clause).split())
    asked_words = set(fold(case.question).split())
    if len(_VERB_NOT.findall(clause)) != 1 or len((words - asked_words) & NEGATIONS) != 1 or asked_words & NEGATIONS:
        return None
    if words & (_HEDGES | CONTRAST | {"yes", "no", "maybe"}) or len(words) > 25:
        return None
    said, asked = set(stems(clause)), set(stems(case.question))
    shared = said & asked
    if len(shared) < 2 or len(shared) < _DENIED * len(said):
        return None
    return Verdict(case.refs[0] == "no", "yes_no", "no", None, f"denies the question's claim (no), gold {case.refs[0]!r}")
