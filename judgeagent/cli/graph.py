"""The offline commands: build-graph, graph-info, sample-path, paths-check, make-mcq."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import JudgeAgentError
from ..files import read_text
from ..limits import MAX_CHUNK_WORDS, MAX_HOPS
from .app import app
from .fields import ConfigOption, first_error, parse_fields


@app.command("build-graph")
def build_graph_cmd(
    corpus: Annotated[Path, typer.Argument(help="A corpus file or folder (.jsonl, .json, .txt, .md, .parquet).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output graph folder, e.g. graphs/NAME.")],
    overwrite: Annotated[bool, typer.Option(help="Replace an existing graph at --out.")] = False,
    field: Annotated[list[str], typer.Option(help="Map a field to another column: doc_id=id, text=body, title=meta.name (dotted = nested)")] = [],
    chunk_words: Annotated[int, typer.Option(min=10, max=MAX_CHUNK_WORDS, help="Target maximum words per "
                                             "chunk (sentences are never split).")] = 150,
    embedding_model: Annotated[str, typer.Option(help="sentence-transformers model name or folder.")] = "all-MiniLM-L6-v2",
    index: Annotated[str, typer.Option(help="FAISS index: auto (exact when small), flat or hnsw.")] = "auto",
    no_noun_chunks: Annotated[bool, typer.Option("--no-noun-chunks", help="Named entities only.")] = False,
    spacy_processes: Annotated[int, typer.Option(min=1, help="With --extractor spacy and the local engine: "
                                                 "processes spaCy extracts in (same graph).")] = 1,
    extractor: Annotated[str, typer.Option(help="Entity extraction: spacy (fast) or llm (the paper's prompt).")] = "spacy",
    interviewer: Annotated[Optional[str], typer.Option(help="With --extractor llm: the model to ask.")] = None,
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="With --extractor llm: always call the model.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Response cache folder.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    engine: Annotated[str, typer.Option(help="local (this process) or ray (per-document stages on a Ray cluster; same graph).")] = "local",
    workers: Annotated[int, typer.Option(min=1, help="With --engine ray: actors per model stage.")] = 2,
    gpus_per_worker: Annotated[float, typer.Option(min=0, help="With --engine ray: GPUs per embedding actor.")] = 0.0,
    ray_address: Annotated[Optional[str], typer.Option(help="With --engine ray: join this cluster (default: start a local one).")] = None,
) -> None:
    """Build a context graph from a corpus (offline stage, Algorithm 3) and store it in --out."""
    import contextlib

    from ..config import ChunkConfig, EntityConfig, FieldMap, GraphConfig, IndexConfig
    from ..graph.build import build_graph
    from ..progress import TqdmProgress

    if index not in ("auto", "flat", "hnsw"):
        raise JudgeAgentError(f"--index must be auto, flat or hnsw; got {index!r}")
    if extractor not in ("spacy", "llm"):
        raise JudgeAgentError(f"--extractor must be spacy or llm; got {extractor!r}")
    try:
        graph_config = GraphConfig(
            fields=parse_fields(field, FieldMap),
            chunking=ChunkConfig(max_words=chunk_words),
            entities=EntityConfig(noun_chunks=not no_noun_chunks, extractor=extractor,  # type: ignore[arg-type]
                                  interviewer=interviewer, spacy_processes=spacy_processes),
            embedding_model=embedding_model,
            index=IndexConfig(kind=index),  # type: ignore[arg-type]  # checked above
        )
    except ValueError as e:
        raise JudgeAgentError(f"invalid option: {first_error(e)}") from None
    with contextlib.ExitStack() as stack:
        chosen = None
        if extractor == "llm":
            from ..llm_entities import open_llm_extractor
            from ..models.spec import load_registry

            chosen = stack.enter_context(open_llm_extractor(graph_config.entities, load_registry(config),
                                                            cache_dir, not no_cache))
        if engine not in ("local", "ray"):
            raise JudgeAgentError(f"--engine must be local or ray; got {engine!r}")
        from ..config import RayConfig

        ray = RayConfig(workers=workers, gpus_per_worker=gpus_per_worker, address=ray_address) \
            if engine == "ray" else None
        graph = build_graph(corpus, out, graph_config, overwrite=overwrite,
                            progress=None if quiet else TqdmProgress(), extractor=chosen, engine=ray)
        if chosen is not None:
            typer.echo(f"entity extraction by {interviewer}: {chosen.stats}")
            typer.echo(chosen.model.ledger.render())
    from ..graph.info import render_build_summary

    typer.echo(render_build_summary(graph))


@app.command("graph-info")
def graph_info_cmd(
    graph: Annotated[Path, typer.Argument(help="A graph folder made by build-graph.")],
    top: Annotated[int, typer.Option(min=1, help="How many top entities to list (at most all).")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Counts, degree distribution and top entities of a stored graph."""
    from ..graph.info import graph_info, render_info
    from ..graph.store import load_graph

    info = graph_info(load_graph(graph), top=top)
    typer.echo(json.dumps(info, indent=2) if as_json else render_info(info))


