"""Models: one async interface (`ChatModel.complete`) for the roles target, interviewer and judge."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import ChatModel, Completion, Message, ModelError, Usage
from .cache import ResponseCache
from .client import OpenAIChatModel
from .spec import ROLES, ModelSpec, Registry, load_registry
from .usage import RoleModel, UsageLedger

__all__ = ["ChatModel", "Completion", "Message", "ModelError", "ModelSpec", "Models", "OpenAIChatModel",
           "Registry", "ResponseCache", "RoleModel", "Usage", "UsageLedger", "load_registry", "open_models"]


@dataclass
class Models:
    """The three roles of a job, sharing one usage ledger (and one local server when they use it)."""

    target: RoleModel
    interviewer: RoleModel
    judge: RoleModel
    ledger: UsageLedger
    specs: dict[str, ModelSpec]

    def describe(self) -> dict[str, dict[str, Any]]:
        """Model names and endpoints for run manifests: never a key, only the variable's name."""
        return {role: {"name": s.name, "model": s.model, "base_url": s.base_url, "api_key_env": s.api_key_env}
                for role, s in self.specs.items()}

    async def aclose(self) -> None:
        for role in ROLES:
            inner = getattr(self, role).model
            close = getattr(inner, "aclose", None)
            if close:
                await close()


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
