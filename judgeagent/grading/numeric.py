"""Numbers as answers beyond equality: a value inside a gold range, an approximate value near the gold's,
and periods (centuries, decades) however they are written."""
from __future__ import annotations

import re
from typing import NamedTuple

from .text import numbers

# "about 370,000", "roughly 70%", "~300": the writer does not claim the exact value.
# "c." is circa only before a number ("c. 1850"): "12 century C.E." names an era, no rough value.
_APPROXIMATE = re.compile(r"\b(?:about|around|approximately|approx|roughly|nearly|almost|some|circa|close\s+to|"
                          r"estimated)\b\.?|\bca?\b\.?\s*(?=\d)|~|≈", re.IGNORECASE)
# Approximate values may differ by this fraction: 8,800 for "8,849", 70% for "about 71%", not 30,000 for 300,000.
TOLERANCE = 0.05
_RANGE = re.compile(r"(\bbetween\s+)?(\d[\d,]*(?:\.\d+)?)\s*(-|–|—|to|and)\s*(\d[\d,]*(?:\.\d+)?)", re.IGNORECASE)
# "three point five", "eighteen and a half": decimals in words, which `numbers` reads as separate numbers.
_WORD_FRACTION = re.compile(r"\bpoint\b|\band\s+an?\s+(?:half|quarter)\b", re.IGNORECASE)
# A scale word between the number and its unit is part of the number: "3.5 billion dollars" is in dollars.
# So is an exponent ("6.21 e6hL" is in hL).
_UNIT = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?(?:\s*e[+-]?\d+)?\s*(?:(?:hundred|thousand|million|billion|trillion)\s+)?"
                   r"(?:-\s*)?(°\s*[cf]\b|%|[a-z]+)", re.IGNORECASE)
# One name for each unit however written (singular, as `unit` leaves it): "hectolitres" and "hL" are one unit.
_UNIT_NAMES = {"percent": "%", "metre": "m", "meter": "m", "kilometre": "km", "kilometer": "km", "centimetre": "cm",
               "centimeter": "cm", "millimetre": "mm", "millimeter": "mm", "litre": "l", "liter": "l",
               "hectolitre": "hl", "hectoliter": "hl", "millilitre": "ml", "milliliter": "ml", "kilogram": "kg",
               "gram": "g", "feet": "ft", "foot": "ft", "mile": "mi", "pound": "lb", "min": "minute", "hr": "hour",
               "yr": "year", "sec": "second"}
# Words after a number that say what it counts but are no unit ("1,200 people", "eleven players").
_NOT_UNITS = frozenset({"and", "or", "to", "in", "of", "the", "a", "an", "so", "people", "inhabitants", "high",
                        "tall", "long", "thousand", "million", "billion", "hundred", "trillion", "plus", "times",
                        "per", "percent", "st", "nd", "rd", "th", "s", "by", "at", "on", "from", "with", "is", "was"})


_SCIENTIFIC = re.compile(r"\d\s*(?:[×x*]\s*10\s*(?:\^|\*\*)|e[+-]?\d)", re.IGNORECASE)
"""3 × 10^5, 3e5: notations `numbers` does not read."""


_SCIENTIFIC_VALUE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:[×x*]\s*10\s*(?:\^|\*\*)\s*([+-]?\d+)|e([+-]?\d+))", re.IGNORECASE)
# "a million", "half a million", "a quarter of a billion": a scale word with no digits before it.
_SPOKEN = re.compile(r"\b(?:(half|quarter)\s+(?:of\s+)?)?an?\s+(hundred|thousand|million|billion|trillion)\b",
                     re.IGNORECASE)
_SPOKEN_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def values(text: str) -> set[float] | None:
    """The values a text states for comparing magnitudes: `numbers`, plus spoken scales ("half a million") and
    scientific notation ("3 × 10^5", "3e5"; then only those); None when scientific notation is not read."""
    if _SCIENTIFIC.search(text):
        found = {float(m) * 10 ** int(a or b) for m, a, b in _SCIENTIFIC_VALUE.findall(text)}
        return found or None
    spoken = {(0.5 if part == "half" else 0.25 if part else 1.0) * _SPOKEN_SCALES[scale.lower()]
              for part, scale in ((p.lower(), s) for p, s in _SPOKEN.findall(text))}
    return numbers(text) | spoken


def is_approximate(text: str) -> bool:
    return bool(_APPROXIMATE.search(text))


def has_word_fraction(text: str) -> bool:
    """A decimal or fraction in words ("three point five"): `numbers` would read 3 and 5."""
    return bool(_WORD_FRACTION.search(text))


def _digits(value: float) -> int:
    """Significant digits as written: 8800 -> 2, 56564 -> 5, 6.21e6 -> 3."""
    return len(f"{abs(value):.10e}".split("e")[0].replace(".", "").rstrip("0")) or 1


def _rounded(said: float, gold: float) -> bool:
    """`said` is round (two significant digits at most: "8,800", "3 x 10^5"), or is `gold` rounded to its own
    digits ("about 8,850" for 8,849; "about 6.21 million" for 6.21e6)."""
    digits = _digits(said)
    return digits <= 2 or abs(float(f"{gold:.{digits - 1}e}") - said) <= 1e-12 * abs(said)  # a float's error


