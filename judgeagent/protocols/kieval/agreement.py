"""Agreement between two evaluators scoring the same turns: the KIEval paper's evaluator-bias check.

Correlations say whether two evaluators rank turns alike; Cohen's kappa (unweighted and quadratic)
says whether they give the same ordinal scores beyond chance.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import numpy as np
from scipy import stats


class Correlation(TypedDict):
    r: float | None
    p: float | None


class Agreement(TypedDict):
    """Two evaluators' agreement over `n` paired scores (None where undefined: no pairs, a constant series)."""

    n: int
    exact_agreement: float | None
    pearson: Correlation
    spearman: Correlation
    kendall: Correlation
    kappa: float | None
    kappa_quadratic: float | None


def agreement(first: Sequence[float], second: Sequence[float]) -> Agreement:
    """Pearson, Spearman, Kendall-tau (with p-values) and Cohen's kappa over paired scores."""
    if len(first) != len(second):
        raise ValueError(f"paired scores differ in length: {len(first)} vs {len(second)}")
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    constant = len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0
    found: dict[str, Correlation] = {}
    for name, test in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        if constant:  # a correlation with a constant series is undefined, not 0
            found[name] = {"r": None, "p": None}
        else:
            result = test(a, b)
            found[name] = {"r": float(result[0]), "p": float(result[1])}
    return {"n": len(a), "exact_agreement": float(np.mean(a == b)) if len(a) else None,
            "pearson": found["pearson"], "spearman": found["spearman"], "kendall": found["kendall"],
            "kappa": cohen_kappa(a, b), "kappa_quadratic": cohen_kappa(a, b, weights="quadratic")}


def cohen_kappa(first: Sequence[float], second: Sequence[float], weights: str | None = None) -> float | None:
    """Cohen's kappa over the categories either rater used; `weights="quadratic"` for ordinal scores.

    None when it is undefined (no pairs, or chance agreement is already perfect)."""
    a, b = np.asarray(first), np.asarray(second)
    if len(a) == 0:
        return None
    labels = np.unique(np.concatenate([a, b]))
    index = {v: i for i, v in enumerate(labels)}
    k = len(labels)
    observed = np.zeros((k, k))
    for x, y in zip(a, b):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    if weights == "quadratic":
        grid = np.subtract.outer(labels.astype(float), labels.astype(float)) ** 2
        disagreement = grid / grid.max() if grid.max() else grid
    else:
        disagreement = 1.0 - np.eye(k)
    chance = float((disagreement * expected).sum())
    if chance == 0:
        return None
    return 1.0 - float((disagreement * observed).sum()) / chance
