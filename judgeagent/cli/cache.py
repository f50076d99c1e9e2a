"""The `cache` command: what the shared response cache holds, per model, and removing some or all of it."""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import JudgeAgentError
from .app import app

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "": 86400}


def parse_age(text: str) -> float:
    """`30d`, `12h`, `90m`, `45s`, `2w`, or a bare number of days, in seconds."""
    match = _AGE.match(text)
    if not match:
        raise JudgeAgentError(f"--older-than {text!r}: give an age such as 30d, 12h, 90m or 2w")
    return float(match.group(1)) * _SECONDS[match.group(2)]


@app.command("cache")
def cache_cmd(
    action: Annotated[str, typer.Argument(help="list (answers per model), clear (remove; all without --model) "
                                          "or prune (remove those --older-than, of --model if given).")] = "list",
    model: Annotated[Optional[str], typer.Option(help="Only this model's answers, as `cache list` names it "
                                                  "(`local:FILE.gguf`, `MODEL at URL`).")] = None,
    older_than: Annotated[Optional[str], typer.Option(help="prune: answers stored longer ago than this "
                                                      "(30d, 12h, 90m, 2w).")] = None,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder (default: "
                                                      "$JUDGEAGENT_CACHE_DIR or ~/.cache/judgeagent).")] = None,
) -> None:
    """The shared response cache: list what it holds per model, clear it, or prune old answers."""
    from ..models.cache import ResponseCache, default_cache_dir

    if action not in ("list", "clear", "prune"):
        raise JudgeAgentError(f"cache {action!r}: the actions are list, clear and prune")
    if action == "prune" and older_than is None:
        raise JudgeAgentError("cache prune needs --older-than AGE (e.g. 30d); to remove everything: cache clear")
    age = parse_age(older_than) if older_than is not None else None
    folder = cache_dir or default_cache_dir()
    if not folder.exists():  # a listing or a removal makes nothing: a mistyped --cache-dir is said, not created
        if model is not None:
            raise JudgeAgentError(f"the cache holds no answers of {model!r}: there is no cache at {folder}")
        typer.echo(f"cache: {folder}\nempty (no cache there{': nothing removed' if action != 'list' else ''})")
        return
    store = ResponseCache(cache_dir)
    try:
        sources = store.sources()
        if model is not None and model not in sources:
            known = ", ".join(sources) or "none: the cache is empty"
            raise JudgeAgentError(f"the cache holds no answers of {model!r}; it holds: {known}")
        if action == "list":
            _list(store.path, sources)
            return
        removed = store.remove(source=model, older_than=age)
        typer.echo(f"removed {removed} answer{'s' * (removed != 1)} from {store.path}")
    finally:
        store.close()


def _list(path: Path, sources: dict[str, dict[str, float]]) -> None:
    typer.echo(f"cache: {path}")
    if not sources:
        typer.echo("empty")
        return
    typer.echo(f"{'answers':>8} {'MB':>8}  {'newest':<16} {'oldest':<16} model")
    for source, line in sources.items():
        typer.echo(f"{int(line['answers']):>8} {line['bytes'] / 1e6:>8.2f}  {_when(line['newest']):<16} "
                   f"{_when(line['oldest']):<16} {source}")


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))

