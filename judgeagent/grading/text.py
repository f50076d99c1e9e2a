"""Answer text as the checker reads it: SQuAD normalisation (with CJK text a character a token), token F1,
the numbers a text states, refusals, and accent folding. The rules that use these live in the `*_rules`
modules, `yes_no` and `free_text`."""
from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence

from .forms import plain, unhyphen

ANSWER_PREFIX = re.compile(
    r"^\s*(?:the\s+)?(?:final\s+|correct\s+)?answer\b\s*(?:is|would\s+be)?\s*[:\-]?\s*", re.IGNORECASE)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation + "‘’“”")
NEGATIONS = frozenset({"not", "no", "never", "neither", "nor", "none", "isnt", "wasnt", "arent", "doesnt",
                        "didnt", "cannot", "cant"})
YES_NO = ("yes", "no", "maybe")


# Scripts written without spaces between words (CJK ideographs, kana, hangul): each character is one token,
# as the Chinese reading-comprehension benchmarks (CMRC, DuReader) score F1. The `zh-core-web-sm` name on
# the package index is an empty placeholder, and character tokens need no segmenter's dictionary.
CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af])")
# What turns the CJK treatment on: those characters, CJK punctuation (U+3000-303F) and full-width forms.
_CJK_ANY = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef]")
_CJK_PUNCTUATION = str.maketrans("", "", "，。、；：？！「」『』（）【】《》〈〉…—·～“”‘’﹁﹂〔〕")
# "答案是 B" / "正确答案为：北京" / "最终答案: 3": the Chinese for "the (final/correct) answer is".
ZH_ANSWER_PREFIX = re.compile(r"^\s*(?:所以|因此)?\s*(?:最终|正确)?的?答案\s*(?:是|为|应该是|应为)?\s*[:：]?\s*")
ZH_NEGATIONS = frozenset({"不", "没", "未", "非", "无"})
ZH_ALTERNATIVES = frozenset({"或"})
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
        text = CJK.sub(r" \1 ", text.translate(_CJK_PUNCTUATION))
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
        text = CJK.sub(r" \1 ", unicodedata.normalize("NFKC", text))
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


# --- issue 30: accents, phrases inside longer replies, word forms, ranges, approximate numbers, periods ---

def fold(text: str) -> str:
    """`normalise_answer` after folding accents and ligatures ("Dáin" -> "dain") and reading hyphens as
    spaces ("Jean-Pierre" -> "jean pierre")."""
    return normalise_answer(unhyphen(plain(text.lower())))
