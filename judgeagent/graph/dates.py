"""Calendar days named in text and held in documents' metadata: a question that names the day a report was published
("reports published on September 28, 2023") names its documents as surely as one that names their publisher."""
from __future__ import annotations

import calendar
import datetime
import re

_MONTHS = {name.casefold(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.casefold(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_NAMED = re.compile(
    rf"\b(?:{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})"  # September 28, 2023; Sept. 28th 2023
    rf"|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})"  # 28 September 2023; 28th of Sept 2023
    r"|(\d{4})-(\d{2})-(\d{2}))\b",  # 2023-09-28
    re.IGNORECASE)
_ISO_START = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:$|[T ])")


def days_named(text: str) -> list[str]:
    """The full dates (day, month and year) a text names, as ISO days, in order; a month or a year alone names no
    day, and an impossible date (February 30) is no date."""
    days = []
    for m in _NAMED.finditer(text):
        g = m.groups()
        if g[0]:
            parts = (g[2], _MONTHS[g[0].casefold()], g[1])
        elif g[3]:
            parts = (g[5], _MONTHS[g[4].casefold()], g[3])
        else:
            parts = (g[6], g[7], g[8])
        day = _day(*parts)
        if day and day not in days:
            days.append(day)
    return days


def metadata_day(value: object) -> str | None:
    """The ISO day of a metadata value that is an ISO 8601 date or timestamp ("2023-11-27",
    "2023-11-27 08:45:59.000000000Z", "2023-11-27T08:45:59+00:00"), else None."""
    if not isinstance(value, str):
        return None
    m = _ISO_START.match(value.strip())
    return _day(*m.groups()) if m else None


def _day(year: str | int, month: str | int, day: str | int) -> str | None:
    try:
        return datetime.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None
