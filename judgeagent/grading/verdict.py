"""`Verdict`: one right/wrong decision with how it was reached, so every figure can be traced back."""
from __future__ import annotations

from dataclasses import dataclass

METHODS = {
    "letter": "the option letter the reply commits to",
    "option_text": "the reply is an option's text",
    "no_letter": "a choice reply naming no option, letter or text (wrong; the checker then reads it as "
                 "free text against the gold option)",
    "several_options": "a choice reply naming more than one option (wrong)",
    "empty": "no answer (wrong)",
    "exact": "the gold (or an alias) after normalisation, or contained in a short reply",
    "f1": "token F1 with the gold at or above the threshold",
    "folded": "the gold (or an alias) once accents and hyphens are folded, or up to one letter in long words",
    "phrase": "the gold as a whole phrase in a longer reply that denies nothing and names no other candidate",
    "corrected": "a belief set aside with \"but\", then the gold asserted as the final clause (right)",
    "word_form": "the gold's words in other forms (spaCy lemmas, agent and -ing derivations)",
    "choice": "a question offering two candidates, answered in its own words: the gold's (right) or the other (wrong)",
    "acronym": "the gold's initials written in capitals, or the gold spelled out for a gold acronym",
    "name_part": "for a question asking for a person, part of the gold's name that keeps the surname (no other gold "
                 "shares it); or a place's or body's name without the word for its kind (\"the Indian\" for \"Indian Ocean\")",
    "number_range": "a number inside the gold's range or near an approximate gold (right), or far outside (wrong)",
    "period": "the century or decade the gold names, however written (right), or another one (wrong)",
    "yes_no": "the yes/no/maybe word the reply commits to",
    "refusal": "the reply declines to answer (wrong, unless the gold says the information is missing)",
    "number_mismatch": "the reply states numbers and none is the gold's (wrong)",
    "other_answer": "the reply's only answer is another option's text or another item's gold (wrong)",
    "judge": "the judge model, calibrated or trusted",
    "learned": "no rule decided and no judge is used: the learned equivalence step (a logistic regression over "
               "token overlap, numbers and MiniLM cosine), at the threshold calibrated on its held-out split for "
               "a false-positive rate <= 5%, never accepting a reply that hedges or negates; by default the "
               "shipped evouna-tq weights (EVOUNA TriviaQA's tuning half, Apache-2.0, "
               "github.com/wangcunxiang/QA-Eval: FPR 0.047, recall 0.912 on 1,010 held-out pairs); off with "
               "`--equivalence-weights none` or when its calibration failed",
    "judge_failed": "the judge gave no usable decision (wrong)",
    "undecided": "no rule decided and no usable judge: settled by token F1 (wrong below the threshold)",
}
"""Every `Verdict.method`, with what it means (the report's legend)."""


@dataclass(frozen=True)
class Verdict:
    correct: bool
    method: str
    """How it was decided: a key of `METHODS`."""
    extracted: str | None = None
    """The letter or the normalised answer that was compared."""
    score: float | None = None
    """Token F1 against the gold answer, for free-text answers."""
    reason: str = ""
    """One short line."""


def empty() -> Verdict:
    return Verdict(False, "empty", None, None, "empty answer")


def one_line(text: str, width: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
