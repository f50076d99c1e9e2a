"""DynaEval's stability condition (Section 2.2, Condition 2): repeat each game independently. The paper
repeats a fixed number of times (10 public goods games per mode, Section 3.1), all at once here; or, as
judgeagent's stopping rule, repetitions come in waves and after each every player's (asymmetric tasks: every
model x role cell's) mean score is checked: stop when each 95% interval half-width is below epsilon, or at
max_runs. Seats are shuffled per repetition with the seed, so no model keeps a seat."""
from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import permutations

from ...metrics import MeanInterval, converged, mean_interval
from .rows import GameRow


def symmetric_cast(seats: Sequence[str], players: Sequence[str], seed: int, repetition: int) -> tuple[tuple[str, str], ...]:
    """Seat -> player for one repetition: a seeded shuffle (the same for the same seed and repetition)."""
    order = list(players)
    random.Random(f"{seed}:{repetition}").shuffle(order)
    return tuple(zip(seats, order))


def asymmetric_casts(roles: Sequence[str], players: Sequence[str]) -> list[tuple[tuple[str, str], ...]]:
    """Every assignment of distinct players to the roles (or seats): each model plays each role with each
    partner; for two seats, every ordered pair (idiom solitaire's pairwise play, both orders)."""
    return [tuple(zip(roles, chosen)) for chosen in permutations(players, len(roles))]


def cells(rows: Sequence[GameRow], symmetric: bool) -> dict[str, list[float]]:
    """The scores convergence is judged on: per player (symmetric), per `player/role` (asymmetric)."""
    out: dict[str, list[float]] = {}
    for row in rows:
        for seat, player in row["cast"].items():
            key = player if symmetric else f"{player}/{seat}"
            values = out.setdefault(key, [])
            if row["scores"][seat] is not None:
                values.append(row["scores"][seat])
    return out


def repetitions_done(rows: Sequence[GameRow]) -> int:
    return 1 + max((r["repetition"] for r in rows), default=-1)


def next_wave(rows: Sequence[GameRow], symmetric: bool, *, epsilon: float, min_runs: int, max_runs: int,
              wave: int, fixed: bool = False) -> range:
    """The repetitions to run next (empty: stop). `rows` hold every game of the repetitions done; `fixed`:
    all max_runs repetitions in one wave, whatever the scores."""
    done = repetitions_done(rows)
    if fixed:
        return range(done, max_runs)
    if done == 0:
        return range(min(min_runs, max_runs))
    if done >= max_runs or converged(cells(rows, symmetric), epsilon, min_runs):
        return range(done, done)
    return range(done, min(done + wave, max_runs))


def estimates(rows: Sequence[GameRow], symmetric: bool) -> dict[str, MeanInterval]:
    """Mean, 95% interval and count per cell."""
    return {key: mean_interval(values) for key, values in sorted(cells(rows, symmetric).items())}


def running(rows: Sequence[GameRow], symmetric: bool) -> list[dict[str, float | None]]:
    """Each cell's mean after each repetition (convergence at a glance)."""
    out = []
    for r in range(repetitions_done(rows)):
        upto = [row for row in rows if row["repetition"] <= r]
        entry: dict[str, float | None] = {"repetition": r + 1}
        for key, stats in estimates(upto, symmetric).items():
            entry[key] = stats["mean"]
        out.append(entry)
    return out
