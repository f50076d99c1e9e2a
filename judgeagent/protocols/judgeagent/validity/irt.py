"""An ability estimate with its standard error: a Rasch / 2PL item-response model over a run's questions.

Items are the difficulty levels (easy, medium, hard, unlabelled), each with a difficulty `b` and a
discrimination `a`; P(correct | theta) = 1 / (1 + exp(-a (theta - b))). The estimate is EAP (the
posterior mean under a standard normal prior, by quadrature) with the posterior standard deviation as
its standard error: finite for a target that answers everything right or everything wrong, where the
maximum-likelihood estimate runs off to infinity. `mle` gives the Newton MLE with the Fisher-information
SE for comparison. numpy only: `girth` (no SEs, last release 2021) and `py-irt` (pyro, torch, pandas)
were checked on PyPI and do not fit a library that must stay light.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypedDict

import numpy as np

if TYPE_CHECKING:
    from ..records import QuestionRecord

LEVELS = ("easy", "medium", "hard")


class Item(NamedTuple):
    b: float
    """Difficulty: the ability at which P(correct) = 1/2."""
    a: float = 1.0
    """Discrimination (1: Rasch)."""


DEFAULT_ITEMS: dict[str | None, Item] = {"easy": Item(-1.0), "medium": Item(0.0), "hard": Item(1.0), None: Item(0.0)}
"""Fixed defaults when no calibration exists: one logit between levels; unlabelled base questions medium."""
_GRID = np.linspace(-6.0, 6.0, 241)
_PRIOR = np.exp(-0.5 * _GRID ** 2)


@dataclass(frozen=True)
class Ability:
    theta: float
    se: float
    n: int
    """Responses the estimate rests on."""

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval, theta +- 1.96 SE."""
        return self.theta - 1.96 * self.se, self.theta + 1.96 * self.se

    def to_dict(self) -> dict[str, float]:
        low, high = self.interval
        return {"theta": self.theta, "se": self.se, "n": self.n, "low": low, "high": high}


def probability(theta: np.ndarray | float, item: Item) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-item.a * (np.asarray(theta) - item.b)))


def estimate(responses: Sequence[tuple[bool, Item]], method: str = "eap") -> Ability:
    """The ability behind `responses` (correct?, item). With none, the prior: 0 +- 1."""
    if method == "mle":
        return _mle(responses)
    log_post = np.log(_PRIOR)
    for correct, item in responses:
        p = np.clip(probability(_GRID, item), 1e-12, 1 - 1e-12)
        log_post = log_post + np.log(p if correct else 1 - p)
    w = np.exp(log_post - log_post.max())
    w /= w.sum()
    theta = float(w @ _GRID)
    return Ability(theta, float(np.sqrt(w @ (_GRID - theta) ** 2)), len(responses))


def _mle(responses: Sequence[tuple[bool, Item]]) -> Ability:
    """Newton-Raphson on the log-likelihood; +-inf with infinite SE for all-right or all-wrong."""
    right = sum(1 for c, _ in responses if c)
    if right in (0, len(responses)):
        return Ability(float("inf") if right else float("-inf"), float("inf"), len(responses))
    theta = 0.0
    for _ in range(100):
        grad = sum(it.a * (float(c) - float(probability(theta, it))) for c, it in responses)
        info = sum(it.a ** 2 * float(probability(theta, it) * (1 - probability(theta, it))) for _, it in responses)
        step = grad / info
        theta = float(np.clip(theta + step, -10, 10))
        if abs(step) < 1e-8:
            break
    return Ability(theta, float(1 / np.sqrt(info)), len(responses))


def responses(records: Iterable[QuestionRecord],
              items: Mapping[str | None, Item] = DEFAULT_ITEMS) -> list[tuple[bool, Item]]:
    """(correct, item) per record; a level missing from `items` counts as unlabelled."""
    return [(r.correct, items.get(r.difficulty, items[None])) for r in records]


class RunAbility(TypedDict):
    """A run's ability: over all its questions, per batch, and the level difficulties it was measured with."""

    overall: Ability
    batches: dict[int, Ability]
    items: dict[str, dict[str, float]]


def run_ability(records: Sequence[QuestionRecord], items: Mapping[str | None, Item] = DEFAULT_ITEMS,
                method: str = "eap") -> RunAbility:
    """Overall and per-batch ability of one run's records (every question: base and extension)."""
    batches: dict[int, list[QuestionRecord]] = {}
    for r in records:
        batches.setdefault(r.batch, []).append(r)
    return {"overall": estimate(responses(records, items), method),
            "batches": {b: estimate(responses(rs, items), method) for b, rs in sorted(batches.items())},
            "items": {str(k): v._asdict() for k, v in items.items()}}


def calibrate(runs: Sequence[Sequence[QuestionRecord]], iterations: int = 50) -> dict[str | None, Item]:
    """Rasch level difficulties fitted jointly over several runs (targets): alternate each run's EAP
    ability and each level's maximum-likelihood difficulty given the abilities; abilities are centred
    (mean 0) so that the scale is fixed. Levels never asked keep their defaults."""
    items = dict(DEFAULT_ITEMS)
    levels = {r.difficulty for rs in runs for r in rs} & set(items)
    for _ in range(iterations):
        thetas = np.array([estimate(responses(rs, items)).theta for rs in runs])
        thetas -= thetas.mean()
        for level in levels:
            data = [(t, r.correct) for t, rs in zip(thetas, runs) for r in rs if r.difficulty == level]
            items[level] = Item(_difficulty(data, items[level].b))
    return items


def _difficulty(data: list[tuple[float, bool]], b: float) -> float:
    """The Rasch difficulty maximising the likelihood of (ability, correct) pairs, bounded to +-6."""
    for _ in range(50):
        p = np.array([float(probability(t, Item(b))) for t, _ in data])
        grad = float(sum(p) - sum(c for _, c in data))  # d logL / d b
        info = float(np.sum(p * (1 - p))) or 1e-9
        b = float(np.clip(b + grad / info, -6.0, 6.0))
        if abs(grad / info) < 1e-8:
            break
    return b


def information(theta: float, item: Item) -> float:
    """Fisher information of one item at `theta`: a^2 p (1 - p)."""
    p = float(probability(theta, item))
    return item.a ** 2 * p * (1 - p)


def most_informative(ability: Ability, items: Mapping[str | None, Item] = DEFAULT_ITEMS,
                     levels: Sequence[str] = LEVELS) -> str:
    """The level whose item tells most about the current estimate (maximum information): the rule an
    `--adaptive irt` interview uses instead of the tier thresholds."""
    return max(levels, key=lambda level: (information(ability.theta, items[level]), -abs(items[level].b)))
