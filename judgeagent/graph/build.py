"""Algorithm 3: corpus -> chunks -> entities -> linked context graph, embedded and indexed."""
from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from ..chunking import iter_chunks
from ..config import GraphConfig, RayConfig
from ..corpus import Corpus, read_corpus
from ..embedding import Encoder, build_index, check_model
from ..entities import EntityExtractor, SpacyExtractor
from ..errors import JudgeAgentError
from ..llm_entities import open_llm_extractor
from ..progress import Progress, Timings
from ..version import __version__
from .link import Linker, link
from .model import ContextGraph
from .specificity import with_specificity
from .store import (
    FORMAT,
    FORMAT_VERSION,
    VECTORS,
    ChunkWriter,
    LazyTables,
    check_writable,
    publish,
    save_graph,
    seal,
    staging,
    write_indexes,
)


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
        return _build_on_ray(Path(corpus), out_path, config, progress, engine)  # `out` was checked above
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
        linker = Linker()
        tables = link(docs, chunks, mentions, linker)
    with timings.timed(progress, "specificity"):
        tables["entities"] = with_specificity(tables["entities"], tables["mentions"], len(docs),
                                              linker.section_label_docs())
    names = tables["entities"].column("name").to_pylist()
    with timings.timed(progress, "embedding chunks", len(chunks), "chunk") as advance:
        chunk_vectors = encoder.encode([c.text for c in chunks], config.embedding_batch_size, advance)
    with timings.timed(progress, "embedding entities", len(names), "entity") as advance:
        entity_vectors = encoder.encode(names, config.embedding_batch_size, advance)
    graph = ContextGraph(tables, entity_vectors, chunk_vectors, None, None, {})
    _finish(graph, corpus.root, config, encoder.dim, extractor.describe(), timings, progress)
    if out_path is not None:
        with timings.timed(progress, "writing"):
            graph.path = save_graph(graph, out_path, overwrite=overwrite, adopt=True)
    return graph


def _build_on_ray(root: Path, out_path: Path | None, config: GraphConfig, progress: Progress | None,
                  engine: RayConfig) -> ContextGraph:
    """The per-document stages on Ray, each block linked and its chunk side written to the staging
    folder as it arrives; then entity names, indexes and the rest of the files. The coordinator holds
    the entity side (names, labels, surface forms, entity-chunk pairs) and document rows, not the chunk
    texts or vectors (docs/scaling.md)."""
    from .ray_build import embed_names, ray_cluster, run_document_stages

    timings = Timings()
    with timings.timed(progress, "starting ray"), contextlib.ExitStack() as stack:
        stack.enter_context(ray_cluster(engine))
        cluster = stack.pop_all()
    with cluster, staging(out_path) as folder:
        linker, writer = Linker(), ChunkWriter(folder)

        def consume(docs, chunks, mentions, vectors) -> None:  # ray_build.Consume
            writer.add(*linker.add(docs, chunks, mentions), vectors)

        extractor, dim = run_document_stages(root, config, engine, consume, timings, progress)
        if not linker.doc_row:
            raise JudgeAgentError("corpus has no documents")
        with timings.timed(progress, "linking"):
            tables = linker.finish()
            chunk_vectors = writer.close(dim)
        with timings.timed(progress, "specificity"):
            mentions = pq.read_table(folder / "mentions.parquet", columns=["entity_id", "surface"])
            tables["entities"] = with_specificity(tables["entities"], mentions, len(linker.doc_row),
                                                  linker.section_label_docs())
            del mentions
        names = tables["entities"].column("name").to_pylist()
        with timings.timed(progress, "embedding entities (ray)", len(names), "entity"):
            entity_vectors = embed_names(names, config, engine, dim)
        for name, table in tables.items():
            pq.write_table(table, folder / f"{name}.parquet")
        graph = ContextGraph(LazyTables(folder), entity_vectors, chunk_vectors, None, None, {})
        _finish(graph, root, config, dim, extractor, timings, progress)
        with timings.timed(progress, "writing"):
            np.save(folder / VECTORS["entity_vectors"], entity_vectors, allow_pickle=False)
            write_indexes(graph.entity_index, graph.chunk_index, folder)
            seal(folder, graph.manifest)
            if out_path is None:  # asked for a graph in memory: read it all back before the folder goes
                graph = _in_memory(graph)
            else:
                publish(folder, out_path)
                graph.path = out_path
                graph.tables = LazyTables(out_path)
                graph.chunk_vectors = np.load(out_path / VECTORS["chunk_vectors"], mmap_mode="r")
    return graph


def _in_memory(graph: ContextGraph) -> ContextGraph:
    tables = {name: graph.tables[name] for name in graph.tables}
    chunk_vectors = np.array(graph.chunk_vectors)
    return ContextGraph(tables, graph.entity_vectors, chunk_vectors, graph.entity_index, graph.chunk_index,
                        graph.manifest, timings=graph.timings)


def _finish(graph: ContextGraph, root: Path, config: GraphConfig, dim: int, extractor: dict[str, Any],
            timings: Timings, progress: Progress | None) -> None:
    """Indexes and manifest: the same for every engine."""
    with timings.timed(progress, "indexing"):
        graph.entity_index, entity_info = build_index(graph.entity_vectors, config.index)
        graph.chunk_index, chunk_info = build_index(graph.chunk_vectors, config.index)
    graph.manifest.update({
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": "graph",
        "judgeagent_version": __version__,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "corpus": {"path": str(root)},
        "config": config.model_dump(mode="json"),
        "embedding": {"model": config.embedding_model, "dim": dim, "normalized": True},
        "extractor": extractor,
        "indexes": {"entities": entity_info, "chunks": chunk_info},
    })
    graph.manifest["counts"] = graph.counts()
    graph.manifest["timings"] = dict(timings)  # the stored record: stages up to writing
    graph.timings = timings  # and, in memory, the write itself too
