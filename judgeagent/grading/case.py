"""What every free-text rule reads: the reply (normalised once) and the golds with the settings."""
from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property

from .rivals import Rivals, rivals
from .text import ANSWER_PREFIX, ZH_ANSWER_PREFIX, has_cjk, normalise_answer
from .verdict import Verdict


@dataclass(frozen=True)
class Reply:
    """A free-text reply, normalised once for all rules."""

    raw: str
    text: str
    """Normalised, with a leading "The answer is" removed."""
    first: str
    """The normalised first sentence (models are asked to give the answer first)."""

    @classmethod
    def of(cls, raw: str) -> Reply:
        body = ANSWER_PREFIX.sub("", raw.strip())
        if has_cjk(body):
            body = ZH_ANSWER_PREFIX.sub("", body)
            first = re.split(r"\n|(?<=[。！？!?])", body, maxsplit=1)[0]
        else:
            first = re.split(r"(?<=[.!?])\s+(?=[A-Z])|\n", body, maxsplit=1)[0]
        return cls(raw, normalise_answer(body), normalise_answer(first))


@dataclass(frozen=True)
class Case:
    """What every rule reads: the reply, the golds (raw and normalised) and the settings."""

    reply: Reply
    golds: list[str]
    refs: list[str]
    score: float
    """Best token F1 of the reply with a gold."""
    threshold: float
    question: str
    others: Collection[str]
    options: bool = False
    """`others` are this item's other options, each excluding the gold whatever its form (not other items' golds)."""

    @cached_property
    def rivals(self) -> Rivals:
        """`others` indexed by word."""
        return rivals(self.others)


Rule = Verdict | None
