"""What several commands parse the same way: `--field NAME=COLUMN`, `--role NAME=MODEL`, `--config`, and a
pydantic error as one line."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import JudgeAgentError

ConfigOption = Annotated[Optional[Path], typer.Option("--config", help="Model registry file (default: "
                          "$JUDGEAGENT_CONFIG, then ./judgeagent.toml, then ~/.config/judgeagent/judgeagent.toml).")]


def parse_fields(pairs: list[str], model: Any) -> Any:
    """`--field NAME=COLUMN` options into a field-map config (`FieldMap` for corpora, `ItemFields` for benchmarks)."""
    mapping = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in model.model_fields or not value:
            raise JudgeAgentError(f"--field expects FIELD=COLUMN with FIELD one of "
                                  f"{', '.join(model.model_fields)}; got {pair!r}")
        mapping[key] = value
    return model(**mapping)


def parse_roles(pairs: list[str] | None) -> dict[str, str]:
    """`--role NAME=MODEL` (repeatable; `MODEL,MODEL` for a role that takes several) as role -> value."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not name or not value:
            raise JudgeAgentError(f"--role expects NAME=MODEL (judgeagent protocols lists each protocol's roles); "
                                  f"got {pair!r}")
        out[name] = value
    return out


def first_error(e: ValueError) -> str:
    errors = getattr(e, "errors", None)
    if callable(errors):  # pydantic: name the field and the problem, never echo the input
        first = errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(e)


def every_tenth(say: Callable[[int, int], str]) -> Callable[[int, int], None]:
    """A progress callback (done, total) printing `say(done, total)` on stderr every tenth of the way and at
    the end, with the time since the first call and the rate: what validate, rescore and the episodes of
    evaluate print (also into a log, where no bar can be drawn)."""
    import time

    start = time.monotonic()

    def said(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            elapsed = time.monotonic() - start
            rate = f", {done / elapsed:.2f}/s" if elapsed > 0 and done else ""
            typer.echo(f"{say(done, total)} ({clock(elapsed)} elapsed{rate})", err=True)

    return said


def clock(seconds: float) -> str:
    """12:34 or 1:02:03."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"
