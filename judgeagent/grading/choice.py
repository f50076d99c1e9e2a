"""Multiple-choice answers: the option letter a free-form reply commits to, compared with the gold."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .text import ANSWER_PREFIX, has_cjk, normalise_answer, zh_letters
from .verdict import Verdict, empty

if TYPE_CHECKING:
    from ..benchmark import Item

# Words that may follow an option letter ("B because ...", "C is correct"); any other lowercase word
# after a lone capital means it was the article "A" or pronoun "I", not an option.
_CONNECTIVES = frozenset(
    ["because", "since", "as", "is", "was", "would", "will", "should", "could", "must", "seems", "appears", "and", "or", "but", "which", "given", "due", "that", "here", "then", "so", "though", "although", "while", "whereas", "if", "also", "only", "alone", "too"])
_NEGATED_AFTER = re.compile(r"\s*(?:is|are|was|seems)?\s*(?:not\b|n't\b|wrong\b|incorrect\b|false\b)", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(r"\b(?:not|never|rule out|exclude|eliminate)\s+$", re.IGNORECASE)
# The letter as models write it: B, (B), [B], **B**, B), B., "B" (with decorations around it).
_TOKEN = r"[\s\*\"'`]*[\(\[]?\s*([A-Za-z])\s*[\)\]]?[\*\"'`]*"
_JSON_KEYS = ("answer", "final_answer", "answer_letter", "letter", "choice", "option", "correct_option")

# Tiers, strongest first: the first tier that names letters decides; two different letters in the
# deciding tier are an ambiguous answer (None) rather than a guess.
_TIERS: tuple[tuple[re.Pattern[str], ...], ...] = (
    (re.compile(r"final\s+answer\s*(?:is|would\s+be|:|=|-)?\s*(?:option|choice|letter)?\s*:?" + _TOKEN,
                re.IGNORECASE),),
    (
        re.compile(r"\b(?:answer|option|choice)\s*(?:is|would\s+be|should\s+be|will\s+be|=|:|-)\s*:?\s*"
                   r"(?:option|choice|letter)?\s*:?" + _TOKEN, re.IGNORECASE),
        re.compile(r"\b(?:I(?:\s+would|\s+will|'d|'ll)?\s+(?:choose|pick|select|go\s+with|say)"
                   r"|I(?:'m|\s+am)\s+going\s+with|my\s+(?:answer|choice)\s+is)"
                   r"\s*:?\s*(?:option|choice|letter)?\s*:?" + _TOKEN, re.IGNORECASE),
        re.compile(r"(?:\b(?:option|choice|letter)\s+)?" + _TOKEN.replace("([A-Za-z])", r"\b([A-Za-z])\b")
                   + r"\s+is\s+(?:the\s+)?(?:correct|right|best|most\s+likely)\b", re.IGNORECASE),
        # a conclusion that ends its sentence: "It's B.", "..., so C."
        re.compile(r"\b(?:it's|it\s+is|so|thus|therefore|hence)\s*,?" + _TOKEN + r"(?=[.!]?[ \t]*(?:\n|$))",
                   re.IGNORECASE | re.MULTILINE),
    ),
    (
        re.compile(r"\b(?:option|choice)\s*" + _TOKEN, re.IGNORECASE),
        re.compile(r"^[\s>#\-]*[\*\(\[]*\s*([A-Za-z])\s*[\*\)\]]*\s*(?=[).:,\-]|$)", re.MULTILINE),
        re.compile(r"\(([A-Z])\)|\*\*([A-Z])\*\*"),  # uppercase only: "(a)", "(i)" enumerate in prose
    ),
)
_ALTERNATIVE = re.compile(r"\s*(?:,\s*)?(?:or|and|and/or|/|&)\s*(?:(?:maybe|possibly|perhaps|probably)\s+)?"
                          r"(?:option\s+|choice\s+)?" + _TOKEN, re.IGNORECASE)
# a closing quote may come before the full stop ("'d'.", "**B**.")
_BARE = re.compile(r"^[\s\*\"'`]*[\(\[]?\s*([A-Za-z])\s*[\)\]]?[\*\"'`]*[.:]?[\s\*\"'`]*$")


def extract_letter(text: str, options: Mapping[str, str]) -> str | None:
    """The option letter a free-form reply commits to, or None when there is none or it is ambiguous."""
    return _extract(text, options)[0]


def _extract(text: str, options: Mapping[str, str]) -> tuple[str | None, str]:
    """(letter, "letter" | "option_text"); (None, "several") when the reply names more than one
    option, (None, "") when it names none."""
    letters = {k.upper(): k for k in options}
    if not text or not text.strip():
        return None, ""
    from_json = _json_answer(text)
    if from_json is not None:
        return _extract(from_json, options)
    bare = _BARE.match(text)
    if bare and bare.group(1).upper() in letters:
        return letters[bare.group(1).upper()], "letter"
    by_text = _option_by_text(ANSWER_PREFIX.sub("", text), options, whole=True)
    if by_text:
        return by_text, "option_text"
    if has_cjk(text):  # a CJK character counts as a letter of a word, so the English tiers miss "答案是C"
        found = {letters[c] for c in zh_letters(text) if c in letters}
        if found:
            return (found.pop(), "letter") if len(found) == 1 else (None, "several")
    for number, tier in enumerate(_TIERS):
        weak = number == len(_TIERS) - 1
        found = {letters[c] for c in _tier_letters(text, tier, weak) if c in letters}
        if len(found) == 1:
            return found.pop(), "letter"
        labelled = _labelled_options(text, options) if found and weak else set()
        if len(labelled) == 1:
            # Reasoning that mentions options in passing ("ARDS (D) is unlikely") then commits to one
            # written out as "A. Asthma attack": the one given with its own text is the choice.
            return labelled.pop(), "letter"
        if found:
            return None, "several"
    by_prefix = _option_by_text(ANSWER_PREFIX.sub("", text), options, whole=False)
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
                found += _alternatives(text, match.end())
    return found


def _alternatives(text: str, end: int) -> list[str]:
    """The letters a commitment is hedged with right after it: "The answer is A or B", "B/C", "A and D" (then the
    reply names more than one option, where reading only its first letter gave the hedge the credit of A)."""
    found = []
    while match := _ALTERNATIVE.match(text, end):
        if not _standalone(text, match.start(1), match.end(1)):
            break
        found.append(match.group(1).upper())
        end = match.end()
    return found


def _labelled_options(text: str, options: Mapping[str, str]) -> set[str]:
    """Letters written with their own option text ("A. Asthma attack", "(C) Lupus"), not ruled out."""
    found = set()
    for letter, option in options.items():
        pattern = (r"[\(\[]?\b" + re.escape(letter) + r"\b[\)\]]?[.:)]?\s*[\*\"'`]*\s*"
                   + re.escape(option.strip()))
        for match in re.finditer(pattern, text):
            if not _negated(text, match.start(), match.end()):
                found.add(letter)
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
    match = re.search(r"\{.*\}", text, re.DOTALL)
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


def check_choice(answer_text: str, item: Item) -> Verdict:
    """Compare the option a reply commits to with the item's gold letter (every gold letter, for an item with
    several correct options: `gold_letter` "AC")."""
    if item.gold_letter is not None and len(item.gold_letter) > 1:
        return check_several(answer_text, item.options or {}, item.gold_letter)
    return check_options(answer_text, item.options or {}, item.gold_letter, item.gold)


def check_options(answer_text: str, options: Mapping[str, str], answer_letter: str | None,
                  gold: str) -> Verdict:
    if not answer_text or not answer_text.strip():
        return empty()
    letter, how = _extract(answer_text, options)
    if how == "several":
        return Verdict(False, "several_options", None, None, "names more than one option: no single answer")
    if letter is None:
        return Verdict(False, "no_letter", None, None, "no option letter or option text found in the answer")
    if answer_letter is not None:
        correct = letter.upper() == answer_letter.upper()
        return Verdict(correct, how, letter, None, f"chose {letter}, gold {answer_letter}")
    # A gold given only as text that matches no option exactly: compare the chosen option's text.
    correct = normalise_answer(options[letter]) == normalise_answer(gold)
    relation = "matches" if correct else "differs from"
    return Verdict(correct, how, letter, None, f"chose {letter} ({relation} gold text)")


# --- items with several correct options ("AC") ------------------------------------------------------------

_ANSWER_LINE = re.compile(r"\banswers?\s*(?:is|are|:)\s*:?\s*(.+)", re.IGNORECASE)


def extract_letters(text: str, options: Mapping[str, str]) -> str | None:
    """Every option letter a reply to a several-answer item commits to, sorted ("AC"), or None.

    As the authors' `check_and_extract_answer` (zhiqix/Teach2Eval, code/utils/check_answer.py): the letters of
    the last "answer is ..." / "Answer: ..." line, else the letters standing alone in the reply's last line."""
    letters = {k.upper(): k for k in options}
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    found = _ANSWER_LINE.findall(text or "")
    where = found[-1] if found else (lines[-1] if lines else "")
    chosen = {letters[c] for c in re.findall(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])", where) if c in letters}
    return "".join(sorted(chosen)) or None


def check_several(answer_text: str, options: Mapping[str, str], gold_letters: str) -> Verdict:
    """Right when the set of letters chosen is the set of gold letters (the authors' `set(answer) == set(label)`)."""
    if not answer_text or not answer_text.strip():
        return empty()
    chosen = extract_letters(answer_text, options)
    if chosen is None:
        return Verdict(False, "no_letter", None, None, "no option letter found in the answer")
    correct = set(chosen) == set(gold_letters.upper())
    return Verdict(correct, "letter", chosen, None, f"chose {chosen}, gold {gold_letters}")
