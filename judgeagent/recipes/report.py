"""reproduce.md: the paper's rows beside ours, our figures with their n and 95% intervals, the models and options
run, and the judge's calibration, with a warning above the table when a figure rests on a judge that did not pass."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..grading.calibration import unvetted, wilson
from .catalogue import Column, Recipe


class Figure(NamedTuple):
    """One of our figures in the paper's unit, with what it is over."""

    column: Column
    model: str
    value: float | None
    interval: list[float] | None
    n: int | None


def seats(recipe: Recipe, summary: Mapping[str, Any], ours: str) -> list[tuple[str, str]]:
    """(model, seat) per row of ours: DynaEval's figures are per seat (each model under evaluation), else one row."""
    pub = recipe.published
    players = summary.get("players") if pub and any("{seat}" in (c.ours or "") for c in pub.columns) else None
    if isinstance(players, Mapping):
        return [(str(p.get("model", s)), s) for s, p in players.items()]
    return [(ours, "")]


def value_at(summary: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path; a key may hold dots itself (DynaEval's seats: `players.1`)."""
    node: Any = summary
    parts, i = path.split("."), 0
    while i < len(parts):
        if not isinstance(node, Mapping):
            return None
        key = next((".".join(parts[i:j]) for j in range(len(parts), i, -1) if ".".join(parts[i:j]) in node), None)
        if key is None:
            return None
        node, i = node[key], i + len(key.split("."))
    return node


def figures(recipe: Recipe, summary: Mapping[str, Any], ours: str) -> list[Figure]:
    """Every published column's figure of ours, per seat, scaled to the paper's unit."""
    def at(path: str | None, seat: str) -> Any:
        return None if path is None else value_at(summary, path.replace("{seat}", seat))

    out = []
    for model, seat in seats(recipe, summary, ours):
        for c in recipe.published.columns if recipe.published else ():
            value, n = at(c.ours, seat), at(c.n, seat)
            value = value if isinstance(value, (int, float)) else None
            n = n if isinstance(n, int) else None
            out.append(Figure(c, model, None if value is None else value * c.scale,
                              _interval(c, value, n, at(c.interval if c.interval != "wilson" else None, seat)), n))
    return out


def _interval(column: Column, value: float | None, n: int | None, given: Any) -> list[float] | None:
    """The figure's 95% interval in the paper's unit: the summary's own, or Wilson's for a share of n items
    (only when value x n is a whole count: a mean of graded scores is no share)."""
    if column.interval == "wilson" and value is not None and n:
        k = value * n
        return [x * column.scale for x in wilson(round(k), n)] if abs(k - round(k)) < 1e-6 else None
    if isinstance(given, (list, tuple)) and len(given) == 2 and all(isinstance(x, (int, float)) for x in given):
        return [x * column.scale for x in given]
    return None


def figures_table(found: list[Figure]) -> str:
    """Our figures, each with its 95% interval and n, and whether it rests on the judge."""
    if not found:
        return ""
    rows = "".join(f"| {f.column.name} | {f.model} | {_fmt(f.value)} | "
                   f"{'–' if f.interval is None else f'[{_fmt(f.interval[0])}, {_fmt(f.interval[1])}]'} | "
                   f"{'–' if f.n is None else f.n} | {'yes' if f.column.judged else 'no'} |\n" for f in found)
    return ("\nOur figures, each with its 95% interval and the n it is over (– where the run gives none):\n\n"
            "| figure | model | ours | 95% interval | n | rests on the judge |\n|---|---|---|---|---|---|\n" + rows)


def calibration(recipe: Recipe, summary: Mapping[str, Any]) -> tuple[str, str]:
    """(the warning above the table, empty when none is due; the calibration line under it)."""
    cal = summary.get("judge_calibration")
    judged = [c.name for c in recipe.published.columns if c.judged] if recipe.published else []
    if not isinstance(cal, Mapping):
        line = "\nJudge calibration: none (this protocol has no calibration step).\n"
        return (_warning(judged, "rated by a judge (referee) this protocol does not calibrate") if judged else "",
                line)
    intervals = cal.get("intervals") or {}
    measured = ", ".join(f"{name} [{100 * iv[0]:.0f}%, {100 * iv[1]:.0f}%]" for name, key in
                         (("accuracy", "accuracy"), ("false-positive rate", "fpr")) if len(iv := intervals.get(key) or []) == 2)
    line = (f"\nJudge calibration: {cal.get('note')} (policy `{cal.get('policy')}`"
            + (f"; 95% intervals: {measured}" if measured else "")
            + f"; the judge was {'used' if cal.get('used') else 'not used'}).\n")
    mark = unvetted(dict(cal))
    return (_warning(judged, mark) if mark and judged else ""), line


def _warning(judged: list[str], why: str) -> str:
    return (f"> **Warning: not a measurement.** {', '.join(judged)} {'is' if len(judged) == 1 else 'are'} {why}: "
            "read them as the judge's opinion.\n\n")


def run_section(models: Mapping[str, str], options: Mapping[str, Any], items: int, recipe: Recipe) -> str:
    """The models and options this run used, and its item count beside the paper's."""
    paper = f" (the paper: {recipe.items})" if recipe.items else ""
    return ("\nThis run:\n" + f"- items: {items or 'none (no dataset)'}{paper}\n"
            + "- models: " + ", ".join(f"{k}={v}" for k, v in models.items()) + "\n"
            + "- options: " + (", ".join(f"`{k}={v}`" for k, v in options.items()) or "none") + "\n")


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"
