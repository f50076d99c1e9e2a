"""`Roles`: any number of named roles, each a registry name or a ready `ChatModel`, opened and closed as one.

The fixed target / interviewer / judge trio of `open_models` is one case of it; protocols with other
seats (students, players, a referee) name theirs. Every role shares one usage ledger (usage and cost
per role), one response cache, and the run's call journal, so that a resumed run repeats no finished call.
"""
from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypedDict

from .base import ChatModel
from .cache import CachedModel, ResponseCache
from .client import OpenAIChatModel
from .spec import ROLES, ModelSpec, Prices, Registry, load_registry
from .usage import RoleModel, UsageLedger
from .weights import WeightsIdentity


@dataclass
class Models:
    """The three roles of a job, sharing one usage ledger (and one local server when they use it)."""

    target: RoleModel
    interviewer: RoleModel
    judge: RoleModel
    ledger: UsageLedger
    specs: dict[str, ModelSpec]

    def describe(self) -> dict[str, RoleDescription]:
        """Model names and endpoints for run manifests: never a key, only the variable's name."""
        return {role: {"name": s.name, "model": s.model, "base_url": s.base_url, "api_key_env": s.api_key_env}
                for role, s in self.specs.items()}

    async def aclose(self) -> None:
        for role in ROLES:
            inner = getattr(self, role).model
            close = getattr(inner, "aclose", None)
            if close:
                await close()


class Roles(Mapping[str, RoleModel]):
    """Role name -> `RoleModel`; `async with roles:` closes every client once the episodes are done."""

    def __init__(self, models: dict[str, RoleModel], ledger: UsageLedger, specs: dict[str, ModelSpec | None]) -> None:
        self.models = models
        self.ledger = ledger
        self.specs = specs
        """The registry entry of each role (None for a `ChatModel` given from Python)."""

    def __getitem__(self, role: str) -> RoleModel:
        return self.models[role]

    def __iter__(self) -> Iterator[str]:
        return iter(self.models)

    def __len__(self) -> int:
        return len(self.models)

    def group(self, name: str) -> list[RoleModel]:
        """The models of a `many` role (`name.1`, `name.2`, ...) in order; a one-model role as a list of one."""
        if name in self.models:
            return [self.models[name]]
        numbered = [(int(k.rpartition(".")[2]), m) for k, m in self.models.items()
                    if k.rpartition(".")[0] == name and k.rpartition(".")[2].isdigit()]
        return [m for _, m in sorted(numbered, key=lambda pair: pair[0])]

    def trio(self) -> Models:
        """The target / interviewer / judge view of these roles, as `open_models` gives it (what JudgeAgent's
        batches use); the models and the ledger are these, not copies, and the roles stay the ones to close."""

        return Models(self.models["target"], self.models["interviewer"], self.models["judge"], self.ledger,
                      self.specs)  # type: ignore[arg-type]  # a ChatModel given from Python has no spec

    def describe(self) -> dict[str, RoleDescription]:
        """Names and endpoints for a run manifest: never a key, only the variable's name."""
        out: dict[str, RoleDescription] = {}
        for role, spec in self.specs.items():
            if spec is None:
                out[role] = {"name": self.models[role].name, "model": self.models[role].name, "python": True}
            else:
                out[role] = describe_spec(spec)
        return out

    async def aclose(self) -> None:
        closed: set[int] = set()
        for role_model in self.models.values():
            inner = role_model.model
            close = getattr(inner, "aclose", None)
            if close and id(inner) not in closed:
                closed.add(id(inner))
                await close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def model_identity(value: str | ChatModel, registry: Registry) -> Any:
    """What identifies a role's model in a run's identity hash (the embedded model by its file)."""
    if isinstance(value, str):
        s = registry.resolve(value)
        return [s.model, s.gguf or s.base_url, s.generation.model_dump()]
    identity = getattr(value, "identity", None)
    return identity() if callable(identity) else {"python": value.name}


class WeightsRef(WeightsIdentity):
    """The embedded model's weights file: its path, and its identity."""

    path: str


class RoleDescription(TypedDict, total=False):
    """What a manifest records of a role's model: its registry name, served model, endpoint, the variable holding
    its key (never the key), generation settings, and for the embedded model its weights file; `python` for a
    model object given from Python (nothing to resolve)."""

    name: str
    model: str
    base_url: str | None
    api_key_env: str | None
    generation: dict[str, float | int | str | list[str] | None]
    weights: WeightsRef
    python: bool


def describe_roles(models: Mapping[str, str | ChatModel], registry: Registry) -> dict[str, RoleDescription]:
    """What a manifest records of each role, resolved without starting anything (keys checked)."""
    out: dict[str, RoleDescription] = {}
    for role, value in models.items():
        if not isinstance(value, str):
            out[role] = {"name": value.name, "model": value.name, "python": True}
            continue
        s = registry.resolve(value)
        s.api_key()
        out[role] = describe_spec(s)
    return out


