"""Free-text answers decided without a model: matches that are safe to accept, mismatches that are
certainly wrong, and None for everything a judge must read. The rules run in one order, most certain first."""
from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from .case import Case, Reply, Rule
from .name_rules import acronym, name_part
from .number_rules import numbers_compared, periods, same_number, stated_number
from .phrase_rules import (
    contained,
    corrected,
    folded,
    other_answer,
    phrase,
    spelled,
    two_candidates,
    word_form,
)
from .text import NEGATIONS, ZH_NEGATIONS, best_f1, is_refusal, normalise_answer, token_f1
from .verdict import Verdict, empty
from .yes_no import denied, restated, uncertain, yes_no_word


def check_free_text(answer_text: str, gold: str | Sequence[str], f1_threshold: float = 0.8, *,
                    question: str = "", others: Collection[str] = (), options: bool = False) -> Verdict | None:
    """Decide a free-text answer without a model when that is safe; None leaves it to the judge.

    `gold` is one answer or a list of acceptable ones. `others` are the normalised golds of other
    items, or with `options` this item's other options: a reply that is only one of them is wrong. Rules run from the most
    certain to the least; each decision names its rule (`Verdict.method`).
    """
    if not answer_text or not answer_text.strip():
        return empty()
    golds = [g for g in ([gold] if isinstance(gold, str) else list(gold)) if normalise_answer(g)]
    if not golds:
        return None
    reply = Reply.of(answer_text)
    case = Case(reply, golds, [normalise_answer(g) for g in golds], best_f1(reply.text, golds), f1_threshold,
                question, others, options)
    if reply.text in case.refs:
        return Verdict(True, "exact", reply.text, case.score, "matches the gold answer")
    for rule in (uncertain, _refusal, yes_no_word, folded, contained, same_number, periods, numbers_compared,
                 other_answer, _f1, restated, denied, two_candidates, acronym, name_part, phrase, word_form, corrected, stated_number,
                 spelled):
        verdict = rule(case)
        if verdict is not None:
            return verdict
    return None


def _refusal(case: Case) -> Rule:
    reply, refs, score = case.reply, case.refs, case.score
    gold_refuses = any(is_refusal(r) or r in ("unknown", "none") for r in refs)
    if not is_refusal(reply.raw):
        return None
    if gold_refuses:
        return Verdict(True, "refusal", reply.text, score, "declines to answer, as the gold does")
    return Verdict(False, "refusal", reply.text, score, "declines to answer")


# A gold that lists several things ("Malcolm & Donald Campbell", "War, Famine, Pestilence and Death").
_LIST = re.compile(r"&|\band\b|,[^,]*,", re.IGNORECASE)
_LIST_WORDS = 8
"""A gold of at most this many words with an "and" or commas lists answers; a longer one is a sentence (a section
of a reference: "It takes place in the chloroplasts, whose chlorophyll absorbs mostly red and blue light."), which
token F1 grades as a whole."""


def _f1(case: Case) -> Rule:
    """Token F1 at the threshold, without a negation; for a gold that lists things, every one of them (token F1
    takes "Malcolm Campbell" for "Malcolm & Donald Campbell", and "War, Famine, Famine, and Death")."""
    said = set(case.reply.text.split())
    extra = said - set().union(*(r.split() for r in case.refs))
    best = max(zip(case.golds, case.refs), key=lambda g: token_f1(case.reply.text, g[1]))
    if len(best[1].split()) <= _LIST_WORDS and _LIST.search(best[0]) and set(best[1].split()) - {"and"} - said:
        return None
    if _head(best[0]) and _head(best[0]) not in said:
        return None  # "Toll House" for "Toll House cookie": the words before the gold's head name another thing
    if case.score >= case.threshold and not (NEGATIONS | ZH_NEGATIONS) & extra:
        return Verdict(True, "f1", case.reply.text, case.score, f"token F1 {case.score:.2f} >= {case.threshold:g}")
    return None


def _head(gold: str) -> str:
    """The last word of a gold's name, without what it adds in parentheses or after a comma ("deer" of "Père
    David's Deer", "park" of "Gulfstream Park, Florida"); a listing gold ("Chile and Argentina") has none."""
    if _LIST.search(gold):
        return ""
    words = normalise_answer(re.sub(r"\([^)]*\)", " ", gold).split(",")[0]).split()
    return words[-1] if words else ""
