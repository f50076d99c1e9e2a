"""Recipes: the papers' headline experiments, runnable with their settings (`judgeagent reproduce NAME`).

The catalogue (`catalogue.py`) is the one source of `judgeagent recipes` and of docs/reproduce.md
(`scripts/reproduce_reference.py` writes it; tests/test_recipes.py checks they match). Running a recipe is
the CLI's (it needs the protocol catalogue); this package picks the items, estimates the calls and puts our
numbers beside the paper's row.
"""
from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import JudgeAgentError
from .catalogue import RECIPES, Calls, Column, Published, Recipe
from .report import value_at

__all__ = ["RECIPES", "Calls", "Column", "Published", "Recipe", "beside_paper", "check_paper_row", "estimate_calls", "get_recipe",
           "render_catalogue", "render_reproduce", "select_items", "translation_sources", "typical_calls", "value_at"]


def get_recipe(name: str) -> Recipe:
    try:
        return RECIPES[name]
    except KeyError:
        raise JudgeAgentError(f"unknown recipe {name!r}; judgeagent recipes lists them "
                              f"({', '.join(RECIPES)})") from None


def select_items(recipe: Recipe, items: Sequence[Any], limit: int | None = None, seed: int = 0) -> list[Any]:
    """The paper's selection of `items` (`all`, a seeded `sample`, or `stratified:<meta key>`: equal shares
    of each value, as Interviewer's 100 MATH queries over 5 levels), then the first `limit` (a smaller run)."""
    count = recipe.items if recipe.items is not None and recipe.items < len(items) else None
    chosen = list(items)
    if count is not None and recipe.selection == "sample":
        keep = sorted(random.Random(seed).sample(range(len(items)), count))
        chosen = [items[i] for i in keep]
    elif count is not None and recipe.selection.startswith("stratified:"):
        chosen = _stratified(items, recipe.selection.split(":", 1)[1], count, seed)
    if limit is not None:
        chosen = chosen[:limit] if recipe.selection == "all" or not recipe.selection.startswith("stratified:") \
            else _stratified(chosen, recipe.selection.split(":", 1)[1], limit, seed)
    return chosen


