"""The fields of a run's manifest.json and summary.json that the shared readers (report, view, export, compare) use,
checked as typed models before they are read, for runs of every protocol; and a protocol's own report sections read
under a guard: a hand-edited or damaged field is one line naming the file and the field, never a traceback (#49)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from ..benchmarks.records import parse
from ..errors import JudgeAgentError

T = TypeVar("T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Role(_Strict):
    name: str


class _Benchmark(_Strict):
    path: str | None = None
    items: int


class _Manifest(_Strict):
    models: dict[str, _Role] | None = None
    """None in no manifest the runner wrote; the readers show a run without it as without roles."""
    benchmark: _Benchmark | None = None
    created_at: str | None = None
    finished_at: str | None = None
    config_id: str | None = None
    protocol: str | None = None
    config: dict[str, Any] | None = None


class _Usage(_Strict):
    calls: int
    cache_hits: int
    failures: int = 0
    input_tokens: int
    output_tokens: int
    cost: float


class _Summary(_Strict):
    usage: dict[str, _Usage] | None = None


def rewrite_hint(folder: Path, manifest: object = None) -> str:
    from ..runs import rewrite_hint as hint

    return "; " + hint(folder, manifest if isinstance(manifest, dict) else {})  # type: ignore[arg-type]


def restore_hint() -> str:
    return "; it is written once, when the run starts: restore it from a copy of the run"


def check_manifest(folder: Path, manifest: object) -> None:
    """Refuse, in one line, a manifest whose shared fields (roles, benchmark, dates) a reader could not use."""
    try:
        parse(_Manifest, manifest, str(folder / "manifest.json"))
    except JudgeAgentError as e:
        raise JudgeAgentError(f"{e}{restore_hint()}") from None


def check_summary(folder: Path, summary: object, manifest: object = None) -> None:
    """Refuse, in one line, a summary whose shared fields (the usage per role) a reader could not use."""
    try:
        parse(_Summary, summary, str(folder / "summary.json"))
    except JudgeAgentError as e:
        raise JudgeAgentError(f"{e}{rewrite_hint(folder, manifest)}") from None


def reading(folder: Path, title: str, render: Callable[[], T], manifest: object = None) -> T:
    """`render()` (a protocol's sections from its summary.json), a field it found missing or of the wrong kind
    being one line naming summary.json and the field: each protocol's summary has its own shape, read by its own
    report code, so the shape is checked where it is read rather than in a second copy of every summary type."""
    try:
        return render()
    except KeyError as e:
        problem = f"field {e.args[0]!r} is missing" if e.args else "a field is missing"
    except (TypeError, ValueError, AttributeError, IndexError) as e:
        problem = f"a field holds a value of the wrong kind ({type(e).__name__}: {str(e)[:120]})"
    raise JudgeAgentError(f"{folder / 'summary.json'}: {problem}, which the {title} report reads"
                          f"{rewrite_hint(folder, manifest)}")
