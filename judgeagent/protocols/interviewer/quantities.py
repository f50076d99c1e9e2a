"""Changed quantities with a gold recomputed by us, not taken from the interviewer.

The interviewer proposes the item with some numbers changed, an arithmetic formula over the ORIGINAL
question's numbers that gives the original gold, and the new gold. We accept the change only when
  - the modified question differs from the original in its numbers alone (same words, same number count),
    and at least one number changed;
  - the formula uses only the question's numbers (plus the unit constants in `CONSTANTS`) and +, -, *, /,
    parentheses, and reproduces the item's gold on the original numbers (at the gold's precision);
  - the formula, with each changed number replaced by its new value, gives a different gold in the
    original gold's format (a whole number stays whole, no sign change), and the interviewer's own new
    gold agrees with it.
The new gold is then the recomputed value: the interviewer's arithmetic is checked, never trusted. A
formula that reproduces the gold by coincidence is still possible; the protocol's self-check (the
interviewer solves the modified question in a separate call) catches many of those.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from ...benchmark import Item

# A number in a question or gold: 1,234.5 / 12 / 0.25 (not the digits inside a word like "COVID19").
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?![\w])")
GOLD = re.compile(r"^\s*(\$)?\s*(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\s*(%)?\s*\.?\s*$")
CONSTANTS = frozenset({1.0, 2.0, 100.0})  # halves, "one more", per cent: not numbers a question must state
_MAX_ABS = 1e15


class Rejected(ValueError):
    """Why a proposed quantity change is not used."""


@dataclass(frozen=True)
class GoldFormat:
    value: float
    decimals: int
    commas: bool
    dollar: bool
    percent: bool

    def write(self, value: float) -> str:
        text = f"{value:,.{self.decimals}f}" if self.commas else f"{value:.{self.decimals}f}"
        return ("$" if self.dollar else "") + text + ("%" if self.percent else "")


def gold_format(gold: str) -> GoldFormat | None:
    m = GOLD.match(gold)
    if not m:
        return None
    dollar, digits, percent = m.groups()
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return GoldFormat(float(digits.replace(",", "")), decimals, "," in digits, bool(dollar), bool(percent))


def values(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in NUMBER.findall(text)]


def skeleton(text: str) -> str:
    return " ".join(NUMBER.sub("#", text).split())


def eligibility(item: Item) -> str:
    """'' when the item allows a quantity change, else why not."""
    if item.is_choice:
        return "a multiple-choice item"
    if gold_format(item.gold) is None:
        return "the gold is not a number"
    if not values(item.question):
        return "the question states no number"
    return ""


def evaluate(formula: str) -> float:
    """A formula of numbers, + - * / and parentheses: nothing else is evaluated."""
    try:
        tree = ast.parse(formula.replace("×", "*").replace("÷", "/"), mode="eval")
    except SyntaxError as e:
        raise Rejected(f"the formula {formula!r} is not arithmetic") from e
    value = _eval(tree.body, formula)
    if not math.isfinite(value) or abs(value) > _MAX_ABS:
        raise Rejected(f"the formula {formula!r} gives no usable number")
    return value


def _eval(node: ast.AST, formula: str) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, formula)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        left, right = _eval(node.left, formula), _eval(node.right, formula)
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise Rejected(f"the formula {formula!r} divides by zero")
            return left / right
        return left + right if isinstance(node.op, ast.Add) else left - right if isinstance(node.op, ast.Sub) \
            else left * right
    raise Rejected(f"the formula {formula!r} uses more than numbers, + - * / and parentheses")


def literals(formula: str) -> list[float]:
    try:
        tree = ast.parse(formula.replace("×", "*").replace("÷", "/"), mode="eval")
    except SyntaxError as e:
        raise Rejected(f"the formula {formula!r} is not arithmetic") from e
    return [float(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, (int, float))]


def _same(a: float, b: float, decimals: int) -> bool:
    return round(a, decimals) == round(b, decimals) or math.isclose(a, b, rel_tol=1e-9)


@dataclass(frozen=True)
class Recomputed:
    question: str
    gold: str
    formula: str
    """The formula with the new numbers, as evaluated."""
    changed: dict[str, str]
    """Original number -> new number."""


def recompute(item: Item, question: str, formula: str, proposed_gold: str) -> Recomputed:
    """The checked change and its recomputed gold, or `Rejected` saying which check failed."""
    fmt = gold_format(item.gold)
    if fmt is None:
        raise Rejected("the gold is not a number")
    question = question.strip()
    if skeleton(question) != skeleton(item.question):
        raise Rejected("it changes more than the numbers")
    before, after = values(item.question), values(question)
    mapping: dict[float, set[float]] = {}
    for old, new in zip(before, after):
        mapping.setdefault(old, set()).add(new)
    changed = {old: next(iter(new)) for old, new in mapping.items() if new != {old}}
    if not changed:
        raise Rejected("no number changed (a copy of the original)")
    original = evaluate(formula)  # first: anything but arithmetic is refused before its numbers are read
    used = literals(formula)
    stated = set(before)
    strange = sorted({x for x in used if x not in stated and x not in CONSTANTS})
    if strange:
        raise Rejected(f"the formula uses numbers the question does not state ({', '.join(f'{x:g}' for x in strange)})")
    if not any(x in changed for x in used):
        raise Rejected("the formula does not use any changed number")
    ambiguous = sorted(x for x in used if len(mapping.get(x, ())) > 1)
    if ambiguous:
        raise Rejected(f"{ambiguous[0]:g} appears more than once and changed to different values")
    if not _same(original, fmt.value, fmt.decimals):
        raise Rejected(f"the formula gives {original:g} on the original numbers, not the gold {item.gold}")
    substituted = _substitute(formula, changed)
    new = evaluate(substituted)
    # An item whose gold is the formula's exact value (a count, a sum) must not need rounding after the change;
    # one whose gold is rounded ("round to the nearest whole number") is rounded the same way.
    exact = math.isclose(original, fmt.value, rel_tol=1e-9, abs_tol=1e-12)
    if exact and not math.isclose(new, round(new, fmt.decimals), rel_tol=1e-9, abs_tol=1e-12):
        raise Rejected(f"the recomputed gold {new:g} needs rounding, the original gold did not")
    if (new < 0) != (fmt.value < 0):
        raise Rejected(f"the recomputed gold {new:g} changes sign")
    if _same(new, fmt.value, fmt.decimals):
        raise Rejected("the recomputed gold equals the original gold")
    gold = fmt.write(round(new, fmt.decimals))
    theirs = gold_format(proposed_gold)
    if theirs is None or not _same(theirs.value, new, fmt.decimals):
        raise Rejected(f"the interviewer's new gold {proposed_gold!r} disagrees with the recomputed {gold}")
    return Recomputed(question, gold, substituted, {f"{k:g}": f"{v:g}" for k, v in changed.items()})


def _substitute(formula: str, changed: dict[float, float]) -> str:
    tree = ast.parse(formula.replace("×", "*").replace("÷", "/"), mode="eval")

    class Swap(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.AST:
            if isinstance(node.value, (int, float)) and float(node.value) in changed:
                new = changed[float(node.value)]
                return ast.copy_location(ast.Constant(int(new) if new.is_integer() else new), node)
            return node

    return ast.unparse(Swap().visit(tree))