def _stratified(items: Sequence[Any], key: str, count: int, seed: int) -> list[Any]:
    groups: dict[Any, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        groups[item.meta.get(key)].append(index)
    rng = random.Random(seed)
    for indices in groups.values():
        rng.shuffle(indices)
    keep: list[int] = []
    ordered = sorted(groups, key=str)
    while len(keep) < min(count, len(items)):  # one from each group in turn: shares differ by one at most
        for value in ordered:
            if groups[value] and len(keep) < count:
                keep.append(groups[value].pop())
    return [items[i] for i in sorted(keep)]


def estimate_calls(recipe: Recipe, items: int, students: int = 1,
                   options: Mapping[str, Any] | None = None) -> tuple[int, int]:
    """Model calls a run of `items` items would make (low, high), from the recipe's per-item counts and, where it
    calibrates a judge, the calls its judge_policy asks (`options`: the run's, overrides included)."""
    low, high = _calls(recipe, items, students)
    extra = _calibration_calls(recipe, {**recipe.options, **(options or {})})
    return low + extra[0], high + extra[1]


def typical_calls(recipe: Recipe, items: int, options: Mapping[str, Any] | None = None) -> int | None:
    """The calls of a run of `items` items where every stage runs once as planned (`Calls.typical_per_item`), with
    every calibration pair its judge policy may ask; None where the recipe gives no typical figure."""
    if recipe.calls.typical_per_item is None:
        return None
    return round(recipe.calls.typical_per_item * items) + _calibration_calls(recipe, {**recipe.options,
                                                                                       **(options or {})})[1]


def _calibration_calls(recipe: Recipe, options: Mapping[str, Any]) -> tuple[int, int]:
    if not recipe.calls.calibration:
        return 0, 0
    from ..config import CheckerConfig

    pairs = CheckerConfig().calibration_pairs
    policy = str(options.get("judge_policy", options.get("checker.judge_policy", "calibrated")))
    return {"off": (0, 0), "trust": (pairs, pairs)}.get(policy, (0, pairs))


def _calls(recipe: Recipe, items: int, students: int) -> tuple[int, int]:
    c = recipe.calls
    per = max(items, 1) if recipe.items is None and not recipe.data_format else items
    pairs = students * (students - 1)
    if recipe.protocol == "dynaeval" and recipe.options.get("task") == "code":  # a game per problem and pair
        return (c.fixed[0] + pairs * items * c.per_pair[0], c.fixed[1] + pairs * items * c.per_pair[1])
    segments = recipe.extra.get("paragraph_segments")
    if segments:  # DynaEval translation: one game per paragraph (of `segments` items, `items` at most) and pair
        paragraphs = min(-(-items // int(segments)), int(recipe.options.get("items", 20)))
        return (c.fixed[0] + pairs * paragraphs * c.per_pair[0], c.fixed[1] + pairs * paragraphs * c.per_pair[1])
    low = c.fixed[0] + items * c.per_item[0] + per * students * c.per_student[0] + pairs * c.per_pair[0] * c.runs[0]
    high = c.fixed[1] + items * c.per_item[1] + per * students * c.per_student[1] + pairs * c.per_pair[1] * c.runs[1]
    return round(low), round(high)


def translation_sources(items: Sequence[Any], segments: int) -> list[dict[str, str]]:
    """DynaEval's paragraphs from IWSLT segments: `segments` consecutive ones of a talk joined, source and
    reference alike (Chinese and Japanese references joined without spaces)."""
    talks: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        talks[str(item.meta.get("docid"))].append(item)
    out = []
    for docid, segs in talks.items():
        glue = "" if segs[0].meta.get("target_language") in ("Chinese", "Japanese") else " "
        for start in range(0, len(segs), segments):
            chunk = segs[start:start + segments]
            out.append({"id": f"{docid}-{chunk[0].meta.get('seg')}", "text": " ".join(i.question for i in chunk),
                        "reference": glue.join(i.gold for i in chunk)})
    return out


def beside_paper(recipe: Recipe, summary: Mapping[str, Any], ours: str, paper_model: str | None) -> str:
    """A markdown table: the paper's row for `paper_model` (every published row when None) above ours, column by
    column."""
    from .report import figures

    if recipe.published is None:
        return "The paper prints no table for this experiment: nothing to put our numbers beside.\n"
    pub = recipe.published
    head = "| | " + " | ".join(c.name for c in pub.columns) + " |\n|---|" + "---|" * len(pub.columns) + "\n"
    check_paper_row(recipe, paper_model)
    lines = [f"| paper: {model} ({pub.table}) | " + " | ".join(_fmt(v) for v in values) + " |"
             for model, values in pub.rows.items() if paper_model in (None, model)]
    found = figures(recipe, summary, ours)
    for start in range(0, len(found), len(pub.columns)):  # one row of ours per seat
        row = found[start:start + len(pub.columns)]
        lines.append(f"| ours: {row[0].model} | " + " | ".join(_fmt(f.value) for f in row) + " |")
    notes = [f"- {c.name}: {c.note}" for c in pub.columns if c.note]
    return head + "\n".join(lines) + "\n" + ("\n" + "\n".join(notes) + "\n" if notes else "")


def check_paper_row(recipe: Recipe, paper_model: str | None) -> None:
    """A `--paper-row` the recipe's published table has (checked before any call)."""
    pub = recipe.published
    if paper_model is None:
        return
    if pub is None:
        raise JudgeAgentError(f"recipe {recipe.name} has no published table: drop --paper-row")
    if paper_model not in pub.rows:
        raise JudgeAgentError(f"{pub.table} of {recipe.paper} has no row {paper_model!r}; its rows: "
                              f"{', '.join(pub.rows)}")


def render_reproduce(recipe: Recipe, summary: Mapping[str, Any], ours: str, paper_model: str | None,
                     models: Mapping[str, str], options: Mapping[str, Any], items: int) -> str:
    """reproduce.md's body: a warning where a figure rests on an unvetted judge, the paper's rows beside ours,
    our figures with n and 95% intervals, the judge's calibration, and the models and options run."""
    from .report import calibration, figures, figures_table, run_section

    warning, calibrated = calibration(recipe, summary)
    return (f"## {recipe.name}\n\n{recipe.experiment}\n\n{warning}" + beside_paper(recipe, summary, ours, paper_model)
            + figures_table(figures(recipe, summary, ours)) + calibrated + run_section(models, options, items, recipe))


def _many(recipe: Recipe) -> int:
    """Models in the recipe's role of several (students, players) as the paper ran it."""
    return max([len(m.split(",")) for m in recipe.roles.values() if m != "{target}"]
               + [len(recipe.extra.get("players", ()))] + [1])


def whole_run_items(recipe: Recipe) -> int:
    """The items of a run at the paper's size: the recipe's count, else all of the paper's data (0: no data)."""
    return recipe.items or recipe.data_items or 0


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def render_catalogue(recipe: Recipe | None = None) -> str:
    """`judgeagent recipes`: every recipe (or one) with what it needs."""
    chosen = [recipe] if recipe else list(RECIPES.values())
    blocks = []
    for r in chosen:
        roles = ", ".join(f"{k}={v}" for k, v in r.roles.items())
        opts = ", ".join(f"{k}={v}" for k, v in r.options.items())
        items = "all" if r.items is None else f"{r.items} ({r.selection})"
        low, high = estimate_calls(r, whole_run_items(r), students=_many(r))
        lines = [f"{r.name}: {r.paper}", f"  experiment: {r.experiment}", f"  protocol: {r.protocol} ({opts})",
                 f"  roles (the paper's models): {roles}", f"  data: {r.data}", f"  items: {items}",
                 f"  expected calls: {low}-{high}" + (f" (~{r.calls.tokens_per_call[0]}+{r.calls.tokens_per_call[1]} "
                                                      "tokens a call, from the paper)" if r.calls.tokens_per_call else ""),
                 f"  published: {r.published.table + ', rows: ' + ', '.join(r.published.rows) if r.published else 'none'}"]
        lines += [f"  needs: {n}" for n in r.needs]
        lines += [f"  missing here: {m}" for m in r.missing]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
