"""Models: one async interface (`ChatModel.complete`) for the roles target, interviewer and judge."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from .base import ChatModel, Completion, Message, ModelError, Usage
from .cache import ResponseCache
from .client import OpenAIChatModel
from .roles import Models
from .spec import ModelSpec, Registry, load_registry
from .usage import RoleModel, UsageLedger

__all__ = ["ChatModel", "Completion", "Message", "ModelError", "ModelSpec", "Models", "OpenAIChatModel",
           "Registry", "ResponseCache", "RoleModel", "Usage", "UsageLedger", "load_registry", "open_models"]


@contextlib.contextmanager
def open_models(
    target: str,
    interviewer: str | None = None,
    judge: str | None = None,
    *,
    registry: Registry | None = None,
    base_url: str | None = None,
    cache_dir: str | Path | None = None,
    cache: bool = True,
    journal: str | Path | None = None,
    max_cost: float | None = None,
) -> Iterator[Models]:
    """Resolve names, start the embedded server if a role needs it, and wire cache and accounting.

    `base_url` serves the target's name (an ad-hoc endpoint), for every role that names it. The
    interviewer defaults to the target's model only when nothing else is configured; the judge defaults
    to the interviewer. `journal` is a run's own call log, always on whatever `cache` says: a resumed
    run repeats no finished call. `max_cost` (dollars, from the configured prices) stops the job with
    `BudgetExceeded` once spent; cache and journal hits cost nothing.
    """
    from .roles import open_roles

    registry = registry or load_registry()
    if base_url:
        registry = registry.with_endpoint(target, base_url)
    interviewer = interviewer or target
    names = {"target": target, "interviewer": interviewer, "judge": judge or interviewer}
    # The trio is one case of the named roles: one place resolves, serves, caches and journals them.
    with open_roles(names, registry=registry, cache_dir=cache_dir, cache=cache, journal=journal,
                    max_cost=max_cost) as roles:
        yield roles.trio()
