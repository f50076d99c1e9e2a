"""Decide whether a model's answer is correct (option letter, text match, F1 or a judge), recording how."""
from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ..benchmark import Item

if TYPE_CHECKING:
    from ..models.base import ChatModel

METHODS = ("letter", "option_text", "exact", "f1", "judge", "empty", "judge_failed", "no_letter")


@dataclass(frozen=True)
class Verdict:
    correct: bool
    method: str
    """How it was decided: one of `METHODS`."""
    extracted: str | None = None
    """The letter or the normalised answer that was compared."""
    score: float | None = None
    """Token F1 against the gold answer, for free-text answers."""
    reason: str = ""
    """One short line."""


# --- option letters ----------------------------------------------------------------------------------

# Words that may follow an option letter ("B because ...", "C is correct"); any other lowercase word
# after a lone capital means it was the article "A" or pronoun "I", not an option.
_CONNECTIVES = frozenset(
    "because since as is was would will should could must seems appears and or but which given due that "
    "here then so though although while whereas if also only alone too".split())
_NEGATED_AFTER = re.compile(r"\s*(?:is|are|was|seems)?\s*(?:not\b|n't\b|wrong\b|incorrect\b|false\b)", re.I)
_NEGATED_BEFORE = re.compile(r"\b(?:not|never|rule out|exclude|eliminate)\s+$", re.I)
# The letter as models write it: B, (B), [B], **B**, B), B., "B" (with decorations around it).
_TOKEN = r"[\s\*\"'`]*[\(\[]?\s*([A-Za-z])\s*[\)\]]?[\*\"'`]*"
_JSON_KEYS = ("answer", "final_answer", "answer_letter", "letter", "choice", "option", "correct_option")

# Tiers, strongest first: the first tier that names letters decides; two different letters in the
# deciding tier are an ambiguous answer (None) rather than a guess.
_TIERS: tuple[tuple[re.Pattern[str], ...], ...] = (
    (re.compile(r"final\s+answer\s*(?:is|would\s+be|:|=|-)?\s*(?:option|choice|letter)?\s*:?" + _TOKEN,
                re.I),),
    (
        re.compile(r"\b(?:answer|option|choice)\s*(?:is|would\s+be|should\s+be|will\s+be|=|:|-)\s*:?\s*"
                   r"(?:option|choice|letter)?\s*:?" + _TOKEN, re.I),
        re.compile(r"\b(?:I(?:\s+would|\s+will|'d|'ll)?\s+(?:choose|pick|select|go\s+with|say)"
                   r"|I(?:'m|\s+am)\s+going\s+with|my\s+(?:answer|choice)\s+is)"
                   r"\s*:?\s*(?:option|choice|letter)?\s*:?" + _TOKEN, re.I),
        re.compile(r"(?:\b(?:option|choice|letter)\s+)?" + _TOKEN.replace("([A-Za-z])", r"\b([A-Za-z])\b")
                   + r"\s+is\s+(?:the\s+)?(?:correct|right|best|most\s+likely)\b", re.I),
        # a conclusion that ends its sentence: "It's B.", "..., so C."
        re.compile(r"\b(?:it's|it\s+is|so|thus|therefore|hence)\s*,?" + _TOKEN + r"(?=[.!]?[ \t]*(?:\n|$))",
                   re.I | re.M),
    ),
    (
        re.compile(r"\b(?:option|choice)\s*" + _TOKEN, re.I),
        re.compile(r"^[\s>#\-]*[\*\(\[]*\s*([A-Za-z])\s*[\*\)\]]*\s*(?=[).:,\-]|$)", re.M),
        re.compile(r"\(([A-Z])\)|\*\*([A-Z])\*\*"),  # uppercase only: "(a)", "(i)" enumerate in prose
    ),
)
_BARE = re.compile(r"^[\s\*\"'`]*[\(\[]?\s*([A-Za-z])\s*[\)\]]?[.:]?[\s\*\"'`]*$")
_ANSWER_PREFIX = re.compile(
    r"^\s*(?:the\s+)?(?:final\s+|correct\s+)?answer\b\s*(?:is|would\s+be)?\s*[:\-]?\s*", re.I)


def extract_letter(text: str, options: Mapping[str, str]) -> str | None:
    """The option letter a free-form reply commits to, or None when there is none or it is ambiguous."""
    return _extract(text, options)[0]


