"""Free-text answers decided without a model: matches that are safe to accept, mismatches that are
certainly wrong, and None for everything a judge must read."""
from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .verdict import Verdict, empty

ANSWER_PREFIX = re.compile(
    r"^\s*(?:the\s+)?(?:final\s+|correct\s+)?answer\b\s*(?:is|would\s+be)?\s*[:\-]?\s*", re.IGNORECASE)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation + "‘’“”")
_NEGATIONS = frozenset({"not", "no", "never", "neither", "nor", "none", "isnt", "wasnt", "arent", "doesnt",
                        "didnt", "cannot", "cant"})
_YES_NO = ("yes", "no", "maybe")
# A yes/no word deep inside a long reply may belong to the reasoning ("there is no evidence ..."),
# so beyond the first word only short replies are read this way.
_YES_NO_SHORT = 12
_YES_NO_HEDGE = re.compile(r"\b(yes|no|maybe) (?:or|and or) (?!\1\b)(yes|no|maybe)\b")


# Scripts written without spaces between words (CJK ideographs, kana, hangul): each character is one token,
# as the Chinese reading-comprehension benchmarks (CMRC, DuReader) score F1. The `zh-core-web-sm` name on
# the package index is an empty placeholder, and character tokens need no segmenter's dictionary.
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af])")
# What turns the CJK treatment on: those characters, CJK punctuation (U+3000-303F) and full-width forms.
_CJK_ANY = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef]")
_CJK_PUNCTUATION = str.maketrans("", "", "，。、；：？！「」『』（）【】《》〈〉…—·～“”‘’﹁﹂〔〕")
# "答案是 B" / "正确答案为：北京" / "最终答案: 3": the Chinese for "the (final/correct) answer is".
ZH_ANSWER_PREFIX = re.compile(r"^\s*(?:所以|因此)?\s*(?:最终|正确)?的?答案\s*(?:是|为|应该是|应为)?\s*[:：]?\s*")
_ZH_NEGATIONS = frozenset({"不", "没", "未", "非", "无"})


def has_cjk(text: str) -> bool:
    """True for text with CJK characters, CJK punctuation or full-width forms (the CJK rules apply)."""
    return _CJK_ANY.search(text) is not None


# The letter a Chinese reply commits to: "答案是C", "选B", "正确答案为：（D）", "A项正确", or a lone "C。".
# "不选A" / "A不正确" name a letter to rule it out, so a negation just before or after is no commitment; "A或B"
# hedges between two, and is none.
_ZH_LETTER = (
    re.compile(r"(?<![不未没非])(?:答案|选项|选择|应选|选)\s*(?:是|为|应该是|应为|应是)?\s*[:：]?\s*[（(\[【]?\s*"
               r"([A-Ja-j])(?![A-Za-z])(?!\s*[或和、及/,，]\s*[A-J](?![A-Za-z]))"),
    re.compile(r"(?<![A-Za-z])([A-J])\s*(?:项|选项)?\s*(?:是)?(?:正确|对)"),
    re.compile(r"^\s*[（(\[【]?\s*([A-J])\s*[）)\]】]?\s*[。．.]?\s*$"),
)


def zh_letters(text: str) -> list[str]:
    """Option letters a Chinese reply commits to by the patterns above (upper case, in order found)."""
    text = unicodedata.normalize("NFKC", text)
    return [m.group(1).upper() for p in _ZH_LETTER for m in p.finditer(text)]


def normalise_answer(text: str) -> str:
    """SQuAD normalisation: lowercase, no punctuation, no articles (a, an, the), single spaces.

    Text with CJK characters is first NFKC-normalised (full-width digits and letters become ASCII), loses
    CJK punctuation too, and has each CJK character made a token of its own; other text is unchanged."""
    cjk = has_cjk(text)
    if cjk:
        text = unicodedata.normalize("NFKC", text)
    text = text.lower().translate(_PUNCTUATION)
    if cjk:
        text = _CJK.sub(r" \1 ", text.translate(_CJK_PUNCTUATION))
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


def best_f1(prediction: str, golds: Sequence[str]) -> float:
    return max(token_f1(prediction, g) for g in golds)


# --- numbers ------------------------------------------------------------------------------------------

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"]
_WORD_VALUES = {**{w: i for i, w in enumerate(_UNITS)}, **{w: 20 + 10 * i for i, w in enumerate(_TENS)},
                **{w: i + 1 for i, w in enumerate(_ORDINALS)}, "dozen": 12}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NUMERAL = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:st|nd|rd|th|s)?(?:\s+(hundred|thousand|million|billion|trillion))?",
                      re.IGNORECASE)