@app.command("sample-path")
def sample_path_cmd(
    graph: Annotated[Path, typer.Argument(help="A graph folder made by build-graph.")],
    question: Annotated[list[str], typer.Option("--question", "-q", help="A question (repeat for a batch).")] = [],
    questions: Annotated[Optional[Path], typer.Option(help="A file of questions, one a line (or a benchmark): "
                                                      "a path for each, models loaded once.")] = None,
    hops: Annotated[int, typer.Option(min=1, max=MAX_HOPS, help="Entities on the path (H).")] = 3,
    seed: Annotated[int, typer.Option(min=0, help="Random seed: the same seed gives the same path.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output (JSON lines with "
                                          "--questions).")] = False,
) -> None:
    """Sample a knowledge path for a batch of questions (Algorithm 4) and print its entities and chunks."""
    from ..graph.info import render_path
    from ..graph.sample import sample_path
    from ..graph.store import load_graph

    batches = [question] if question else []
    if questions is not None:
        batches += [[q] for q in _read_questions(questions)]
    if not batches:
        import click

        raise click.UsageError("give --question (repeat for a batch) or --questions FILE")
    loaded = load_graph(graph)
    for batch in batches:  # the extractor and encoder load on the first path and serve the rest
        path = sample_path(loaded, batch, hops=hops, seed=seed)
        if as_json:
            typer.echo(json.dumps({"questions": batch, **path.to_dict()}, ensure_ascii=False,
                                  indent=None if len(batches) > 1 else 2))
        elif len(batches) > 1:
            typer.echo(f"Q: {' | '.join(batch)}\n{render_path(path)}\n")
        else:
            typer.echo(render_path(path))


def _read_questions(path: Path) -> list[str]:
    """Questions from a text file (one a line) or from a benchmark file (its `question` column)."""
    if path.suffix.lower() in (".jsonl", ".json", ".csv", ".parquet"):
        from ..benchmark import read_questions

        return read_questions(path)  # golds are not needed for a path
    if path.is_dir():
        raise JudgeAgentError(f"--questions {path} is a folder: give a text file, one question a line")
    lines = [line.strip() for line in read_text(path).splitlines()]  # one line for unreadable or non-UTF-8 files
    found = [line for line in lines if line]
    if not found:
        raise JudgeAgentError(f"--questions {path} has no questions: write one question a line")
    return found


@app.command("paths-check")
def paths_check_cmd(
    graph: Annotated[Path, typer.Argument(help="A graph folder made by build-graph.")],
    questions: Annotated[Path, typer.Argument(help="Questions with their supporting documents (.jsonl or .json: "
                                              "'question' and 'supporting_doc_ids', the graph's doc_ids).")],
    seeds: Annotated[int, typer.Option(min=1, max=100, help="Paths per question (scheduled seeds).")] = 5,
    hops: Annotated[int, typer.Option(min=1, max=MAX_HOPS, help="Chunks per path, and dense's top-k.")] = 3,
    question_field: Annotated[str, typer.Option(help="The field holding the question.")] = "question",
    support_field: Annotated[str, typer.Option(help="The field listing its supporting doc_ids.")] = "supporting_doc_ids",
    resamples: Annotated[int, typer.Option(min=100, max=100_000, help="Bootstrap resamples of the "
                                           "questions for the 95% intervals.")] = 2000,
    misses: Annotated[int, typer.Option(min=0, max=1000, help="List this many questions whose graph paths fall "
                                        "furthest below dense, with their paths (0: none).")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """How often the graph's paths reach the questions' supporting documents, against dense retrieval.

    Against dense top-k chunks, and against dense at each path's spread (its top chunks over as many documents)."""
    from ..graph.relevance import check_paths, read_supported_questions, render_check
    from ..graph.store import load_graph

    loaded = load_graph(graph)
    found, skipped = read_supported_questions(questions, loaded, question_field, support_field)
    result = check_paths(loaded, found, seeds=seeds, hops=hops, resamples=resamples, skipped=skipped, misses=misses)
    typer.echo(json.dumps(result.to_dict(), indent=2) if as_json else render_check(result))


@app.command("make-mcq")
def make_mcq_cmd(
    benchmark: Annotated[Path, typer.Argument(help="A benchmark file with free-text (and any choice) items.")],
    graph: Annotated[Path, typer.Option(help="The graph the distractors come from (build-graph).")],
    out: Annotated[Path, typer.Option(help="The multiple-choice benchmark to write (.jsonl).")],
    field: Annotated[list[str], typer.Option(help="Map an item field to another column (dotted = nested).")] = [],
    seed: Annotated[int, typer.Option(min=0, help="Seed of the option order and draws.")] = 0,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing --out file.")] = False,
) -> None:
    """Turn a benchmark into multiple choice, with distractors of the gold's kind from the graph."""
    from collections import Counter

    from ..benchmark import ItemFields, load_benchmark
    from ..files import check_writable, write_text_atomic
    from ..grading.mcq import DistractorBuilder, to_record
    from ..graph.store import load_graph

    check_writable(out)  # before the distractors' work, not after it; a folder is said first: --overwrite won't do
    if out.exists() and not overwrite:
        raise JudgeAgentError(f"{out} already exists: choose another --out or pass --overwrite")
    items = load_benchmark(benchmark, parse_fields(field, ItemFields)).items
    results = DistractorBuilder(load_graph(graph), seed=seed).convert(items)
    made = [r.item for r in results if r.item is not None]
    write_text_atomic(out, "".join(json.dumps(to_record(i), ensure_ascii=False) + "\n" for i in made))
    counts = Counter(r.source for r in results)
    typer.echo(f"wrote {len(made)} of {len(items)} items to {out} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    for reason, n in Counter(r.reason for r in results if r.item is None).most_common():
        typer.echo(f"  skipped {n}: {reason}")