def gold_range(text: str) -> tuple[float, float] | None:
    """The range a gold states ("10-12 years", "58 to 68 days", "between 4.3 and 5.7"), low to high."""
    match = _RANGE.search(text)
    if match is None or _days_or_verses(text, match) or (match.group(3).lower() == "and" and not match.group(1)):
        return None  # "400 and 800m" lists two numbers; "between 400 and 800" is a range
    low, high = (float(g.replace(",", "")) for g in (match.group(2), match.group(4)))
    if all(1000 <= v <= 2100 and v == int(v) for v in (low, high)):
        return None  # "1914-1918" is a span of years: a year inside it is not the answer
    return (low, high) if low < high else None


def _days_or_verses(text: str, match: re.Match[str]) -> bool:
    """Days next to a month ("6-8 June 1944", "June 6-8": a reply's "June 1944" names the same time less
    finely), or numbers after a colon (verses, times: "Daniel 5:1-5"): no range of values."""
    before, after = text[: match.start()], text[match.end():]
    return bool(re.match(rf"\s*(?:of\s+)?{_MONTH}\b", after, re.IGNORECASE)
                or re.search(rf"\b{_MONTH}\.?\s*$", before, re.IGNORECASE) or before.endswith(":"))


def unit(text: str) -> str | None:
    """The unit after the first number ("8 minutes" -> "minute", "71%" -> "%", "3.5 billion dollars" -> "dollar"), one
    name however written ("hectolitres", "hL" -> "hl"), or None."""
    for match in _UNIT.finditer(text):
        word = match.group(1).lower().replace(" ", "")
        if word in _NOT_UNITS:
            continue
        singular = word[:-1] if word.endswith("s") and len(word) > 2 else word
        return _UNIT_NAMES.get(singular, singular)
    return None


def _scalar(values: set[float]) -> set[float]:
    return {v for v in values if not (1000 <= v <= 2100 and v == int(v))}  # years are never approximate


class NumberMatch(NamedTuple):
    correct: bool
    reason: str


def compare_numbers(reply: str, gold: str, stated: set[float], wanted: set[float]) -> NumberMatch | None:
    """Right when a reply number (of `stated`, the reply's) lies in the gold's range, or (either side
    approximate) within `TOLERANCE` of one of `wanted` (the gold's); wrong when every reply number misses by
    far more; None when units differ or nothing is stated."""
    if not stated or not wanted:
        return None
    reply_unit, gold_unit = unit(reply), unit(gold)
    if reply_unit and gold_unit and reply_unit != gold_unit:
        return None  # "500 seconds" for "8 minutes": a conversion the rules do not make
    span = gold_range(gold)
    if span is not None:
        low, high = span
        inside = [v for v in stated if low <= v <= high]
        if inside:
            return NumberMatch(True, f"states {inside[0]:g}, inside the gold's range {low:g}-{high:g}")
        if all(v < low * 0.75 or v > high * 1.25 for v in stated):
            return NumberMatch(False, f"states {min(stated):g}, outside the gold's range {low:g}-{high:g}")
        return None
    if not (is_approximate(reply) or is_approximate(gold)) or ranked(reply) or ranked(gold) or compound(wanted):
        return None  # a rank ("the 19th") or a measure in two units ("29 stone 12 pounds") has no rough value
    # An exact gold leaves room only for a round reply: "approximately 56,564" claims its digits (EVOUNA's
    # TriviaQA tuning half: labelled wrong against 58,125).
    near = [v for v in _scalar(magnitudes(reply)) for w in _scalar(magnitudes(gold))  # whole values
            if abs(v - w) <= TOLERANCE * abs(w) and (is_approximate(gold) or _rounded(v, w))]
    if near:
        return NumberMatch(True, f"states about {near[0]:g}, within {TOLERANCE:.0%} of the gold's number")
    if _scalar(wanted) and all(abs(v - w) > 0.25 * abs(w) for v in stated for w in _scalar(wanted)):
        return NumberMatch(False, "states numbers far from the gold's approximate number")
    return None


_SCALES = (1e2, 1e3, 1e6, 1e9, 1e12)


def compound(wanted: set[float]) -> bool:
    """Two values of a gold that are not one number read twice ("1.5 million" is 1.5 and 1,500,000): a measure in
    two units ("29 stone 12 pounds", "5 feet 11 inches"), which no single number is near. Years are left out."""
    found = sorted(_scalar(wanted))
    return any(not any(abs(b - a * s) <= 1e-9 * b for s in _SCALES) for i, a in enumerate(found) for b in found[i + 1:])


def ranked(text: str) -> bool:
    """Every number the text states is an ordinal ("the 19th", "twelfth century"): a place in an order, no
    magnitude to be near (the 19th century is not about the 20th)."""
    return bool(numbers(text)) and not numbers(_ORDINAL_WORD.sub(" ", _ORDINAL.sub(" ", text)))


