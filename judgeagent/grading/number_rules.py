"""Free-text rules for numbers: the same number, a number inside a range or near an approximate gold, a
period for a period, and a short reply whose only number is the gold's. A reply that states another number is
left to the judge or the learned step: the rule that rejected it (`number_mismatch`) was 89% precise on answers
it was not written from (#46, EVOUNA's heldout-b quarter) and was removed."""
from __future__ import annotations

from collections.abc import Sequence

from .case import Case, Rule
from .numeric import (
    Period,
    bounded,
    compare_numbers,
    gold_range,
    has_word_fraction,
    is_approximate,
    period,
    ranked,
    stated_numbers,
    unit,
    values,
)
from .phrases import CONTRAST
from .text import NEGATIONS, fold, numbers
from .verdict import Verdict


def same_number(case: Case) -> Rule:
    """A reply that is just a number, equal to a gold that is just a number ("3" for "three")."""
    if len(case.reply.text.split()) > 4 or any(bounded(case.reply.raw, g) for g in case.golds):
        return None
    stated = numbers(case.reply.raw)
    for gold, ref in zip(case.golds, case.refs):
        if (len(ref.split()) <= 3 and stated and stated == numbers(gold) and _only_number(ref, case.reply.text)
                and _same_unit(ref, case.reply.text) and not not_comparable(case.reply.raw, [gold])):
            return Verdict(True, "exact", case.reply.text, case.score, "states the gold's number")
    return None


SCALE_WORDS = frozenset({"hundred", "thousand", "million", "billion", "trillion"})
"""Part of the number they follow ("2 million people"): the unit, if any, is the word after them."""


def _numeric(word: str) -> bool:
    return bool(numbers(word)) or word in SCALE_WORDS


def _after_numbers(text: str) -> set[str]:
    """The words right after a number (its scale word included): "3.5 billion dollars" -> {"dollar"}."""
    words = text.split()
    return {words[k + 1].rstrip("s") for k, w in enumerate(words[:-1]) if _numeric(w) and not _numeric(words[k + 1])}


def _same_unit(ref: str, reply: str) -> bool:
    """The word after the reply's number, if any, is the gold's unit: not "six terms" for "six years"."""
    wanted, said = _after_numbers(ref), _after_numbers(reply)
    return not wanted or not said or bool(wanted & said)


APPROX_WORDS = frozenset({"about", "around", "approximately", "roughly", "nearly", "some", "circa"})


def _only_number(ref: str, reply: str) -> bool:
    """Every gold word the reply lacks is a number, its unit or "about": not "Unlimited six-year terms" for
    "six years", nor "late 1968" for "September 1968"."""
    words, said = ref.split(), set(reply.split())
    for k, word in enumerate(words):
        is_number = _numeric(word)
        after_number = k > 0 and _numeric(words[k - 1])
        if word not in said and not is_number and not after_number and word not in APPROX_WORDS:
            return False
    return True


def not_comparable(reply: str, golds: Sequence[str]) -> bool:
    """A gold range or approximate number (`numbers_compared` decides those), or units that differ."""
    if any(gold_range(g) or is_approximate(g) for g in golds) or is_approximate(reply):
        return True
    said = unit(reply)
    return said is not None and any(unit(g) not in (None, said) for g in golds)


def numbers_compared(case: Case) -> Rule:
    """A number inside the gold's range, or near an approximate gold ("about 375,000" for "about 370,000")."""
    if len(case.reply.text.split()) > 25:
        return None
    stated = values(case.reply.raw) or set()
    golds = [g for g in case.golds if not has_word_fraction(g)]
    if not golds:
        return None
    for gold in golds:
        found = compare_numbers(case.reply.raw, gold, stated, values(gold) or set())
        if found is not None and found.correct:
            return Verdict(True, "number_range", case.reply.text, case.score, found.reason)
    found = compare_numbers(case.reply.raw, golds[0], stated, values(golds[0]) or set())
    if found is not None and len(case.golds) == 1:
        return Verdict(False, "number_range", case.reply.text, case.score, found.reason)
    return None


def periods(case: Case) -> Rule:
    """A century or decade for a gold century or decade, however each is written ("the 1400s", "15th century")."""
    if len(case.reply.text.split()) > 8:
        return None
    said = period(case.reply.raw) or _bare_century(case)
    if said is None:
        return None
    wanted = [p for p in map(period, case.golds) if p is not None and p.kind == said.kind]
    if not wanted:
        return None  # a decade for a century, or a period for a year: for a judge
    return Verdict(said in wanted, "period", case.reply.text, case.score,
                   f"names the {said.kind} {said.value}, the gold's is {wanted[0].value}")


def _bare_century(case: Case) -> Period | None:
    """A reply that is one ordinal alone ("13th", "the twelfth") for a gold that is a century: that century."""
    words = [w for w in case.reply.text.split() if w != "the"]
    found = numbers(case.reply.raw)
    if len(words) != 1 or len(found) != 1 or not ranked(case.reply.raw):
        return None
    if not any(p is not None and p.kind == "century" for p in map(period, case.golds)):
        return None
    value = int(found.pop())
    return Period("century", value) if 1 <= value <= 21 else None


def stated_number(case: Case) -> Rule:
    """A short reply whose only number (besides the question's and a date's day) is the gold's, for a gold that is a
    number with at most its unit ("Mars has two small moons." for "2"; "It fell on 9 November 1989." for "1989")."""
    words = fold(case.reply.raw).split()
    if len(words) > 20 or set(words) & (NEGATIONS | CONTRAST | APPROX_WORDS) or any(
            bounded(case.reply.raw, g) for g in case.golds):
        return None
    stated = stated_numbers(case.reply.raw, case.question)
    for gold in case.golds:
        ref = fold(gold).split()
        wanted = numbers(gold)
        if (not wanted or stated != wanted or not all(numbers(w) or w in words for w in ref)
                or not _same_unit(" ".join(ref), " ".join(words))):
            continue  # a gold unit ("years") must be said too
        if not_comparable(case.reply.raw, [gold]):
            continue
        return Verdict(True, "exact", " ".join(words), case.score, "states the gold's number and no other")
    return None
