"""Protocol options (`-o key=value`) checked against the protocol's `Config`, errors in one line."""
from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from ..errors import JudgeAgentError

if TYPE_CHECKING:
    from .base import Protocol


def parse_options(protocol: Protocol, options: Mapping[str, Any] | Iterable[str]) -> BaseModel:
    """The protocol's `Config` from `{key: value}` or `["key=value", ...]`; sequences as `a,b,c`; a field of a
    nested config as `outer.inner` (JudgeAgent's `checker.judge_policy`)."""
    pairs = dict(options) if isinstance(options, Mapping) else split_options(options)
    fields = protocol.Config.model_fields
    valid = ", ".join(k for k in fields if _settable(fields[k].annotation))
    values: dict[str, Any] = {}
    for key, value in pairs.items():
        outer, _, inner = key.partition(".")
        nested = _nested(fields[outer].annotation) if inner and outer in fields else None
        target = nested.model_fields if nested else fields
        name = inner if nested else key
        if name not in target or not _settable(target[name].annotation):
            raise JudgeAgentError(f"protocol {protocol.name} has no option {key!r}; valid options: {valid}")
        if isinstance(value, str) and _is_sequence(target[name].annotation):
            value = tuple(v.strip() for v in value.split(",") if v.strip())
        if nested:
            values.setdefault(outer, {})[name] = value
        else:
            values[key] = value
    try:
        return protocol.Config.model_validate(values)
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(p) for p in first["loc"][:1])
        if not key:  # a check across options (min_runs and max_runs): its message names both
            raise JudgeAgentError(f"options of protocol {protocol.name} contradict: {cross_field_problem(e)}") from None
        key = key if key in pairs else ".".join(str(p) for p in first["loc"][:2])
        raise JudgeAgentError(f"option {key} of protocol {protocol.name}: {first['msg']} "
                              f"(got {pairs.get(key)!r})") from None


def cross_field_problem(e: ValidationError) -> str:
    """The message of a config's check across fields (a `model_validator`), without pydantic's prefix."""
    return str(e.errors()[0]["msg"]).removeprefix("Value error, ")


def split_options(items: Iterable[str]) -> dict[str, str]:
    """`["key=value", ...]` as `{key: value}`; a pair without `=` fails in one line."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise JudgeAgentError(f"-o expects KEY=VALUE; got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _settable(annotation: Any) -> bool:
    """Plain values (numbers, words, flags, lists of words) are options; nested configs are not."""
    for arg in [annotation, *typing.get_args(annotation)]:
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return False
    return True


def _nested(annotation: Any) -> type[BaseModel] | None:
    """The config class of a nested-config field, or None."""
    for arg in [annotation, *typing.get_args(annotation)]:
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


def _is_sequence(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (tuple, list)


def describe_options(protocol: Protocol) -> list[tuple[str, str, str]]:
    """(key, default, help) for each option, for `judgeagent protocols`."""
    rows = []
    for key, f in protocol.Config.model_fields.items():
        if _settable(f.annotation):
            default = f.default
            shown = ",".join(map(str, default)) if isinstance(default, tuple) else str(default)
            rows.append((key, shown, " ".join((f.description or "").split("\n\n")[0].split())))  # first paragraph
    return rows
