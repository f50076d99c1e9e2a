"""Algorithm 3: corpus -> chunks -> entities -> linked context graph, embedded and indexed."""
from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..chunking import iter_chunks
from ..config import GraphConfig, RayConfig
from ..corpus import Corpus, read_corpus
from ..embedding import Encoder, build_index, check_model
from ..entities import EntityExtractor, SpacyExtractor
from ..errors import JudgeAgentError
from ..llm_entities import open_llm_extractor
from ..progress import Progress, Timings
from .link import link
from .model import ContextGraph
from .store import FORMAT, FORMAT_VERSION, check_writable, save_graph


def build_graph(
    corpus: str | Path | Corpus,
    out: str | Path | None = None,
    config: GraphConfig = GraphConfig(),
    *,
    overwrite: bool = False,
    progress: Progress | None = None,
    extractor: EntityExtractor | None = None,
    engine: RayConfig | None = None,
) -> ContextGraph:
    """Build a context graph from a corpus; with `out`, store it there atomically.

    `extractor` overrides the one `config.entities` names (to share a loaded model, or to pass an
    LLM extractor with its own cache settings). `engine` runs the per-document stages on a Ray
    cluster instead of in this process; the graph is the same.
    """
    out_path = Path(out) if out is not None else None
    if out_path is not None:
        check_writable(out_path, overwrite)  # refuse before an hour of work, not after
    check_model(config.embedding_model)
    if engine is not None:
        if isinstance(corpus, Corpus) or extractor is not None or config.entities.extractor != "spacy":
            raise JudgeAgentError("the ray engine reads a corpus path with the spaCy extractor")
        return _build_on_ray(Path(corpus), out_path, config, overwrite, progress, engine)
    with contextlib.ExitStack() as stack:
        timings = Timings()
        with timings.timed(progress, "reading"):
            corpus = corpus if isinstance(corpus, Corpus) else read_corpus(corpus, config.fields)
        with timings.timed(progress, "loading models"):
            encoder = Encoder(config.embedding_model)
            if extractor is None and config.entities.extractor == "llm":
                extractor = stack.enter_context(open_llm_extractor(config.entities))
            extractor = extractor or SpacyExtractor(config.entities)
        return _build(corpus, out_path, config, overwrite, progress, encoder, extractor, timings)


def _build(corpus: Corpus, out_path: Path | None, config: GraphConfig, overwrite: bool,
           progress: Progress | None, encoder: Encoder, extractor: EntityExtractor,
           timings: Timings) -> ContextGraph:
    docs = corpus.documents
    with timings.timed(progress, "chunking", len(docs), "doc") as advance:
        chunks = []
        for doc_chunks in iter_chunks(docs, config.chunking):
            chunks.extend(doc_chunks)
            advance(1)
    with timings.timed(progress, "extracting", len(chunks), "chunk") as advance:
        mentions = extractor.extract([c.text for c in chunks], advance)
    with timings.timed(progress, "linking"):
        tables = link(docs, chunks, mentions)
    names = tables["entities"].column("name").to_pylist()
    with timings.timed(progress, "embedding chunks", len(chunks), "chunk") as advance:
        chunk_vectors = encoder.encode([c.text for c in chunks], config.embedding_batch_size, advance)
    with timings.timed(progress, "embedding entities", len(names), "entity") as advance:
        entity_vectors = encoder.encode(names, config.embedding_batch_size, advance)
    return _finish(corpus.root, tables, chunk_vectors, entity_vectors, config, encoder.dim,
                   extractor.describe(), timings, progress, out_path, overwrite)


def _build_on_ray(root: Path, out_path: Path | None, config: GraphConfig, overwrite: bool,
                  progress: Progress | None, engine: RayConfig) -> ContextGraph:
    from .ray_build import embed_names, ray_cluster, run_document_stages

    timings = Timings()
    with timings.timed(progress, "starting ray"), contextlib.ExitStack() as stack:
        stack.enter_context(ray_cluster(engine))
        cluster = stack.pop_all()
    with cluster:
        stages = run_document_stages(root, config, engine, timings, progress)
        with timings.timed(progress, "linking"):
            tables = link(stages.documents, stages.chunks, stages.mentions)
        names = tables["entities"].column("name").to_pylist()
        with timings.timed(progress, "embedding entities (ray)", len(names), "entity"):
            entity_vectors = embed_names(names, config, engine, stages.dim)
    return _finish(root, tables, stages.chunk_vectors, entity_vectors, config, stages.dim,
                   stages.extractor, timings, progress, out_path, overwrite)


def _finish(root: Path, tables: dict, chunk_vectors: np.ndarray, entity_vectors: np.ndarray,
            config: GraphConfig, dim: int, extractor: dict[str, Any], timings: Timings,
            progress: Progress | None, out_path: Path | None, overwrite: bool) -> ContextGraph:
    """Indexes, manifest and (with `out_path`) the atomic write: the same for every engine."""
    with timings.timed(progress, "indexing"):
        entity_index, entity_info = build_index(entity_vectors, config.index)
        chunk_index, chunk_info = build_index(chunk_vectors, config.index)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "judgeagent_version": __version__,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "corpus": {"path": str(root)},
        "config": config.model_dump(mode="json"),
        "embedding": {"model": config.embedding_model, "dim": dim, "normalized": True},
        "extractor": extractor,
        "indexes": {"entities": entity_info, "chunks": chunk_info},
    }
    graph = ContextGraph(tables, entity_vectors, chunk_vectors, entity_index, chunk_index, manifest)
    manifest["counts"] = graph.counts()
    manifest["timings"] = dict(timings)  # the stored record: stages up to writing
    graph.timings = timings  # and, in memory, the write itself too
    if out_path is not None:
        with timings.timed(progress, "writing"):
            graph.path = save_graph(graph, out_path, overwrite=overwrite)
    return graph
