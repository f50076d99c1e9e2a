"""Agreement between two evaluators scoring the same turns: the KIEval paper's evaluator-bias check.

Correlations say whether two evaluators rank turns alike; Cohen's kappa (unweighted and quadratic)
says whether they give the same ordinal scores beyond chance.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats


def agreement(first: Sequence[float], second: Sequence[float]) -> dict[str, Any]:
    """Pearson, Spearman, Kendall-tau (with p-values) and Cohen's kappa over paired scores."""
    if len(first) != len(second):
        raise ValueError(f"paired scores differ in length: {len(first)} vs {len(second)}")
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    out: dict[str, Any] = {"n": len(a), "exact_agreement": float(np.mean(a == b)) if len(a) else None}
    constant = len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0
    for name, test in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)):
        if constant:  # a correlation with a constant series is undefined, not 0
            out[name] = {"r": None, "p": None}
        else:
            result = test(a, b)
            out[name] = {"r": float(result[0]), "p": float(result[1])}
    out["kappa"] = cohen_kappa(a, b)
    out["kappa_quadratic"] = cohen_kappa(a, b, weights="quadratic")
    return out


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
