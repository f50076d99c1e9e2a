"""The package's version (pyproject.toml says the same); its own module so that any module may read it."""
from __future__ import annotations

import functools
import platform
import subprocess
from importlib import metadata
from pathlib import Path

__version__ = "0.1.0"

NUMBER_CHANGING = ("judgeagent", "openai", "sentence-transformers", "faiss-cpu", "spacy", "en-core-web-sm", "torch",
                   "transformers", "networkx", "numpy", "llama-cpp-python", "sacrebleu")
"""The packages whose versions can change a run's numbers (and spaCy's English pipeline, itself a package)."""


@functools.cache
def versions() -> dict[str, str]:
    """What a run's manifest records of the software it ran on: Python, judgeagent's git commit when it runs from
    a checkout (with `+dirty` when the checkout has uncommitted changes), and each installed package above."""
    out = {"python": platform.python_version()}
    for name in NUMBER_CHANGING:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    commit = _git_commit()
    if commit:
        out["judgeagent_commit"] = commit
    return out


def _git_commit() -> str | None:
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")
