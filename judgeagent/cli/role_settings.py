"""`-M ROLE.KEY=VALUE`: a model setting for one role's model (`-M judge.temperature=0`), beside `-M KEY=VALUE`
for every model of the run.

A role's setting must not reach another role that happens to name the same model (the judge defaults to the
interviewer's, which defaults to the target's), so a role given its own settings runs on a copy of its model's
registry entry under a name of its own (`MODEL@ROLE`). The copy keeps the model's name, endpoint and identity;
only the settings differ, and they are what the run's identity and manifest record.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..errors import JudgeAgentError
from ..models.base import ModelSettings

if TYPE_CHECKING:
    from ..models.spec import Registry
    from ..protocols.base import Seats


class RoleSettings(NamedTuple):
    """The registry with each set role's own entry, the roles' models (a set role's under its own name), and the
    settings each role was given."""

    registry: Registry
    seats: Seats
    given: dict[str, ModelSettings]


def split_settings(settings: ModelSettings) -> tuple[ModelSettings, dict[str, ModelSettings]]:
    """The settings for every model (`KEY`) apart from those for one role (`ROLE.KEY`, role -> key -> value)."""
    shared = {k: v for k, v in settings.items() if "." not in k}
    by_role: dict[str, ModelSettings] = {}
    for key, value in settings.items():
        if "." in key:
            role, _, name = key.rpartition(".")
            by_role.setdefault(role, {})[name] = value
    return shared, by_role


def apply_role_settings(registry: Registry, seats: Seats, by_role: dict[str, ModelSettings],
                        protocol: str) -> RoleSettings:
    """Each role of `by_role` (a role of several, e.g. `students`, sets all its seats; `students.2` one) on its
    own copy of its model's entry with its settings; an unknown role is one line naming the roles."""
    out, given = dict(seats), dict[str, ModelSettings]()
    for role, settings in by_role.items():
        chosen = [s for s in seats if s == role or s.partition(".")[0] == role]
        if not chosen:
            names = ", ".join(dict.fromkeys(s.partition(".")[0] for s in seats))
            raise JudgeAgentError(f"-M {role}.{next(iter(settings))}: protocol {protocol} has no role {role}; "
                                  f"its roles are {names}")
        for seat in chosen:
            model = out[seat]  # `students` then `students.2`: the second adds to the first's settings
            if not isinstance(model, str):
                raise JudgeAgentError(f"-M {role}.{next(iter(settings))}: the {seat} role's model is not from the "
                                      "registry; set it on the model itself")
            alias = f"{seats[seat]}@{seat}"
            registry = type(registry)({**registry.models, alias: registry.resolve(model)}, registry.source)
            registry = registry.with_settings([alias], settings)
            out[seat], given[seat] = alias, {**given.get(seat, {}), **settings}
    return RoleSettings(registry, out, given)
