"""Free-text rules for numbers: the same number, a number inside a range or near an approximate gold, a
period for a period, a different number (wrong), and a short reply whose only number is the gold's."""
from __future__ import annotations

import re
from collections.abc import Sequence

from .case import Case, Rule
from .name_rules import asks_for_person
from .numeric import (
    bounded,
    compare_numbers,
    gold_range,
    has_word_fraction,
    is_approximate,
    is_bound,
    period,
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


def _after_numbers(text: str) -> set[str]:
    words = text.split()
    return {words[k + 1].rstrip("s") for k, w in enumerate(words[:-1]) if numbers(w) and not numbers(words[k + 1])}


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
        is_number = bool(numbers(word))
        after_number = k > 0 and bool(numbers(words[k - 1]))
        if word not in said and not is_number and not after_number and word not in APPROX_WORDS:
            return False
    return True


# A period ("19th century", "the 1800s", "the '90s") names a span, not the number it is written with.
_PERIOD = re.compile(r"\b(?:centur(?:y|ies)|millenni(?:um|a)|decades?)\b|\d0'?s\b|'\d0s\b", re.IGNORECASE)


_ORDINAL_WORDS = re.compile(r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b", re.IGNORECASE)
_LEADING_ZERO = re.compile(r"(?<![\d.,])0\d")
_ROUGHLY_ASKED = re.compile(r"\b(?:nearest|approximately|approximate|roughly|about|around|estimated)\b", re.IGNORECASE)
_SPAN = re.compile(r"\d\s*(?:-|–|—|to)\s*\d")
_UNREAD = re.compile(r"\d\s*/\s*\d|[¼½¾⅓⅔⅛]|\b(?:halfs?|halves|quarters?|thirds)\b|\b(?:a|one|two)\s+third\b|"
                     r"\d\s*(?:k|m|mn|bn|b)\b|\b\d{1,3}(?:\s\d{3})+\b", re.IGNORECASE)
"""Numbers `numbers` reads wrongly: fractions ("1/2" is read as 1 and 2, "half" not at all), scales abbreviated
("£2.5m" is 2.5) and thousands set apart by spaces ("1 000 000")."""
_ROMAN = re.compile(r"\b(?=[IVXLC]{2,}\b)C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})\b")
"""A Roman numeral of two letters or more ("II", "XXIV"), which `numbers` does not read."""


def number_answer(gold: str) -> bool:
    """A gold that is a number to compare: it states one outside ordinal words ("Second World War" names a
    war), none with a leading zero ("'07" is a year's last digits, "007" a code name) and no bound ("more
    than 80": a reply's 85 lies inside it)."""
    return (bool(numbers(_ORDINAL_WORDS.sub(" ", gold))) and not _LEADING_ZERO.search(gold) and not is_bound(gold)
            and not _SPAN.search(gold) and not has_word_fraction(gold))  # "1707 - 1778": any year inside may answer


_ASKS_NUMBER = re.compile(r"\b(?:when|how\s+(?:many|much|old|long|far|tall|high|big|often)|(?:what|which)\s+(?:year|"
                          r"age|date|number))\b", re.IGNORECASE)


def _asks_for_person_not_number(question: str) -> bool:
    """"Who was the oldest singer ...?" asks for a person; "When was the singer born who ...?" for a date."""
    return asks_for_person(question) and not _ASKS_NUMBER.search(question)


def number_mismatch(case: Case) -> Rule:
    """The reply states numbers beyond the question's and days of dates, and none is the gold's (wrong)."""
    reply, score = case.reply, case.score
    if _PERIOD.search(reply.raw) or any(_PERIOD.search(g) for g in case.golds):
        return None  # "1800s" is the 19th century: spans are compared by the judge
    # Every gold must be a number: TriviaQA lists "Bond 13" among the aliases of "Octopussy", and then a
    # reply's "1983" is no mismatch (measured on EVOUNA's TriviaQA tuning half: 27% precise without this).
    if not all(number_answer(g) for g in case.golds) or _ROUGHLY_ASKED.search(case.question):
        return None  # "To the nearest million, ...?", "Approximately what percentage ...?": 18.2 million may be right
    if _asks_for_person_not_number(case.question) or any(_UNREAD.search(t) or has_word_fraction(t) for t in (reply.raw, *case.golds)):
        return None  # "Who ...?": a year or an age beside the name is a detail; "£2.5m" may be "2,500,000"
    wanted = set().union(*(numbers(g) for g in case.golds))
    # "In 1900, ..." restates the question's number; a reply that is only a number ("2016.") answers with it
    stated = stated_numbers(reply.raw, case.question) or (numbers(reply.raw) if len(reply.text.split()) <= 3 else set())
    if not wanted or not stated or wanted & stated or not_comparable(reply.raw, case.golds):
        return None
    if _ROMAN.search(reply.raw) or {round(100 * v, 6) for v in stated} & wanted:
        return None  # "Nicholas II" for "Nicholas 2"; "0.9" for "90%"
    shown = ", ".join(f"{n:g}" for n in sorted(stated)[:4])
    return Verdict(False, "number_mismatch", reply.text, score,
                   f"states {shown}; the gold's number is {', '.join(f'{n:g}' for n in sorted(wanted))}")


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
    said = period(case.reply.raw)
    if said is None:
        return None
    wanted = [p for p in map(period, case.golds) if p is not None and p.kind == said.kind]
    if not wanted:
        return None  # a decade for a century, or a period for a year: for a judge
    return Verdict(said in wanted, "period", case.reply.text, case.score,
                   f"names the {said.kind} {said.value}, the gold's is {wanted[0].value}")


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
