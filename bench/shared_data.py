"""Where the bench scripts find the shared datasets, and the one line they say when they cannot.

$JUDGEAGENT_DATA where it is a folder; else `shared/data` beside the checkout (as the main checkout and the shared
folder sit side by side), or beside the main checkout of a git worktree (a worktree made elsewhere, e.g. under
/tmp, reads the same data as the checkout it was cut from).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = "JUDGEAGENT_DATA"


def find_data(root: Path = ROOT, env: Mapping[str, str] = os.environ) -> Path:
    """The shared datasets' folder: $JUDGEAGENT_DATA if it is a folder, else the first `shared/data` beside the
    checkout or beside its main checkout that holds multihop_rag/, else `../shared/data` (`require` then says it
    is missing)."""
    given = env.get(ENV, "")
    if given and Path(given).is_dir():
        return Path(given)
    main = main_checkout(root)
    candidates = [root.parent / "shared" / "data", *([main.parent / "shared" / "data"] if main else [])]
    return next((c for c in candidates if (c / "multihop_rag").is_dir()), candidates[0])


def main_checkout(root: Path) -> Path | None:
    """The main checkout a git worktree at `root` belongs to (its `.git` file names the worktree's git folder,
    whose `commondir` leads to the main `.git`); None for a main checkout or a folder outside git."""
    marker = root / ".git"
    if not marker.is_file():
        return None
    text = marker.read_text(encoding="utf-8", errors="replace").strip()
    if not text.startswith("gitdir:"):
        return None
    gitdir = (root / text.split(":", 1)[1].strip()).resolve()
    common = gitdir / "commondir"
    main_git = (gitdir / common.read_text().strip()).resolve() if common.is_file() else gitdir.parents[1]
    return main_git.parent


def require(*paths: Path) -> None:
    """Stop with one line naming the first missing path and how to point at the data (no traceback)."""
    for path in paths:
        if not Path(path).exists():
            sys.exit(f"error: {path} not found: set {ENV} to the folder holding the shared datasets "
                     f"(multihop_rag/, hotpotqa/, ...; by default ../shared/data beside the checkout)")
