"""Usage and cost per role: calls, cache hits, failures, tokens, dollars from the configured prices."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from pydantic import BaseModel

from ..errors import BudgetExceeded
from .base import Completion, Message
from .spec import Prices


class _Counts(TypedDict, total=False):
    calls: int
    cache_hits: int
    failures: int
    input_tokens: int
    output_tokens: int
    cost: float


class UsageLine(_Counts, total=False):
    """A role's usage as summaries and reports show it (`RoleUsage.to_dict`; `served` only once known)."""

    served: list[str]


class UsageRow(_Counts, total=False):
    """One call's accounting as a run's usage.jsonl keeps it: its role and what it adds to the role's line (the
    fields it does not add are left out; `served` only where the role had not yet answered with that model)."""

    role: str
    served: str


_COUNTS = tuple(name for name in _Counts.__annotations__ if name != "cost")
"""The whole numbers a row adds to its role's line."""


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What makes a usage.jsonl row unusable (None: nothing): a hand-edited or damaged line is named, not a
    traceback mid-resume."""
    if not isinstance(row.get("role"), str):
        return "field 'role' should be text"
    for name in _COUNTS:
        value = row.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool):
            return f"field {name!r} should be a whole number"
    cost = row.get("cost", 0.0)
    if not isinstance(cost, (int, float)) or isinstance(cost, bool):
        return "field 'cost' should be a number"
    if not isinstance(row.get("served", ""), str):
        return "field 'served' should be text"
    return None


@dataclass
class RoleUsage:
    calls: int = 0
    """Calls answered by the endpoint (cache hits not included)."""
    cache_hits: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    served: list[str] = field(default_factory=list)
    """The model names the endpoint answered with (its replies' `model`), in order first seen."""

    def to_dict(self) -> UsageLine:
        out: UsageLine = {**asdict(self), "cost": round(self.cost, 6)}  # type: ignore[typeddict-item]
        if not self.served:
            out.pop("served")
        return out


class UsageLedger:
    """Shared by the models of one job; each `RoleModel` writes its role's line."""

    def __init__(self, max_cost: float | None = None) -> None:
        self.roles: dict[str, RoleUsage] = {}
        self.seconds: dict[str, float] = {}
        """Per role, wall seconds spent inside its calls (for stage timings; not part of `totals`)."""
        self.max_cost = max_cost
        """US dollars this job may spend (None: no limit). Checked before each call, so calls already
        in flight may overshoot it by at most their own cost."""
        self.sink: Callable[[UsageRow], None] | None = None
        """Where each call's accounting also goes as it happens (a run's usage.jsonl: `keep`)."""

    def keep(self, earlier: Iterable[Mapping[str, Any]], sink: Callable[[UsageRow], None]) -> None:
        """Go on from the calls of a job's earlier invocations (their rows, in order) and send each new call's row
        to `sink`: a resumed run's usage and budget are then the whole run's, not only this invocation's."""
        for row in earlier:
            self._add(row)  # type: ignore[arg-type]
        self.sink = sink

    def spent(self) -> float:
        return sum(line.cost for line in self.roles.values())

    def check_budget(self) -> None:
        if self.max_cost is not None and self.spent() >= self.max_cost:
            raise BudgetExceeded(f"spent ${self.spent():.4f} of --max-cost ${self.max_cost:g}: the run stopped "
                                 "here; resume it with the same command and a higher --max-cost")

    def record(self, role: str, result: Completion | None, prices: Prices, served: str = "") -> None:
        """Account one call of `role` (None: it raised) and the model its endpoint answered with."""
        row: UsageRow = {"role": role}
        if result is None or not result.ok:
            row["failures"] = 1
        if result is not None and result.cached:
            row["cache_hits"] = 1
        elif result is not None:
            row.update(calls=1, input_tokens=result.usage.input_tokens, output_tokens=result.usage.output_tokens,
                       cost=(result.usage.input_tokens * prices.input
                             + result.usage.output_tokens * prices.output) / 1e6)
        if served and served not in self.roles.get(role, RoleUsage()).served:
            row["served"] = served
        self._add(row)
        if self.sink is not None:
            self.sink(row)

    def _add(self, row: UsageRow) -> None:
        line = self.roles.setdefault(row["role"], RoleUsage())
        for name in _COUNTS:
            setattr(line, name, getattr(line, name) + row.get(name, 0))
        if "cost" in row:  # added only where a call was paid: the sum is the one the calls made, to the last bit
            line.cost += row["cost"]
        if row.get("served") and row["served"] not in line.served:
            line.served.append(row["served"])

    def totals(self) -> dict[str, UsageLine]:
        return {role: line.to_dict() for role, line in sorted(self.roles.items())}

    def render(self) -> str:
        rows = [f"{'role':<12}{'calls':>7}{'cached':>8}{'failed':>8}{'in tok':>10}{'out tok':>10}{'cost $':>11}"]
        for role, u in sorted(self.roles.items()):
            rows.append(f"{role:<12}{u.calls:>7}{u.cache_hits:>8}{u.failures:>8}{u.input_tokens:>10}"
                        f"{u.output_tokens:>10}{u.cost:>11.4f}")
        return "\n".join(rows)


class RoleModel:
    """A model playing one role: every call is accounted in the ledger, failures included."""

    def __init__(self, role: str, model: Any, ledger: UsageLedger, prices: Prices = Prices()) -> None:
        self.role = role
        self.model = model
        self.name = model.name
        self.ledger = ledger
        self.prices = prices

    async def complete(self, messages: list[Message], *, schema: type[BaseModel] | None = None,
                       **settings: Any) -> Completion:
        self.ledger.check_budget()
        start = time.perf_counter()
        try:
            result = await self.model.complete(messages, schema=schema, **settings)
        except Exception:
            self.ledger.record(self.role, None, self.prices)
            raise
        finally:
            self.ledger.seconds[self.role] = self.ledger.seconds.get(self.role, 0.0) + time.perf_counter() - start
        self.ledger.record(self.role, result, self.prices, _served(self.model))
        return result


def _served(model: Any) -> str:
    """The endpoint's own name for its model, through the cache and journal layers (none for a Python model)."""
    while model is not None:
        served = getattr(model, "served", None)
        if isinstance(served, str):
            return served
        model = getattr(model, "inner", None)
    return ""
