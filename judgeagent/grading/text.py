"""Free-text answers decided without a model: matches that are safe to accept, mismatches that are
certainly wrong, and None for everything a judge must read."""
from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .forms import plain, stems, unhyphen
from .numeric import compare_numbers, gold_range, is_approximate, period, unit
from .phrases import CONTRAST, listed, other_name_first
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
_ZH_ALTERNATIVES = frozenset({"或"})
"""或 ("or", 或者): with text normalised a character a token, the hedge "北京或上海" shows as this token."""


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


# Declining in the third person: "The sources don't give enough information", "Not answerable from the
# provided articles", "There isn't enough information in these articles to say".
_NOT_ENOUGH = re.compile(
    r"^\W*(?:(?:the|these|this)\s+)?(?:sources?|articles?|documents?|texts?|passages?|context)\s+"
    r"(?:do(?:es)?\s+not|do(?:es)?n'?t)\s+(?:give|provide|contain|have|include)\s+(?:enough|sufficient)\s+"
    r"(?:information|detail|data|evidence)"
    r"|^\W*(?:neither|none\s+of\s+the)\s+(?:sources?|articles?|documents?|texts?|passages?)\s+"
    r"(?:gives|provides|contains|has|have|give|provide)\s+(?:enough|sufficient)\s+(?:information|detail|data|evidence)"
    r"|^\W*there\s+(?:is|was)\s*(?:not|n'?t)\s+(?:enough|sufficient)\s+(?:information|detail|data|evidence)"
    r"|^\W*not\s+answerable\b|^\W*unanswerable\b|^\W*(?:the\s+)?question\s+cannot\s+be\s+answered", re.IGNORECASE)