def _extract(text: str, options: Mapping[str, str]) -> tuple[str | None, str]:
    """(letter, "letter" | "option_text"), or (None, "") when the reply names no single option."""
    letters = {k.upper(): k for k in options}
    if not text or not text.strip():
        return None, ""
    from_json = _json_answer(text)
    if from_json is not None:
        return _extract(from_json, options)
    bare = _BARE.match(text)
    if bare and bare.group(1).upper() in letters:
        return letters[bare.group(1).upper()], "letter"
    by_text = _option_by_text(_ANSWER_PREFIX.sub("", text), options, whole=True)
    if by_text:
        return by_text, "option_text"
    for number, tier in enumerate(_TIERS):
        weak = number == len(_TIERS) - 1
        found = {letters[c] for c in _tier_letters(text, tier, weak) if c in letters}
        if len(found) == 1:
            return found.pop(), "letter"
        if found:
            return None, ""
    by_prefix = _option_by_text(_ANSWER_PREFIX.sub("", text), options, whole=False)
    return (by_prefix, "option_text") if by_prefix else (None, "")


def _tier_letters(text: str, patterns: tuple[re.Pattern[str], ...], weak: bool) -> list[str]:
    found = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            group = next(i for i in range(1, pattern.groups + 1) if match.group(i))
            letter = match.group(group)
            if _standalone(text, match.start(group), match.end(group)) and not (
                    weak and _negated(text, match.start(group), match.end())):
                found.append(letter.upper())
    return found


def _standalone(text: str, start: int, end: int) -> bool:
    """False for a letter inside a word ("Paris") or used as a word ("A cat", "the answer is a tumour")."""
    if text[end:end + 1].isalnum() or (start > 0 and text[start - 1].isalnum()):
        return False
    if re.match(r"\s*[).:\]*]", text[end:]):
        return True  # set off as a label: "b)", "B.", "**B**"
    word = re.match(r"\s+([A-Za-z][\w'-]*)", text[end:])
    if word is None or word.group(1).lower() in _CONNECTIVES:
        return True
    if text[start].islower():
        return False
    return not word.group(1)[0].islower()


def _negated(text: str, start: int, end: int) -> bool:
    """A passing mention that rules the option out ("option A is wrong", "not (B)")."""
    return bool(_NEGATED_AFTER.match(text[end:]) or _NEGATED_BEFORE.search(text[:start]))


def _json_answer(text: str) -> str | None:
    """The answer field of a JSON object in the reply ({"answer": "B"}), if there is one."""
    match = re.search(r"\{.*\}", text, re.S)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    lowered = {str(k).lower(): v for k, v in data.items()}
    for key in _JSON_KEYS:
        if isinstance(lowered.get(key), (str, int)):
            return str(lowered[key])
    return None


def _option_by_text(text: str, options: Mapping[str, str], *, whole: bool) -> str | None:
    """The option whose text is the whole reply (`whole`) or its opening words; the longest wins.

    An opening that is followed by another option's text ("Berlin or Paris") is a hedge, not a choice.
    """
    reply = normalise_answer(text)
    if not reply:
        return None
    texts = {letter: normalise_answer(option) for letter, option in options.items()}
    matches = sorted(((len(norm), letter) for letter, norm in texts.items()
                      if norm and (reply == norm or not whole and reply.startswith(f"{norm} "))),
                     reverse=True)
    if not matches or (len(matches) > 1 and matches[0][0] == matches[1][0]):
        return None  # no option, or two options with the same text
    letter = matches[0][1]
    rest = f" {reply[len(texts[letter]):]} "
    if any(norm and f" {norm} " in rest for other, norm in texts.items() if other != letter):
        return None
    return letter


# --- free text ---------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation + "‘’“”")
_NEGATIONS = frozenset({"not", "no", "never", "neither", "nor", "none", "isnt", "wasnt", "arent", "doesnt",
                        "didnt", "cannot", "cant"})
_YES_NO = ("yes", "no", "maybe")
# A yes/no word deep inside a long reply may belong to the reasoning ("there is no evidence ..."),
# so beyond the first word only short replies are read this way.
_YES_NO_SHORT = 12


def normalise_answer(text: str) -> str:
    """SQuAD normalisation: lowercase, no punctuation, no articles (a, an, the), single spaces."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between two answers (after `normalise_answer`)."""
    pred, ref = normalise_answer(prediction).split(), normalise_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def check_free_text(answer_text: str, gold: str, f1_threshold: float = 0.8) -> Verdict | None:
    """Decide a free-text answer without a model when that is safe; None leaves it to the judge."""
    if not answer_text or not answer_text.strip():
        return _empty()
    reply, ref = normalise_answer(_ANSWER_PREFIX.sub("", answer_text)), normalise_answer(gold)
    if ref in _YES_NO:
        return _yes_no(reply, ref)
    score = token_f1(reply, ref)
    if reply == ref:
        return Verdict(True, "exact", reply, score, "matches the gold answer")
    # "not X" contains X and scores a high F1: negated replies go to the judge.
    if _NEGATIONS & (set(reply.split()) - set(ref.split())):
        return None
    if _contains_phrase(reply, ref):
        return Verdict(True, "exact", reply, score, "contains the gold answer")
    if score >= f1_threshold:
        return Verdict(True, "f1", reply, score, f"token F1 {score:.2f} >= {f1_threshold:g}")
    return None


