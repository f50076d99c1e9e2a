"""What `evaluate --dry-run` prints for the protocols other than JudgeAgent (and, on stderr, every run of them
as it starts): the items, each role's model, the options given, the protocol's call count and, where a recipe
gives the paper's average call, tokens and cost. JudgeAgent's dry run opens with the same first lines
(`plan_head`), then its own estimate table."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..models.base import ModelSettings
    from ..models.spec import Registry
    from ..protocols.base import Seats


def render_plan(protocol: Any, config: Any, benchmark: Any, seats: Seats,
                own: dict[str, ModelSettings] | None = None, dry: bool = True, registry: Registry | None = None) -> str:
    """What a run of another protocol than JudgeAgent would do (`--dry-run`; on stderr as a run starts): its
    items, the model of each role (with the settings given to it alone), the options given, and the calls it
    would make (the protocol's own count, low-high); tokens and cost where a recipe of the protocol has the
    paper's average call (KIEval's), priced as `reproduce --dry-run` prices them."""
    estimate = protocol.estimate_calls(config, list(benchmark.items), seats)
    calls = (f"calls: {estimate.low}-{estimate.high}" + (f" ({estimate.note})" if estimate.note else "")
             if estimate else "calls: no estimate for this setting")
    return "\n".join([plan_head(protocol, config, benchmark, seats, own, dry), f"  {calls}",
                      *_tokens(protocol.name, estimate, seats, registry)])


def plan_head(protocol: Any, config: Any, benchmark: Any, seats: Seats,
              own: dict[str, ModelSettings] | None = None, dry: bool = True) -> str:
    """The plan's first lines, every protocol's (JudgeAgent's estimate table follows them): the items, each role's
    model and the options given."""
    fields = protocol.Config.model_fields
    given = ", ".join(f"{k}={getattr(config, k)}" for k in fields if k in config.model_fields_set) or "(defaults)"
    head = f"dry run of protocol {protocol.name}: no model is called" if dry else f"protocol {protocol.name}:"
    return "\n".join([head,
                      f"  items: {len(benchmark.items)} of {benchmark.path}" if benchmark.items else
                      "  items: none from a benchmark (the protocol's options name its inputs)",
                      "  roles: " + ", ".join(f"{k}={_label(v).removesuffix('@' + k)}" + _settings((own or {}).get(k))
                                              for k, v in seats.items()),
                      f"  options: {given}"])


def _tokens(protocol: str, estimate: Any, seats: Seats, registry: Registry | None) -> list[str]:
    """Tokens (and cost) from the paper's average call, where a recipe of the protocol gives one."""
    from ..recipes import RECIPES
    from .reproduce import price_range

    per_call = next((r.calls.tokens_per_call for r in RECIPES.values()
                     if r.protocol == protocol and r.calls.tokens_per_call), None)
    if estimate is None or per_call is None:
        return ["  tokens and cost: not estimated for this protocol"]
    (low, high), (prompt, completion) = (estimate.low, estimate.high), per_call
    lines = [(f"  tokens: {low * prompt:,}-{high * prompt:,} prompt, {low * completion:,}-{high * completion:,} "
              "completion (the paper's average call)")]
    names = {k: v for k, v in seats.items() if isinstance(v, str)}
    cost = price_range(names, registry, (low, high), per_call) if registry is not None else None
    if cost:
        lines.append(f"  cost: ${cost[0]:.2f}-${cost[1]:.2f} at the configured prices (all calls priced as the "
                     "dearest role)")
    return lines


def _settings(given: ModelSettings | None) -> str:
    return f" ({', '.join(f'{k}={v}' for k, v in given.items())})" if given else ""


def _label(model: Any) -> str:
    return model if isinstance(model, str) else str(getattr(model, "name", model))