def describe_spec(s: ModelSpec) -> RoleDescription:
    """A resolved model as a manifest records it: never a key, only the variable's name; the embedded model
    with its weights file's identity (`weights.py`)."""
    described: RoleDescription = {"name": s.name, "model": s.model, "base_url": s.base_url,
                                 "api_key_env": s.api_key_env, "generation": s.generation.model_dump()}
    if s.gguf:
        from .weights import weights_identity

        described["weights"] = {"path": s.gguf, **weights_identity(s.gguf)}
    return described


COMPARED = ("model", "base_url", "generation", "weights")
"""What must match for a later command to use "the run's model": the served model, where, with what settings,
and for the embedded model its weights (whose port is whatever was free, so its address is not compared)."""


def model_changes(recorded: Mapping[str, RoleDescription], registry: Registry) -> list[str]:
    """How the models a run recorded differ from what their names resolve to now, one phrase per difference
    (none: the same models). Roles given as Python objects are not checked (nothing to resolve)."""
    changes = []
    for role, then in recorded.items():
        if then.get("python") or "name" not in then:
            continue
        now = describe_spec(registry.resolve(then["name"]))
        for field in COMPARED:
            if field == "base_url" and ("weights" in then or "weights" in now):
                continue
            if field == "weights" and "weights" in then and "weights" in now:
                same = all(then["weights"].get(k) == now["weights"].get(k) for k in ("size", "sha256_ends"))
            else:
                same = field not in then or then[field] == now.get(field)
            if not same:
                was = _short(then.get(field), field)
                changes.append(f"{role} {then['name']!r}: {field} {was} then, {_short(now.get(field), field)} now")
    return changes


def _short(value: Any, field: str) -> str:
    if field == "weights" and isinstance(value, dict):
        return f"{value.get('file')} ({value.get('size')} bytes, {str(value.get('sha256_ends'))[:12]})"
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else repr(value)


def hold_to_run(recorded: Mapping[str, RoleDescription], registry: Registry, *, command: str, folder: Path,
                allow_change: bool) -> list[str]:
    """Refuse (one line naming the differences) when the run's models are not what their names resolve to now,
    unless `allow_change`; then the changes are what the caller records. Returns them."""
    from ..errors import JudgeAgentError

    changes = model_changes(recorded, registry)
    if changes and not allow_change:
        raise JudgeAgentError(f"{command} would use other models than run {folder} did ({'; '.join(changes)}): "
                              "point the names back at the run's models, or pass --allow-model-change to go on "
                              "with these (recorded in the run)")
    return changes


@contextlib.contextmanager
def open_roles(models: Mapping[str, str | ChatModel], *, registry: Registry | None = None,
               cache_dir: str | Path | None = None, cache: bool = True, journal: str | Path | None = None,
               max_cost: float | None = None) -> Iterator[Roles]:
    """Resolve every role, start the embedded server once if any role needs it, wire cache and journal.

    A name is looked up in the registry; a `ChatModel` object is used as it is (journaled when it has
    `identity()`, as `FunctionModel` does). A missing API key fails here, before any call is made.
    """
    registry = registry or load_registry()
    ledger = UsageLedger(max_cost)
    store = ResponseCache(cache_dir) if cache else None
    log = ResponseCache(journal) if journal is not None else None
    specs: dict[str, ModelSpec | None] = {}
    for role, value in models.items():
        specs[role] = registry.resolve(value) if isinstance(value, str) else None
        if specs[role] is not None:
            specs[role].api_key()  # type: ignore[union-attr]
    with contextlib.ExitStack() as stack:
        for opened in (store, log):
            if opened is not None:
                stack.callback(opened.close)
        served: dict[str, ModelSpec] = {}
        endpoints: dict[str, OpenAIChatModel] = {}
        built: dict[str, RoleModel] = {}
        for role, value in models.items():
            spec = specs[role]
            if spec is None:
                model: Any = value
                if log is not None and callable(getattr(value, "identity", None)):
                    model = CachedModel(model, log, keep_messages=True)
                built[role] = RoleModel(role, model, ledger, Prices())
                continue
            if spec.gguf:
                if spec.gguf not in served:
                    from .local import local_server

                    served[spec.gguf] = stack.enter_context(local_server(spec))
                # One server per file; each role keeps its own settings (max_tokens, prices), only the address is shared.
                spec = specs[role] = spec.model_copy(update={"base_url": served[spec.gguf].base_url})
            client = endpoints.setdefault(spec.model_dump_json(), OpenAIChatModel(spec))  # one bound per endpoint
            model = CachedModel(client, store) if store is not None else client
            if log is not None:
                model = CachedModel(model, log, keep_messages=True)
            built[role] = RoleModel(role, model, ledger, spec.prices)
        yield Roles(built, ledger, specs)