def _yes_no(reply: str, ref: str) -> Verdict | None:
    words = reply.split()
    said = next((w for w in words if w in _YES_NO), None)
    if said is None or (words[0] != said and len(words) > _YES_NO_SHORT):
        return None
    return Verdict(said == ref, "exact", said, None, f"answered {said!r}, gold {ref!r}")


def _contains_phrase(reply: str, ref: str) -> bool:
    """The gold as a whole phrase inside a short reply (at most twice the gold's length plus 3 words)."""
    r, g = reply.split(), ref.split()
    if not g or len(r) > 2 * len(g) + 3:
        return False
    return f" {ref} " in f" {reply} "


def check_choice(answer_text: str, item: Item) -> Verdict:
    """Compare the option a reply commits to with the item's gold letter."""
    return _check_choice(answer_text, item.options or {}, item.answer_letter, item.answer)


def _check_choice(answer_text: str, options: Mapping[str, str], answer_letter: str | None,
                  gold: str) -> Verdict:
    if not answer_text or not answer_text.strip():
        return _empty()
    letter, how = _extract(answer_text, options)
    if letter is None:
        return Verdict(False, "no_letter", None, None, "no single option letter found in the answer")
    if answer_letter is not None:
        correct = letter.upper() == answer_letter.upper()
        return Verdict(correct, how, letter, None, f"chose {letter}, gold {answer_letter}")
    # A gold given only as text that matches no option exactly: compare the chosen option's text.
    correct = normalise_answer(options[letter]) == normalise_answer(gold)
    relation = "matches" if correct else "differs from"
    return Verdict(correct, how, letter, None, f"chose {letter} ({relation} gold text)")


def _empty() -> Verdict:
    return Verdict(False, "empty", None, None, "empty answer")


# --- the judge ---------------------------------------------------------------------------------------


class JudgeDecision(BaseModel):
    correct: bool
    reason: str


_JUDGE_SYSTEM = (
    "You grade answers to questions against a reference answer. Decide whether the candidate answer "
    "says the same thing as the reference for this question. Rewordings, synonyms, abbreviations and "
    "extra details that are correct still count as correct. A candidate that names a different entity, "
    "number or date, contradicts the reference, hedges between several answers, or does not answer is "
    "incorrect. Give a one-sentence reason.")


def judge_messages(question: str, gold: str, answer: str) -> list[dict[str, str]]:
    user = (f"Question: {question}\n\nReference answer: {gold}\n\nCandidate answer: {answer}\n\n"
            "Is the candidate correct?")
    return [{"role": "system", "content": _JUDGE_SYSTEM}, {"role": "user", "content": user}]


async def judge_answer(model: ChatModel, question: str, gold: str, answer: str) -> Verdict:
    """Ask the judge model; a reply it cannot parse is recorded as `judge_failed`, never raised."""
    result = await model.complete(judge_messages(question, gold, answer), schema=JudgeDecision)
    decision = result.parsed if result.ok else None
    if not isinstance(decision, JudgeDecision):
        return Verdict(False, "judge_failed", None, None, _one_line(result.error or "judge gave no decision"))
    return Verdict(decision.correct, "judge", None, token_f1(answer, gold), _one_line(decision.reason))


def _one_line(text: str, width: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


async def check_answer(question: str, gold: str, answer_text: str, *,
                       options: Mapping[str, str] | None = None, answer_letter: str | None = None,
                       judge: ChatModel | None = None, f1_threshold: float = 0.8) -> Verdict:
    """Choice items by letter; free text by exact/F1 match, then the judge (when given) for the rest."""
    if options:
        return _check_choice(answer_text, options, answer_letter, gold)
    verdict = check_free_text(answer_text, gold, f1_threshold)
    if verdict is not None:
        return verdict
    if judge is None:
        score = token_f1(answer_text, gold)
        return Verdict(False, "f1", normalise_answer(answer_text), score, "below threshold, no judge")
    return await judge_answer(judge, question, gold, answer_text)
