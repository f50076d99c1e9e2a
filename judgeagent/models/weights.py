"""What identifies a file of model weights: its size and a SHA-256 of its first and last MiB.

A full hash of a 4 GB GGUF takes seconds on every start; its first MiB holds the header and metadata (the
architecture, the tokenizer, the quantisation) and its last MiB the final tensors, so two checkpoints of one
model differ there while the whole file is not read. Computed once per file version (path, size, mtime).
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import TypedDict

MIB = 1 << 20


class WeightsIdentity(TypedDict):
    """A weights file as a manifest and the cache key name it: its name, size and the hash of its ends."""

    file: str
    size: int
    sha256_ends: str


def weights_identity(path: str | Path) -> WeightsIdentity:
    """{"file": its name, "size": bytes, "sha256_ends": the hash of its first and last MiB}."""
    info = os.stat(path)
    return {"file": Path(path).name, "size": info.st_size,
            "sha256_ends": _ends(str(Path(path).resolve()), info.st_size, info.st_mtime_ns)}


@functools.lru_cache(maxsize=64)
def _ends(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        digest.update(f.read(MIB))
        if size > MIB:
            f.seek(max(size - MIB, MIB))
            digest.update(f.read(MIB))
    return digest.hexdigest()