_WORD_NUMBER = re.compile(r"\b(" + "|".join(_TENS) + r")[\s-]+(" + "|".join(_UNITS[1:10]) + r")\b|\b("
                          + "|".join(sorted(_WORD_VALUES, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def numbers(text: str) -> set[float]:
    """Every number a text states, as values: "1,200", "1.2 thousand", "twelve hundred", "3rd", "three".

    A scaled number counts under both readings ("1.2 million" is 1.2 and 1,200,000) so that a gold
    written either way still matches.
    """
    if has_cjk(text):  # "答案是18元": a CJK character is a word character, so set the digits apart
        text = _CJK.sub(r" \1 ", unicodedata.normalize("NFKC", text))
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    found: set[float] = set()
    for value, scale in _NUMERAL.findall(text):
        found.add(float(value))
        if scale:
            found.add(float(value) * _SCALES[scale.lower()])
    for match in _WORD_NUMBER.finditer(text):
        tens, unit, word = match.groups()
        value = float(_WORD_VALUES[tens.lower()] + _WORD_VALUES[unit.lower()] if tens else _WORD_VALUES[word.lower()])
        found.add(value)
        scale = re.match(r"[\s-]+(hundred|thousand|million|billion|trillion)\b", text[match.end():], re.IGNORECASE)
        if scale:  # "twelve hundred", "two million"
            found.add(value * _SCALES[scale.group(1).lower()])
    return found


# --- refusals -----------------------------------------------------------------------------------------

_REFUSAL = re.compile(
    r"^\W*(?:(?:sorry|unfortunately)\W+)?(?:"
    r"i\s+(?:do\s+not|don'?t|cannot|can'?t|am\s+unable\s+to|am\s+not\s+able\s+to|have\s+no)\s+"
    r"(?:know|say|tell|answer|determine|be\s+sure|find|information|idea|access)"
    r"|i'?m\s+(?:not\s+sure|unable|not\s+able)|i\s+am\s+(?:not\s+sure|unable|not\s+able)|no\s+idea|unknown\b"
    r"|(?:there\s+is|there'?s)\s+(?:not\s+enough|no|insufficient)\s+(?:information|data|evidence)"
    r"|(?:it\s+is|it'?s)\s+(?:not\s+possible|impossible|unclear|not\s+clear)\s+(?:to|from|whether|what|which|who)"
    r"|(?:this|that|it)\s+cannot\s+be\s+(?:determined|answered|known)|cannot\s+be\s+determined"
    r"|(?:the\s+)?(?:text|passage|context|question|information|article)s?\s+(?:does|do)\s+not\s+"
    r"(?:say|mention|state|specify|provide|contain)|insufficient\s+information|not\s+enough\s+information)",
    re.IGNORECASE)
# "I'm not sure, but I think it is X" commits to X after all: not a refusal.
_COMMITS_AFTER = re.compile(r"\b(?:but|however|though|i\s+think|i\s+believe|probably|likely|my\s+guess)\b", re.IGNORECASE)
_MAX_REFUSAL_WORDS = 30


def is_refusal(text: str) -> bool:
    """A reply that declines to answer ("I don't know", "The text does not say", "Cannot be determined")."""
    return bool(_REFUSAL.match(text) and not _COMMITS_AFTER.search(text)
                and len(text.split()) <= _MAX_REFUSAL_WORDS)


# --- the deterministic checker ------------------------------------------------------------------------


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


def check_free_text(answer_text: str, gold: str | Sequence[str], f1_threshold: float = 0.8, *,
                    question: str = "", others: Collection[str] = ()) -> Verdict | None:
    """Decide a free-text answer without a model when that is safe; None leaves it to the judge.

    `gold` is one answer or a list of acceptable ones. `others` are the normalised golds of other
    items (and other options): a reply that is only one of them is wrong. Rules run from the most
    certain to the least; each decision names its rule (`Verdict.method`).
    """
    if not answer_text or not answer_text.strip():
        return empty()
    golds = [g for g in ([gold] if isinstance(gold, str) else list(gold)) if normalise_answer(g)]
    if not golds:
        return None
    reply = Reply.of(answer_text)
    case = Case(reply, golds, [normalise_answer(g) for g in golds], best_f1(reply.text, golds), f1_threshold,
                question, others)
    if reply.text in case.refs:
        return Verdict(True, "exact", reply.text, case.score, "matches the gold answer")
    for rule in (_refusal, _yes_no, _contained, _same_number, _number_mismatch, _other_answer, _f1):
        verdict = rule(case)
        if verdict is not None:
            return verdict
    return None


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


Rule = Verdict | None


def _refusal(case: Case) -> Rule:
    reply, refs, score = case.reply, case.refs, case.score
    gold_refuses = any(is_refusal(r) or r in ("unknown", "none") for r in refs)
    if not is_refusal(reply.raw):
        return None
    if gold_refuses:
        return Verdict(True, "refusal", reply.text, score, "declines to answer, as the gold does")
    return Verdict(False, "refusal", reply.text, score, "declines to answer")


def _yes_no(case: Case) -> Rule:
    reply, refs = case.reply, case.refs
    ref = refs[0]
    if ref not in _YES_NO:
        return None
    words = reply.text.split()
    said = next((w for w in words if w in _YES_NO), None)
    if said is None or (words[0] != said and len(words) > _YES_NO_SHORT):
        return None
    hedge = _YES_NO_HEDGE.search(reply.text)
    if hedge:
        return Verdict(False, "yes_no", hedge.group(0), None, f"hedges between answers ({hedge.group(0)!r})")
    return Verdict(said in refs, "yes_no", said, None, f"answered {said!r}, gold {ref!r}")


def _contained(case: Case) -> Rule:
    """The gold as a phrase in a short reply, or as the subject or the conclusion of the first sentence.

    Not when the gold is already in the question (a reply restating the question contains it), nor
    in a negated reply ("not X"), a hedge ("X or Y") or an enumeration ("X, Y and Z").
    """
    reply, score = case.reply, case.score
    asked = f" {normalise_answer(case.question)} "
    for ref in case.refs:
        if f" {ref} " in asked:
            continue
        short = len(reply.text.split()) <= 2 * len(ref.split()) + 3
        if short and f" {ref} " in f" {reply.text} " and _plain(reply.text, ref):
            return Verdict(True, "exact", reply.text, score, "the short reply states the gold answer")
        if _leads_or_concludes(reply, ref) and _plain(reply.first, ref):
            return Verdict(True, "exact", reply.first, score, "the first sentence states the gold answer")
    return None


# Words after which the end of a sentence is what it asserts: "... was Neil Armstrong", "... in 2016".
_COPULAS = frozenset(["is", "was", "are", "were", "be", "been", "called", "named", "by", "as", "in", "on", "at", "from", "to", "of",
                      "是", "为", "在", "于", "叫"])


def _leads_or_concludes(reply: Reply, ref: str) -> bool:
    words, gold = reply.first.split(), ref.split()
    if len(words) > 30 or len(words) <= len(gold):
        return False
    if words[: len(gold)] == gold:
        listed = re.match(rf"\W*{_loose(ref)}\s*(?:,|;|\band\b|\bor\b|&)", reply.raw, re.IGNORECASE)
        return listed is None and words[len(gold)] not in ("and", "or", "nor")
    return words[-len(gold):] == gold and words[-len(gold) - 1] in _COPULAS and "," not in reply.raw.split(".")[0]


def _loose(ref: str) -> str:
    """A pattern for the normalised gold in raw text (any punctuation or article between its words)."""
    return r"(?:the\s+|an?\s+)?" + r"\W+".join(re.escape(w) for w in ref.split())


def _plain(span: str, ref: str) -> bool:
    """No negation and no alternative ("or", "either") beyond the gold's own words."""
    extra = set(span.split()) - set(ref.split())
    return not extra & (_NEGATIONS | _ZH_NEGATIONS | {"or", "either", "或"})


def _same_number(case: Case) -> Rule:
    """A reply that is just a number, equal to a gold that is just a number ("3" for "three")."""
    if len(case.reply.text.split()) > 4:
        return None
    stated = numbers(case.reply.raw)
    for gold, ref in zip(case.golds, case.refs):
        if len(ref.split()) <= 3 and stated and stated == numbers(gold):
            return Verdict(True, "exact", case.reply.text, case.score, "states the gold's number")
    return None


# A period ("19th century", "the 1800s", "the '90s") names a span, not the number it is written with.
_PERIOD = re.compile(r"\b(?:centur(?:y|ies)|millenni(?:um|a)|decades?)\b|\d0'?s\b|'\d0s\b", re.IGNORECASE)


def _number_mismatch(case: Case) -> Rule:
    reply, score = case.reply, case.score
    if _PERIOD.search(reply.raw) or any(_PERIOD.search(g) for g in case.golds):
        return None  # "1800s" is the 19th century: spans are compared by the judge
    wanted = set().union(*(numbers(g) for g in case.golds))
    stated = numbers(reply.raw)
    if not wanted or not stated or wanted & stated:
        return None
    shown = ", ".join(f"{n:g}" for n in sorted(stated)[:4])
    return Verdict(False, "number_mismatch", reply.text, score,
                   f"states {shown}; the gold's number is {', '.join(f'{n:g}' for n in sorted(wanted))}")


def _other_answer(case: Case) -> Rule:
    """The reply is another item's gold (or another option), or names one of them and nothing of the gold."""
    reply, refs, score, others = case.reply, case.refs, case.score, case.others
    if not others or all(r in _YES_NO for r in refs):
        return None  # a statement answering a yes/no question is no other item's answer
    gold_words = set().union(*(r.split() for r in refs))
    for other in others:
        if not other or other in refs:
            continue
        short = len(reply.text.split()) <= len(other.split()) + 3
        if reply.text == other or (short and f" {other} " in f" {reply.text} "
                                   and not gold_words & set(reply.text.split())):
            return Verdict(False, "other_answer", reply.text, score, f"answers {other!r}, another item's answer")
    return None


def _f1(case: Case) -> Rule:
    extra = set(case.reply.text.split()) - set().union(*(r.split() for r in case.refs))
    if case.score >= case.threshold and not (_NEGATIONS | _ZH_NEGATIONS) & extra:
        return Verdict(True, "f1", case.reply.text, case.score, f"token F1 {case.score:.2f} >= {case.threshold:g}")
    return None
