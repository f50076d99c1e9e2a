"""Validation metrics (paper Algorithm 2): ACC1, ACC2, CR, CtE, conditional rates, intervals, McNemar."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

Pair = tuple[bool, bool]
"""(correct before the suggestions, correct after)."""


class Rates(TypedDict):
    """`rates`: counts over the N questions, the paper's rates over N, the conditional ones, McNemar's p."""

    n: int
    right_before: int
    right_after: int
    wrong_to_right: int
    right_to_wrong: int
    acc1: float | None
    acc2: float | None
    cr: float | None
    cte: float | None
    delta: float | None
    cr_given_wrong: float | None
    cte_given_right: float | None
    mcnemar_p: float


def rates(pairs: Sequence[Pair]) -> Rates:
    """The paper's rates, all over N (so acc2 - acc1 == cr - cte exactly), plus the conditional ones.

    `cr_given_wrong` is CR over the initially wrong, `cte_given_right` CtE over the initially right;
    rates with an empty denominator are None.
    """
    n = len(pairs)
    right1 = sum(a for a, _ in pairs)
    right2 = sum(b for _, b in pairs)
    fixed = sum(1 for a, b in pairs if not a and b)
    broken = sum(1 for a, b in pairs if a and not b)
    share = (lambda k, d: k / d if d else None)  # noqa: E731
    return Rates(
        n=n, right_before=right1, right_after=right2, wrong_to_right=fixed, right_to_wrong=broken,
        acc1=share(right1, n), acc2=share(right2, n), cr=share(fixed, n), cte=share(broken, n),
        delta=share(fixed - broken, n),
        cr_given_wrong=share(fixed, n - right1), cte_given_right=share(broken, right1),
        mcnemar_p=mcnemar_exact(fixed, broken),
    )


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar test: the binomial test of b flips one way among b + c, p = 1/2."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def bootstrap(pairs: Sequence[Pair], resamples: int = 2000, seed: int = 0,
              level: float = 0.95) -> dict[str, tuple[float, float] | None]:
    """Percentile intervals for acc1, acc2, cr, cte and delta, resampling questions with replacement."""
    keys = ("acc1", "acc2", "cr", "cte", "delta")
    if not pairs:
        return {k: None for k in keys}
    arr = np.array(pairs, dtype=bool)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(arr), size=(resamples, len(arr)))
    a, b = arr[idx, 0], arr[idx, 1]
    stats = {
        "acc1": a.mean(1), "acc2": b.mean(1), "cr": (~a & b).mean(1), "cte": (a & ~b).mean(1),
        "delta": (~a & b).mean(1) - (a & ~b).mean(1),
    }
    lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    return {k: (float(np.percentile(v, lo)), float(np.percentile(v, hi))) for k, v in stats.items()}


def breakdown(rows: Sequence[dict[str, Any]], key: str) -> dict[str, Rates]:
    """`rates` per value of `key` (e.g. difficulty, question type) over rows with `before`/`after`."""
    groups: dict[str, list[Pair]] = {}
    for r in rows:
        groups.setdefault(str(r.get(key) or "unlabelled"), []).append((r["before"], r["after"]))
    return {k: rates(v) for k, v in sorted(groups.items())}


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    """95% Wilson score interval of k successes in n (good at small n and at rates near 0 or 1)."""
    if n == 0:
        return []
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


class MeanInterval(TypedDict):
    """A mean, the half-width of its 95% interval and the interval (None below 2 values), over `n` values."""

    n: int
    mean: float | None
    half_width: float | None
    interval: list[float] | None


def mean_interval(values: Sequence[float], z: float = 1.96) -> MeanInterval:
    """Mean and its normal-approximation 95% interval (sample standard deviation; None below 2 values)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "half_width": None, "interval": None}
    mean = float(np.mean(values))
    if n < 2:
        return {"n": 1, "mean": mean, "half_width": None, "interval": None}
    half = z * float(np.std(values, ddof=1)) / math.sqrt(n)
    return {"n": n, "mean": mean, "half_width": half, "interval": [mean - half, mean + half]}


def converged(scores: dict[str, Sequence[float]], epsilon: float, min_runs: int = 3) -> bool:
    """DynaEval's stability condition as a stopping rule: every player's mean score is known to within
    `epsilon` (95% interval half-width), after at least `min_runs` repetitions each."""
    for values in scores.values():
        summary = mean_interval(values)
        if summary["n"] < min_runs or summary["half_width"] is None or summary["half_width"] >= epsilon:
            return False
    return bool(scores)
