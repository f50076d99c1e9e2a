"""Calibration probes that a careless judge accepts: another entity of the kind the question asks for, a number
near the gold's, part of the answer, and the right answer to another question about the same subject. A judge
that rejects these has a false-positive rate on such probes that bounds (with its interval) the rate on real wrong
replies no harder than them; other items' golds, which any judge rejects, bound nothing."""
from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..metrics import wilson
from .name_rules import TITLES, asks_for_person
from .text import normalise_answer, numbers, token_f1

if TYPE_CHECKING:
    from ..benchmark import Item

HARD_KINDS = frozenset({"same_kind", "changed_number", "partial", "same_subject", "near_miss", "other_option"})
"""Negative probe kinds whose answer is plausible for the question (the rest, `other_gold`, rarely is)."""

_LIST = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s&\s|\s+and\s+)\s*", re.IGNORECASE)


def asked_kind(question: str) -> str:
    """What the question asks for, from its opening words: "which river", "who", "how many", "what year"."""
    words = normalise_answer(question).split()
    if not words:
        return ""
    if words[0] in ("which", "what", "how", "in", "on") and len(words) > 1:
        return " ".join(words[:2]) if words[0] != "in" else " ".join(words[:3])
    return words[0]


def same_kind(item: Item, pool: Sequence[Item], rng: random.Random) -> str | None:
    """The gold of another item whose question asks for the same kind of thing ("Which river ...?" for a river),
    sharing no more than a third of its words with any of this item's golds."""
    kind = asked_kind(item.question)
    if not kind:
        return None
    asked = normalise_answer(item.question)
    candidates = [i.gold for i in pool if i.qid != item.qid and asked_kind(i.question) == kind
                  and normalise_answer(i.question) != asked and _distinct(i.gold, item.golds)
                  and bool(numbers(i.gold)) == bool(numbers(item.gold))]
    return rng.choice(sorted(set(candidates))) if candidates else None


_NOT_NAMES = frozenset({"i", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "in", "on", "of",
                        "is", "was", "did", "does", "do"})


def subjects(question: str) -> set[str]:
    """The names a question is about: its runs of capitalised words after the first ("Where was Gene Vincent born?"
    -> {"gene vincent"}), normalised."""
    words = re.findall(r"[^\W_][\w'.-]*", question)[1:]
    runs, run = [], []
    for word in [*words, ""]:
        if word[:1].isupper() and normalise_answer(word) not in _NOT_NAMES:
            run.append(word)
        elif run:
            runs.append(normalise_answer(" ".join(run)))
            run = []
    return {r for r in runs if r}


SUBJECT_QUESTIONS = 5
"""A name in more questions of the set than this is a setting ("London", "English"), not their shared subject."""


def same_subject(item: Item, pool: Sequence[Item], rng: random.Random) -> str | None:
    """The gold of another item whose question names the same subject ("Redmond", from "Where is Microsoft based?",
    for "Who founded Microsoft?"): right there, wrong here, and on topic, which a judge that checks only the topic
    accepts. A gold this question already states, or one sharing a third of its words with this item's golds,
    is not drawn."""
    names = subjects(item.question)
    if not names:
        return None
    named = [(i, subjects(i.question) & names) for i in pool if i.qid != item.qid]
    common = Counter(n for _, shared in named for n in shared)
    asked = normalise_answer(item.question)
    candidates = [i.gold for i, shared in named if any(common[n] < SUBJECT_QUESTIONS for n in shared)
                  and normalise_answer(i.question) != asked and _distinct(i.gold, item.golds)
                  and not set(normalise_answer(i.gold).split()) <= set(asked.split())]
    return rng.choice(sorted(set(candidates))) if candidates else None


def partial(item: Item, rng: random.Random) -> str | None:
    """Part of the answer, which is not the answer: one item fewer of a listed gold ("France and Germany" for
    "France, Germany and Belgium"), or a person's first name alone ("Neil" for "Neil Armstrong")."""
    parts = [p for p in _LIST.split(item.gold.strip()) if p]
    if len(parts) >= 2:
        del parts[rng.randrange(len(parts))]  # one draw (drawn per part, it kept all of them a quarter of the time)
        answer = " and ".join(parts)
    elif asks_for_person(item.question):
        words = item.gold.split()
        if not (2 <= len(words) <= 4) or normalise_answer(words[0]) in TITLES or not words[0][:1].isupper():
            return None
        answer = words[0]
    else:
        return None
    said = normalise_answer(answer)
    if not said or any(said == normalise_answer(g) for g in item.golds) or said in normalise_answer(item.question):
        return None
    return answer


def _distinct(answer: str, golds: Sequence[str]) -> bool:
    return all(token_f1(answer, g) < 0.34 for g in golds)


class FprBound(NamedTuple):
    accepted: int
    """Hard negative probes the judge accepted (or gave no usable decision on)."""
    probes: int
    rate: float | None
    interval: list[float]
    """95% Wilson interval: its upper end bounds the judge's false-positive rate on replies like the probes."""


def hard_fpr(by_kind: dict[str, dict[str, int]]) -> FprBound:
    """The judge's false-positive rate on the hard negative probes of a calibration (`Calibration.by_kind`)."""
    n = sum(row["n"] for kind, row in by_kind.items() if kind in HARD_KINDS)
    accepted = n - sum(row["right"] for kind, row in by_kind.items() if kind in HARD_KINDS)
    return FprBound(accepted, n, accepted / n if n else None, wilson(accepted, n))