def is_refusal(text: str) -> bool:
    """A reply that declines to answer ("I don't know", "The text does not say", "Cannot be determined")."""
    return bool((_REFUSAL.match(text) or _NOT_ENOUGH.match(text)) and not _COMMITS_AFTER.search(text)
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
    for rule in (_uncertain, _refusal, _yes_no, _folded, _contained, _same_number, _periods, _numbers_compared, _number_mismatch,
                 _other_answer, _f1, _restated, _choice, _acronym, _name_part, _phrase, _word_form, _corrected, _stated_number):
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
        said = _yes_no_stated(reply.raw)
        if said is None:
            return None
    hedge = _YES_NO_HEDGE.search(reply.text)
    if hedge:
        return Verdict(False, "yes_no", hedge.group(0), None, f"hedges between answers ({hedge.group(0)!r})")
    return Verdict(said in refs, "yes_no", said, None, f"answered {said!r}, gold {ref!r}")


# In a long reply the yes/no word that answers is the one after an opening qualifier ("In general, yes: ...",
# "Generally not; ...") or in a conclusion ("..., so yes.", "the answer is no:"); elsewhere it may be reasoning.
_QUALIFIED = re.compile(r"^\W*(?:(?:in\s+general|in\s+short|in\s+most\s+cases|generally|typically|usually|mostly|"
                        r"largely|overall|broadly|basically|essentially|normally)\W+)(yes|no|not)\b\s*[,.;:!\u2014-]",
                        re.IGNORECASE)
_CONCLUDED = re.compile(r"(?:\b(?:so|thus|therefore|hence|overall)\W+|\b(?:the\s+)?answer\s+is\W+)(yes|no|maybe)\b"
                        r"\s*(?:[.!:;,\u2014-]|$)", re.IGNORECASE)


def _yes_no_stated(raw: str) -> str | None:
    """The yes/no/maybe a long reply states after an opening qualifier or in its (last) conclusion."""
    found = _QUALIFIED.match(raw)
    if found:
        return "yes" if found.group(1).lower() == "yes" else "no"
    concluded = {m.lower() for m in _CONCLUDED.findall(raw)}
    return concluded.pop() if len(concluded) == 1 else None


def _contained(case: Case) -> Rule:
    """The gold as a phrase in a short reply, or as the subject or the conclusion of the first sentence.

    Not when the gold is already in the question (a reply restating the question contains it), nor
    in a negated reply ("not X"), a hedge ("X or Y") or an enumeration ("X, Y and Z").
    """
    reply, score = case.reply, case.score
    asked = f" {normalise_answer(case.question)} "
    for gold, ref in zip(case.golds, case.refs):
        if f" {ref} " in asked:
            continue
        short = len(reply.text.split()) <= 2 * len(ref.split()) + 3
        if short and f" {ref} " in f" {reply.text} " and _plain(reply.text, ref):
            if not _guarded(case, reply.text.split(), ref.split(), gold):
                return Verdict(True, "exact", reply.text, score, "the short reply states the gold answer")
        elif _leads_or_concludes(reply, ref) and _plain(reply.first, ref):
            if not _guarded(case, reply.first.split(), ref.split(), gold):
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
    return not extra & (_NEGATIONS | _ZH_NEGATIONS | _ZH_ALTERNATIVES | {"or", "either"})


def _same_number(case: Case) -> Rule:
    """A reply that is just a number, equal to a gold that is just a number ("3" for "three")."""
    if len(case.reply.text.split()) > 4:
        return None
    stated = numbers(case.reply.raw)
    for gold, ref in zip(case.golds, case.refs):
        if (len(ref.split()) <= 3 and stated and stated == numbers(gold) and _only_number(ref, case.reply.text)
                and _same_unit(ref, case.reply.text) and not _not_comparable(case.reply.raw, [gold])):
            return Verdict(True, "exact", case.reply.text, case.score, "states the gold's number")
    return None


def _after_numbers(text: str) -> set[str]:
    words = text.split()
    return {words[k + 1].rstrip("s") for k, w in enumerate(words[:-1]) if numbers(w) and not numbers(words[k + 1])}


def _same_unit(ref: str, reply: str) -> bool:
    """The word after the reply's number, if any, is the gold's unit: not "six terms" for "six years"."""
    wanted, said = _after_numbers(ref), _after_numbers(reply)
    return not wanted or not said or bool(wanted & said)


_APPROX_WORDS = frozenset({"about", "around", "approximately", "roughly", "nearly", "some", "circa"})


def _only_number(ref: str, reply: str) -> bool:
    """Every gold word the reply lacks is a number, its unit or "about": not "Unlimited six-year terms" for
    "six years", nor "late 1968" for "September 1968"."""
    words, said = ref.split(), set(reply.split())
    for k, word in enumerate(words):
        is_number = bool(numbers(word))
        after_number = k > 0 and bool(numbers(words[k - 1]))
        if word not in said and not is_number and not after_number and word not in _APPROX_WORDS:
            return False
    return True


# A period ("19th century", "the 1800s", "the '90s") names a span, not the number it is written with.
_PERIOD = re.compile(r"\b(?:centur(?:y|ies)|millenni(?:um|a)|decades?)\b|\d0'?s\b|'\d0s\b", re.IGNORECASE)


def _number_mismatch(case: Case) -> Rule:
    reply, score = case.reply, case.score
    if _PERIOD.search(reply.raw) or any(_PERIOD.search(g) for g in case.golds):
        return None  # "1800s" is the 19th century: spans are compared by the judge
    wanted = set().union(*(numbers(g) for g in case.golds))
    stated = numbers(reply.raw)
    if not wanted or not stated or wanted & stated or _not_comparable(reply.raw, case.golds):
        return None
    shown = ", ".join(f"{n:g}" for n in sorted(stated)[:4])
    return Verdict(False, "number_mismatch", reply.text, score,
                   f"states {shown}; the gold's number is {', '.join(f'{n:g}' for n in sorted(wanted))}")


def _not_comparable(reply: str, golds: Sequence[str]) -> bool:
    """A gold range or approximate number (`numbers_compared` decides those), or units that differ."""
    if any(gold_range(g) or is_approximate(g) for g in golds) or is_approximate(reply):
        return True
    said = unit(reply)
    return said is not None and any(unit(g) not in (None, said) for g in golds)


def _other_answer(case: Case) -> Rule:
    """The reply is another item's gold (or another option), or names one of them and nothing of the gold."""
    reply, refs, score, others = case.reply, case.refs, case.score, case.others
    if not others or all(r in _YES_NO for r in refs):
        return None  # a statement answering a yes/no question is no other item's answer
    gold_words = set().union(*(r.split() for r in refs))
    for other in others:
        if not other or other in refs:
            continue
        if token_f1(reply.text, other) <= score:
            continue  # the reply matches a gold at least as well ("B. R. Ambedkar" for "Bhimrao Ramji Ambedkar")
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


# --- issue 30: accents, phrases inside longer replies, word forms, ranges, approximate numbers, periods ---

def fold(text: str) -> str:
    """`normalise_answer` after folding accents and ligatures ("Dáin" -> "dain") and reading hyphens as
    spaces ("Jean-Pierre" -> "jean pierre")."""
    return normalise_answer(unhyphen(plain(text.lower())))


def _folded(case: Case) -> Rule:
    """The reply is a gold once accents and hyphens are folded ("Antonin Dvorak" for "Antonín Dvořák")."""
    reply = fold(case.reply.text)
    if any(reply == fold(g) for g in case.golds):
        return Verdict(True, "folded", reply, case.score, "the gold answer, up to accents and hyphens")
    return None


_LONGEST = 60
"""Words; in a longer reply (an essay) no rule picks out the answer."""


def _phrase(case: Case) -> Rule:
    """The gold as a whole phrase in a longer reply that names no other candidate and denies nothing."""
    words = fold(case.reply.raw).split()
    if len(words) > _LONGEST or len(words) < 2:
        return None
    asked, text = f" {fold(case.question)} ", f" {' '.join(words)} "
    for gold in case.golds:
        ref = fold(gold)
        if len(ref) < 3 or ref in _YES_NO or f" {ref} " in asked or f" {ref} " not in text:
            continue
        if _guarded(case, words, ref.split(), gold):
            return None
        return Verdict(True, "phrase", ref, case.score, "the reply states the gold as a whole phrase")
    return None


def _guarded(case: Case, words: list[str], gold: list[str], raw_gold: str) -> bool:
    """A contrast word, a list around the gold, another item's gold, numbers beyond the gold's, or another
    name asserted before the gold ("Croatia won the final against France")."""
    if set(words) - set(gold) & (_NEGATIONS | _ZH_NEGATIONS | _ZH_ALTERNATIVES | CONTRAST) or listed(case.reply.raw, gold):
        return True
    text = f" {' '.join(words)} "
    wanted = numbers(raw_gold)
    # Another gold counts as a rival only when it is the same kind of answer: "in July 1969" beside "Neil
    # Armstrong" is a detail, not a second candidate.
    if any(f" {o} " in text and not set(o.split()) & set(gold) and bool(numbers(o)) == bool(wanted)
           for o in map(fold, case.others) if o):
        return True
    if wanted and stated_numbers(case.reply.raw, case.question) != numbers(without_days(raw_gold)):
        return True
    if has_cjk(case.reply.raw):  # the English pipeline reads no names in Chinese text ("中国" would be one)
        return False
    return other_name_first(case.reply.raw, set(gold) | set(fold(case.question).split()), gold)


def _word_form(case: Case) -> Rule:
    """A short reply whose content words are the gold's in other forms ("sharecroppers" for "Sharecropping")."""
    words = fold(case.reply.raw).split()
    asked = f" {fold(case.question)} "
    for gold in case.golds:
        ref = fold(gold)
        if not ref or ref in _YES_NO or numbers(gold) or f" {ref} " in asked:
            continue
        if len(words) > 2 * len(ref.split()) + 6 or _guarded(case, words, ref.split(), gold):
            continue
        wanted, said = stems(gold), stems(case.reply.raw)
        if wanted and set(wanted) <= set(said):
            return Verdict(True, "word_form", " ".join(said), case.score, "the gold's words in other forms")
    return None


def _numbers_compared(case: Case) -> Rule:
    """A number inside the gold's range, or near an approximate gold ("about 375,000" for "about 370,000")."""
    if len(case.reply.text.split()) > 25:
        return None
    stated = numbers(case.reply.raw)
    for gold in case.golds:
        found = compare_numbers(case.reply.raw, gold, stated, numbers(gold))
        if found is not None and found.correct:
            return Verdict(True, "number_range", case.reply.text, case.score, found.reason)
    found = compare_numbers(case.reply.raw, case.golds[0], stated, numbers(case.golds[0]))
    if found is not None and len(case.golds) == 1:
        return Verdict(False, "number_range", case.reply.text, case.score, found.reason)
    return None


def _periods(case: Case) -> Rule:
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


# "Possibly.", "It is unclear whether ...", "It is uncertain": the reply commits to "maybe".
_UNCERTAIN = re.compile(r"^\W*(?:possibly|perhaps|uncertain|unclear|it\s+is\s+(?:uncertain|unclear|not\s+clear)|"
                        r"it'?s\s+(?:uncertain|unclear|not\s+clear)|(?:the\s+)?evidence\s+is\s+(?:mixed|inconclusive|"
                        r"unclear|limited))\b", re.IGNORECASE)


def _uncertain(case: Case) -> Rule:
    """For a yes/no/maybe gold, a reply that opens uncertain and says neither yes nor no commits to "maybe"."""
    if case.refs[0] not in _YES_NO or not _UNCERTAIN.match(case.reply.raw):
        return None
    if {"yes", "no"} & set(case.reply.first.split()):
        return None
    return Verdict(case.refs[0] == "maybe", "yes_no", "maybe", None, f"answered 'maybe', gold {case.refs[0]!r}")


_CONNECTORS = frozenset({"of", "and", "for", "the", "de", "von", "van", "da", "del", "la", "le"})


def _acronym(case: Case) -> Rule:
    """The gold's initials for the gold ("JPL" for "Jet Propulsion Laboratory", "SBF" for "Sam Bankman-Fried"),
    or the gold spelled out for a gold acronym: the acronym written in capitals."""
    raw = re.sub(r"[^\w\s]", "", plain(case.reply.raw)).strip()
    for gold in case.golds:
        short, long = (raw, gold) if raw.isupper() else (re.sub(r"[^\w\s]", "", gold).strip(), case.reply.raw)
        if not (short.isupper() and 2 <= len(short) <= 8 and " " not in short):
            continue
        words = [w for w in fold(long).split()]
        full = "".join(w[0] for w in words)
        content = "".join(w[0] for w in words if w not in _CONNECTORS)
        if len(words) >= 2 and short.lower() in (full, content):
            return Verdict(True, "acronym", fold(case.reply.raw), case.score, "the gold's initials, or the gold spelled out")
    return None


_TITLES = frozenset({"dr", "sir", "mr", "mrs", "ms", "st", "saint", "lord", "lady", "dame", "prof", "professor",
                     "governor", "gov", "president", "senator", "sen", "judge", "justice", "general", "gen", "captain",
                     "king", "queen", "prince", "princess", "emperor", "pope", "father", "rev", "reverend"})
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
# Nouns that make "which/what <noun>" ask for a person as "who" does.
_PERSONS = ("person|man|woman|people|composer|writer|author|novelist|poet|playwright|painter|artist|sculptor|architect|"
            "scientist|physicist|chemist|biologist|mathematician|astronomer|inventor|engineer|explorer|philosopher|"
            "economist|historian|jurist|lawyer|politician|statesman|president|king|queen|emperor|ruler|monarch|leader|"
            "general|founder|singer|songwriter|musician|actor|actress|director|player|athlete|coach|footballer")
_WHO = re.compile(r"\b(?:who|whom|whose)\b|\b(?:which|what)\s+(?:of\s+the\s+)?(?:[\w-]+\s+){0,2}?(?:" + _PERSONS
                  + r")s?\b", re.IGNORECASE)
_SUBJECTS = frozenset({"it", "was", "is", "he", "she", "that", "this", "by"})
"""Words that only point at the name ("It was Governor Winter.")."""


def _name_part(case: Case) -> Rule:
    """For a question asking for a person ("who", "which composer"), part of the gold person's name that keeps the
    surname ("Telemann", "Richard Bach", "B. R. Ambedkar" for "Bhimrao Ramji Ambedkar", "It was Governor Winter."),
    with titles and the question's own words around it, when no other item's gold shares that surname."""
    if not _WHO.search(case.question):
        return None
    asked = set(fold(case.question).split())
    said = [w for w in fold(case.reply.raw).split() if w not in _TITLES | _SUBJECTS and w not in asked]
    for gold in case.golds:
        if "," in gold or numbers(gold):
            continue
        name = [w for w in fold(gold).split() if w not in _SUFFIXES]
        if len(name) < 2 or not said or name[-1] not in said or name[-1] in asked:
            continue
        if all(w in name or (len(w) == 1 and any(n.startswith(w) for n in name[:-1])) for w in said) \
                and not any(name[-1] in fold(o).split() for o in case.others if fold(o) != fold(gold)):
            return Verdict(True, "name_part", " ".join(said), case.score, "part of the gold's name, with its surname")
    return None


_FILLER = frozenset({"is", "was", "are", "were", "be", "been", "it", "its", "one", "that", "this", "which", "who",
                     "answer", "so", "more", "most", "than", "of", "in", "on", "by", "to", "at", "has", "had", "have"})


def _choice(case: Case) -> Rule:
    """A question that offers two candidates ("Who is older, Sid Haig or Vic Darchinyan?"), answered by naming
    one of them in the question's own words: right for the gold's, wrong for the other."""
    asked = fold(case.question).split()
    if asked.count("or") != 1:
        return None
    k = asked.index("or")
    if k == 0 or k == len(asked) - 1:
        return None
    left, right = asked[k - 1], asked[-1]  # each candidate's last word: "haig", "darchinyan"
    words = fold(case.reply.raw).split()
    gold_words = {w for g in case.golds for w in fold(g).split()}
    if set(words) - set(asked) - gold_words - _FILLER or set(words) & (_NEGATIONS | CONTRAST):
        return None  # words the question does not use ("younger", "born in 1939"): for a judge
    sides = [w for w in (left, right) if w in gold_words]
    if len(sides) != 1 or left == right:
        return None
    mine, other = sides[0], right if sides[0] == left else left
    if (mine in words) == (other in words):
        return None
    return Verdict(mine in words, "choice", " ".join(words), case.score,
                   f"names the question's {'gold' if mine in words else 'other'} candidate")


_ASKS_YES_NO = re.compile(r"^\W*(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\b", re.IGNORECASE)
_RESTATED = 0.8
"""Share of the question's content words (as stems) a reply must repeat to count as restating it."""
_HEDGES = frozenset({"while", "whereas", "although", "though", "but", "however", "may", "might", "could", "some",
                     "partly", "partially", "only", "unclear", "uncertain", "depends", "depending", "hard"})


def _restated(case: Case) -> Rule:
    """A yes/no question answered by restating its claim: as asked is "yes", with one added negation "no"
    ("Both magazines are British publications." for "Are both magazines British publications?")."""
    if case.refs[0] not in ("yes", "no") or not _ASKS_YES_NO.match(case.question):
        return None
    words = set(fold(case.reply.raw).split())
    asked_words = set(fold(case.question).split())
    if words & (_HEDGES | {"yes", "no", "maybe", "or", "either"}) or len(words) > 40:
        return None
    negated = (words - asked_words) & _NEGATIONS
    if asked_words & _NEGATIONS or len(negated) > 1:
        return None
    asked = set(stems(case.question))
    if not asked or len(asked & set(stems(case.reply.raw))) < _RESTATED * len(asked):
        return None
    said = "no" if negated else "yes"
    return Verdict(said == case.refs[0], "yes_no", said, None, f"restates the question's claim ({said}), gold {case.refs[0]!r}")


_BUT = re.compile(r"(?:^|[\s,;])but\s+", re.IGNORECASE)
_ASSERTING = frozenset({"is", "was", "are", "were", "it", "its", "that", "this", "actually", "in", "fact", "really",
                        "rather", "correct", "answer", "right"})


def _corrected(case: Case) -> Rule:
    """A reply that sets a belief aside and then asserts the gold as its final clause ("Many people think Raphael
    did, but it was Michelangelo."; "Not the liver but the pancreas."): right when that clause is only the
    gold, the question's words and an assertion ("it was", "the capital of Australia is")."""
    parts = _BUT.split(case.reply.raw)
    if len(parts) < 2 or len(fold(case.reply.raw).split()) > _LONGEST:
        return None
    before, after = fold(" ".join(parts[:-1])).split(), fold(parts[-1]).split()
    asked = set(fold(case.question).split())
    for gold in case.golds:
        ref = fold(gold).split()
        if not ref or " ".join(ref) in _YES_NO or f" {' '.join(ref)} " not in f" {' '.join(after)} ":
            continue
        if f" {' '.join(ref)} " in f" {' '.join(asked)} " or set(ref) & set(before) or listed(parts[-1], ref):
            continue
        if set(after) - set(ref) - asked - _ASSERTING:
            continue  # more than an assertion of the gold: "but Raphael did the frescoes"
        return Verdict(True, "corrected", " ".join(after), case.score, "sets a belief aside and asserts the gold")
    return None


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


def _stated_number(case: Case) -> Rule:
    """A short reply whose only number (besides the question's and a date's day) is the gold's, for a gold that is a
    number with at most its unit ("Mars has two small moons." for "2"; "It fell on 9 November 1989." for "1989")."""
    words = fold(case.reply.raw).split()
    if len(words) > 20 or set(words) & (_NEGATIONS | CONTRAST | _APPROX_WORDS):
        return None
    stated = stated_numbers(case.reply.raw, case.question)
    for gold in case.golds:
        ref = fold(gold).split()
        wanted = numbers(gold)
        if (not wanted or stated != wanted or not all(numbers(w) or w in words for w in ref)
                or not _same_unit(" ".join(ref), " ".join(words))):
            continue  # a gold unit ("years") must be said too
        if _not_comparable(case.reply.raw, [gold]):
            continue
        return Verdict(True, "exact", " ".join(words), case.score, "states the gold's number and no other")
    return None
