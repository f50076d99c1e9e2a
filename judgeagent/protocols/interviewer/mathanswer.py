"""MATH-style answers: the last `\\boxed{...}` of a reply, LaTeX written the same way, and equality that a
string compare misses (`\\dfrac{1}{2}`, `1/2`, `0.5`; `10,\\!080` and `10080`; `5^\\circ` and `5`).

The paper grades MATH (Hendrycks et al.) final answers; MATH solutions put the answer in `\\boxed{}` and write
one value many ways, so a reply is compared after both sides are put into one canonical form (Hendrycks et al.'s
usual normalisation: no dollars, `\\left`/`\\right`, spacing commands, units in `\\text{}`, degrees or
percent signs; `\\dfrac`/`\\tfrac` as `\\frac`, `\\frac12` braced) and, failing that, as numbers.
"""
from __future__ import annotations

import re
from fractions import Fraction

BOX = re.compile(r"\\(?:boxed|fbox)\s*")
_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}")
_SPACING = re.compile(r"\\[,;:! ]|\\quad|\\qquad")
_DEGREES = re.compile(r"\^\s*\{?\\circ\}?|°")
_FRAC_SHORT = re.compile(r"\\frac\s*(\d)\s*(\d)")  # \frac12
_FRAC_HALF = re.compile(r"\\frac\s*(\{[^{}]*\})\s*(\d)")  # \frac{1}2
_FRAC_FIRST = re.compile(r"\\frac\s*(\d)\s*(\{[^{}]*\})")  # \frac1{10}
_SQRT = re.compile(r"\\sqrt\s*(\d)")
_LHS = re.compile(r"^[a-zA-Z]\w{0,2}\s*=\s*")  # "x = 5", "k=3": the value is what counts
_UNIT_WORDS = re.compile(r"(?<=\d)\s*(?:units?|degrees?|cm|m|km|inches|inch|feet|ft|meters?|cents?|dollars?|"
                         r"hours?|minutes?|seconds?|days?|square units|sq units)\s*$")
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$")
_FRAC = re.compile(r"^([-+]?)\\frac\{([-+]?\d+(?:\.\d+)?)\}\{([-+]?\d+(?:\.\d+)?)\}$")
_SLASH = re.compile(r"^([-+]?\d+(?:\.\d+)?)/([-+]?\d+(?:\.\d+)?)$")


def last_boxed(text: str) -> str | None:
    """The content of the last `\\boxed{...}` (or `\\fbox{...}`), nested braces matched; `\\boxed 5` gives 5."""
    starts = [m for m in BOX.finditer(text)]
    for m in reversed(starts):
        i = m.end()
        if i < len(text) and text[i] == "{":
            depth = 0
            for j in range(i, len(text)):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    return text[i + 1:j].strip()
            continue  # unbalanced: try an earlier box
        word = re.match(r"[^\s$]+", text[i:])
        if word:
            return word.group(0)
    return None


def final_answer(reply: str, first_line: str) -> str:
    """What a MATH reply answers: its last box when it has one, else `first_line` (the protocol's reading)."""
    boxed = last_boxed(reply)
    return first_line if boxed is None else boxed


def normalise(text: str) -> str:
    """One canonical string for a MATH answer (spaces removed; see the module's docstring for each step)."""
    s = text.strip().replace("\n", " ")
    boxed = last_boxed(s)
    s = boxed if boxed is not None else s
    s = s.replace("\\$", "").replace("$", "").replace("\\left", "").replace("\\right", "").replace("\\displaystyle", "")
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("\\\\", "\\")
    s = _SPACING.sub("", s)
    s = _DEGREES.sub("", s).replace("\\%", "").replace("%", "")
    # a unit written as \text{ cm} after the value goes; a word answer written as \text{(C)} keeps its word
    s = re.sub(r"(?<=[\d}])\s*\\(?:text|mbox|mathrm)\s*\{\s*[a-zA-Z ]+\}\s*$", "", s)
    s = _TEXT.sub(r"\1", s)
    s = _UNIT_WORDS.sub("", s).strip().rstrip(".").strip()
    s = _LHS.sub("", s) if "=" in s and s.count("=") == 1 else s
    s = _FRAC_SHORT.sub(r"\\frac{\1}{\2}", s)
    s = _FRAC_HALF.sub(r"\\frac\1{\2}", s)
    s = _FRAC_FIRST.sub(r"\\frac{\1}\2", s)
    s = _SQRT.sub(r"\\sqrt{\1}", s)
    s = s.replace(" ", "")
    if re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", s):  # 10,080: a thousands separator, not a list
        s = s.replace(",", "")
    if s.startswith("."):
        s = "0" + s
    if re.fullmatch(r"[-+]?\d+\.0*", s):  # 12.0 is 12
        s = s.split(".")[0]
    return s


def value(text: str) -> Fraction | None:
    """The exact number a normalised answer writes (an integer, a decimal, `\\frac{a}{b}`, `a/b`), else None."""
    s = normalise(text)
    try:
        if _NUMBER.match(s):
            return Fraction(s)
        m = _FRAC.match(s) or _SLASH.match(s)
        if m:
            sign, num, den = ("", *m.groups()) if len(m.groups()) == 2 else m.groups()
            if Fraction(den) == 0:
                return None
            return (-1 if sign == "-" else 1) * Fraction(num) / Fraction(den)
    except (ValueError, ZeroDivisionError):
        return None
    return None


def equal(answer: str, gold: str) -> bool:
    """The same MATH answer: one canonical string, or the same exact number."""
    a, g = normalise(answer), normalise(gold)
    if not a:
        return False
    if a == g:
        return True
    x, y = value(a), value(g)
    return x is not None and y is not None and x == y


def looks_like_math(gold: str) -> bool:
    """A gold written in LaTeX (MATH's golds: `\\frac{1}{2}`, `$5$`, `\\sqrt{3}`, `x^2`)."""
    return bool(re.search(r"\\[a-zA-Z]+|\$|\^|_\{|\{", gold))