# --- periods ------------------------------------------------------------------------------------------

class Period(NamedTuple):
    kind: str
    """`century` or `decade`."""
    value: int
    """The century's number (15 for the 1400s) or the decade's first year (1960)."""


_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\s+century\b|\b([a-z]+)\s+century\b", re.IGNORECASE)
_HUNDREDS = re.compile(r"\b(\d{1,2})00s\b")
_DECADE = re.compile(r"\b(1\d|20)([1-9]0)s\b|(?<![\w])[‘’']?([1-9]0)s\b|\b(twenties|thirties|forties|fifties|sixties|"
                     r"seventies|eighties|nineties)\b", re.IGNORECASE)
_ORDINAL_WORDS = {w: k + 1 for k, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
    "twentieth"))}
_ORDINAL_WORD = re.compile(r"\b(?:" + "|".join(_ORDINAL_WORDS) + r")\b", re.IGNORECASE)
_DECADE_WORDS = {w: 20 + 10 * i for i, w in enumerate(("twenties", "thirties", "forties", "fifties", "sixties",
                                                         "seventies", "eighties", "nineties"))}


def period(text: str) -> Period | None:
    """The one century or decade a short text names ("the 1400s", "fifteenth century", "the '60s"), else None."""
    found: set[Period] = set()
    for digits, word in _CENTURY.findall(text):
        value = int(digits) if digits else _ORDINAL_WORDS.get(word.lower())
        if value:
            found.add(Period("century", int(value)))
    for hundreds in _HUNDREDS.findall(text):
        found.add(Period("century", int(hundreds) + 1))
    for century, tens, short, word in _DECADE.findall(text):
        if century:
            found.add(Period("decade", int(century) * 100 + int(tens)))
        else:  # "the '60s", "the sixties": the twentieth century's unless said otherwise
            found.add(Period("decade", 1900 + (int(short) if short else _DECADE_WORDS[word.lower()])))
    return found.pop() if len(found) == 1 else None


# --- days in dates ---------------------------------------------------------------------------------

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DAY = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?={_MONTH}\b)|\b({_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?"
                  rf"\b", re.IGNORECASE)
"""The day in a date ("9 November 1989", "July 20"): a detail of a year or month answer, not another number."""


def stated_numbers(reply: str, question: str = "") -> set[float]:
    """The numbers a reply states beyond the question's, days of the month left out."""
    return numbers(without_days(reply)) - numbers(question)


def without_days(text: str) -> str:
    return _DAY.sub(lambda m: f" {m.group(1) or ''} ", text)


_BOUND = re.compile(r"\b(?:more|less|fewer|greater|higher|lower)\s+than\b|\b(?:at\s+(?:least|most)|over|under|up\s+to|"
                    r"below|above|beyond)\s+\d", re.IGNORECASE)
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.IGNORECASE)


def is_bound(text: str) -> bool:
    """A bound: "more than 80", "at least 2", "under 5"."""
    return bool(_BOUND.search(text))


def bounded(text: str, gold: str) -> bool:
    """A bound ("more than 2", "at least 2"), or an ordinal ("2nd") for a gold that is none: not the gold's
    number stated."""
    return bool(_BOUND.search(text)) or (bool(_ORDINAL.search(text)) and not ordinal(gold))


def ordinal(text: str) -> bool:
    """An ordinal in digits or words: "12th", "Twelfth Century"."""
    return bool(_ORDINAL.search(text) or _ORDINAL_WORD.search(text))


# --- magnitudes ---------------------------------------------------------------------------------------

_SCALED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\s-]+"
                     r"(?:one|two|three|four|five|six|seven|eight|nine)\b|[a-z]+(?:-[a-z]+)?)"
                     r"((?:[\s-]+(?:hundred|thousand|million|billion|trillion)\b)*)", re.IGNORECASE)
_PART = re.compile(r"\b(half|quarter)\s+(?:of\s+)?$", re.IGNORECASE)


def magnitudes(text: str) -> set[float]:
    """The whole value of each number a text states, every scale word after it applied ("seven hundred
    thousand" -> 700,000; "1.5 million" -> 1,500,000; "half a million" -> 500,000; scientific notation as
    `values` reads it). `numbers` also reads a scaled number's leading part (700 and 7 of "seven hundred
    thousand", 1.5 of "1.5 million") so that a gold written either way matches it; a magnitude compared for
    nearness is the whole value only (#46: "around 700" was accepted for "seven hundred thousand")."""
    if _SCIENTIFIC.search(text):
        return values(text) or set()
    found = set()
    for match in _SCALED.finditer(re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)):
        number, scales = match.group(1), re.findall(r"[a-z]+", match.group(2).lower())
        read = {1.0} if number.lower() in ("a", "an") and scales else numbers(number)
        if not read:
            continue
        value = max(read)
        for scale in scales:
            value *= _SPOKEN_SCALES[scale]
        part = _PART.search(match.string[: match.start()]) if number.lower() in ("a", "an") else None
        found.add(value * (0.5 if part and part.group(1).lower() == "half" else 0.25 if part else 1.0))
    return found
