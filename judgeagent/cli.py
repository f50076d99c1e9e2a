"""The `judgeagent` command: each command parses its options, makes one library call and renders."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .errors import Interrupted, JudgeAgentError
from .limits import MAX_BATCH_SIZE, MAX_CHUNK_WORDS, MAX_HOPS, MAX_QUESTIONS_PER_ROUND, MAX_ROUNDS

app = typer.Typer(
    name="judgeagent", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="Interviewer-style LLM evaluation on a knowledge graph (JudgeAgent).",
)


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors print one line and exit 1, never a traceback."""
    try:
        result = app(args=argv, prog_name="judgeagent", standalone_mode=False)
    except JudgeAgentError as e:
        typer.echo(f"error: {e}", err=True)
        return 1
    except Interrupted as e:
        typer.echo(f"aborted: {e}", err=True)
        return 130
    except typer.Exit as e:
        return e.exit_code
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("aborted", err=True)
        return 130
    except Exception as e:
        if hasattr(e, "show") and hasattr(e, "exit_code"):  # a usage error from typer's click
            e.show()
            return int(e.exit_code)
        raise
    if result == 130:  # typer turns Ctrl-C inside a command into a silent exit 130
        typer.echo("aborted", err=True)
    return result if isinstance(result, int) else 0


def parse_fields(pairs: list[str], model: Any) -> Any:
    """`--field NAME=COLUMN` options into a field-map config (`FieldMap` for corpora, `ItemFields` for benchmarks)."""
    mapping = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in model.model_fields or not value:
            raise JudgeAgentError(f"--field expects FIELD=COLUMN with FIELD one of "
                                  f"{', '.join(model.model_fields)}; got {pair!r}")
        mapping[key] = value
    return model(**mapping)


ConfigOption = Annotated[Optional[Path], typer.Option("--config", help="Model registry file (default: "
                          "./judgeagent.toml, then ~/.config/judgeagent/judgeagent.toml).")]


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

    from .config import ChunkConfig, EntityConfig, FieldMap, GraphConfig, IndexConfig
    from .graph.build import build_graph
    from .progress import TqdmProgress

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
        raise JudgeAgentError(f"invalid option: {_first_error(e)}") from None
    with contextlib.ExitStack() as stack:
        chosen = None
        if extractor == "llm":
            from .llm_entities import open_llm_extractor
            from .models.spec import load_registry

            chosen = stack.enter_context(open_llm_extractor(graph_config.entities, load_registry(config),
                                                            cache_dir, not no_cache))
        if engine not in ("local", "ray"):
            raise JudgeAgentError(f"--engine must be local or ray; got {engine!r}")
        from .config import RayConfig

        ray = RayConfig(workers=workers, gpus_per_worker=gpus_per_worker, address=ray_address) \
            if engine == "ray" else None
        graph = build_graph(corpus, out, graph_config, overwrite=overwrite,
                            progress=None if quiet else TqdmProgress(), extractor=chosen, engine=ray)
        if chosen is not None:
            typer.echo(f"entity extraction by {interviewer}: {chosen.stats}")
            typer.echo(chosen.model.ledger.render())
    from .graph.info import render_build_summary

    typer.echo(render_build_summary(graph))


@app.command("graph-info")
def graph_info_cmd(
    graph: Annotated[Path, typer.Argument(help="A graph folder made by build-graph.")],
    top: Annotated[int, typer.Option(min=1, help="How many top entities to list (at most all).")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Counts, degree distribution and top entities of a stored graph."""
    from .graph.info import graph_info, render_info
    from .graph.store import load_graph

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
    from .graph.info import render_path
    from .graph.sample import sample_path
    from .graph.store import load_graph

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
        from .benchmark import load_benchmark

        return [item.question for item in load_benchmark(path).items]
    try:
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    except OSError as e:
        raise JudgeAgentError(f"cannot read --questions {path}: {e.strerror or e}") from None
    found = [line for line in lines if line]
    if not found:
        raise JudgeAgentError(f"--questions {path} has no questions: write one question a line")
    return found


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

    from .benchmark import ItemFields, load_benchmark
    from .files import check_writable, write_text_atomic
    from .grading.mcq import DistractorBuilder, to_record
    from .graph.store import load_graph

    if out.exists() and not overwrite:
        raise JudgeAgentError(f"{out} already exists: choose another --out or pass --overwrite")
    check_writable(out)  # before the distractors' work, not after it
    items = load_benchmark(benchmark, parse_fields(field, ItemFields)).items
    results = DistractorBuilder(load_graph(graph), seed=seed).convert(items)
    made = [r.item for r in results if r.item is not None]
    write_text_atomic(out, "".join(json.dumps(to_record(i), ensure_ascii=False) + "\n" for i in made))
    counts = Counter(r.source for r in results)
    typer.echo(f"wrote {len(made)} of {len(items)} items to {out} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    for reason, n in Counter(r.reason for r in results if r.item is None).most_common():
        typer.echo(f"  skipped {n}: {reason}")


@app.command("models")
def models_cmd(config: ConfigOption = None) -> None:
    """List the configured models (and the built-in `local`)."""
    import os

    from .models.spec import load_registry

    registry = load_registry(config)
    typer.echo(f"config: {registry.source or 'none found (only built-in models)'}")
    typer.echo(f"{'name':<16} {'model':<28} {'base_url':<44} {'key':<22} {'conc':>4}  prices $/M in/out")
    for name in registry.names():
        spec = registry.models.get(name)
        if spec is None:
            typer.echo(f"{name:<16} {'SmolLM2-135M-Instruct (GGUF)':<28} {'embedded llama.cpp on 127.0.0.1':<44} "
                       f"{'-':<22} {1:>4}  0/0")
            continue
        key = "-" if not spec.api_key_env else f"{spec.api_key_env} ({'set' if os.environ.get(spec.api_key_env) else 'NOT SET'})"
        typer.echo(f"{name:<16} {spec.model:<28} {spec.base_url:<44} {key:<22} {spec.max_concurrency:>4}  "
                   f"{spec.prices.input:g}/{spec.prices.output:g}")


@app.command("ping")
def ping_cmd(
    model: Annotated[str, typer.Argument(help="A configured name, `local`, or provider:model.")],
    message: Annotated[str, typer.Option(help="What to send.")] = "Reply with one word: ready.",
    base_url: Annotated[Optional[str], typer.Option(help="An OpenAI-compatible endpoint for an ad-hoc model.")] = None,
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Always call the model.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Response cache folder.")] = None,
) -> None:
    """Send one request and print latency, tokens and the reply."""
    import asyncio
    import time

    from .models import open_models
    from .models.spec import load_registry

    async def once() -> None:
        with open_models(model, registry=load_registry(config), base_url=base_url,
                         cache_dir=cache_dir, cache=not no_cache) as models:
            start = time.perf_counter()
            try:
                result = await models.target.complete([{"role": "user", "content": message}])
            finally:
                await models.aclose()
            spec = models.specs["target"]
            typer.echo(f"model {spec.name} ({spec.endpoint()})")
            typer.echo(f"latency {time.perf_counter() - start:.2f} s{' (cached)' if result.cached else ''}  "
                       f"tokens in {result.usage.input_tokens} out {result.usage.output_tokens}")
            typer.echo(f"reply: {result.text.strip()}")
            typer.echo(models.ledger.render())

    asyncio.run(once())


@app.command("evaluate")
def evaluate_cmd(
    protocol: Annotated[str, typer.Option(help="The interview protocol (judgeagent protocols lists them).")] = "judgeagent",
    option: Annotated[list[str], typer.Option("--option", "-o", help="A protocol option KEY=VALUE (repeat; "
                                              "judgeagent protocols lists them).")] = [],
    target: Annotated[Optional[str], typer.Option(help="The model under evaluation (name, local, provider:model).")] = None,
    role: Annotated[list[str], typer.Option("--role", help="A protocol's role NAME=MODEL (repeat; MODEL,MODEL for "
                                            "a role of several, e.g. students; judgeagent protocols lists them).")] = [],
    benchmark: Annotated[Optional[Path], typer.Option(help="Benchmark file (.jsonl, .json, .csv, .parquet).")] = None,
    graph: Annotated[Optional[Path], typer.Option(help="Context graph folder made by build-graph.")] = None,
    interviewer: Annotated[Optional[str], typer.Option(help="Writes questions and feedback (default: the target).")] = None,
    judge: Annotated[Optional[str], typer.Option(help="Judges free-text answers (default: the interviewer).")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint for an ad-hoc target.")] = None,
    config: ConfigOption = None,
    field: Annotated[list[str], typer.Option(help="Map an item field to another column: question=prompt, answer=meta.exact_answer (dotted = nested)")] = [],
    limit: Annotated[Optional[int], typer.Option(min=1, help="Only the first N items.")] = None,
    sample: Annotated[Optional[int], typer.Option(min=1, help="N items drawn at random (with --seed).")] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=MAX_BATCH_SIZE, help="N_B: questions per batch.")] = 5,
    rounds: Annotated[int, typer.Option(min=0, max=MAX_ROUNDS, help="RND_e: extension rounds a batch.")] = 3,
    hops: Annotated[int, typer.Option(min=1, max=MAX_HOPS, help="H: entities per knowledge path.")] = 3,
    questions_per_round: Annotated[int, typer.Option(min=1, max=MAX_QUESTIONS_PER_ROUND,
                                                     help="Extension questions asked per round.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Seed for sampling items and paths.")] = 0,
    no_graph: Annotated[bool, typer.Option("--no-graph", help="Ablation: random chunks instead of graph paths.")] = False,
    path: Annotated[str, typer.Option(help="graph: walk the graph (Algorithm 4); dense: the top chunks for the "
                                      "questions, no walk (a baseline).")] = "graph",
    fixed_difficulty: Annotated[Optional[str], typer.Option(help="Ablation: easy, medium or hard throughout.")] = None,
    adaptive: Annotated[str, typer.Option(help="How rounds pick difficulty: tiers (score thresholds) or irt "
                                          "(the most informative level).")] = "tiers",
    no_extension: Annotated[bool, typer.Option("--no-extension", help="Ablation: grading and feedback only.")] = False,
    passages: Annotated[bool, typer.Option("--passages", help="Put each item's supporting documents (from the "
                                           "graph) into its prompt, as QuALITY needs.")] = False,
    max_passage_words: Annotated[Optional[int], typer.Option(min=1, help="Cut each passage to its first N "
                                                             "words (with --passages).")] = None,
    run_dir: Annotated[Optional[Path], typer.Option(help="Run folder (default: runs/<benchmark>-<target>-<id>).")] = None,
    resume: Annotated[Optional[Path], typer.Option(help="Continue the run in this folder.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder.")] = None,
    holdout: Annotated[float, typer.Option(min=0, max=0.5, help="Share of each batch kept out of the feedback "
                                           "prompt, validated separately.")] = 0.0,
    judge_policy: Annotated[str, typer.Option(help="calibrated: probe the judge first and use it only if it "
                                              "passes; trust: use it anyway; off: rules only.")] = "calibrated",
    easy_generator: Annotated[str, typer.Option(help="Easy-tier questions: cloze (no model, exact) or llm.")] = "cloze",
    no_self_check: Annotated[bool, typer.Option("--no-self-check", help="Skip the interviewer answering its own "
                                                "medium and hard questions before they are asked.")] = False,
    validate: Annotated[bool, typer.Option("--validate", help="Validate the feedback when the run is done.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the calls, tokens and cost the run would take "
                                          "(from the configured prices), and exit.")] = False,
    max_cost: Annotated[Optional[float], typer.Option(min=0, help="Stop (resumably) once this many dollars are "
                                                      "spent, by the configured prices.")] = None,
) -> None:
    """Interview a target model on a benchmark: grading, graph-driven extension, feedback (Algorithm 1)."""
    from .cli_evaluate import run_evaluate
    from .protocols.command import judgeagent_options, protocol_of, run_command

    try:
        if protocol_of(protocol, resume) != "judgeagent":
            typer.echo(run_command({**locals(), "protocol": protocol_of(protocol, resume)}, typer.echo,
                                   lambda line: typer.echo(line, err=True)))
            return
        run_evaluate(judgeagent_options(locals()))
    except KeyboardInterrupt:  # what is recorded stays; the journal answers the finished calls again
        raise Interrupted("resume with the same command") from None


@app.command("protocols")
def protocols_cmd() -> None:
    """List the interview protocols with their roles (and defaults), inputs and options."""
    from .protocols.command import render_protocols

    typer.echo(render_protocols())


@app.command("validate")
def validate_cmd(
    run: Annotated[Path, typer.Argument(help="A finished JudgeAgent run folder.")],
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:
    """Re-answer the base questions with each batch's suggestions: ACC1, ACC2, CR, CtE (Algorithm 2; JudgeAgent)."""
    from .cli_evaluate import validation_progress
    from .interview.validate import render_validation, validate
    from .models.spec import load_registry

    result = validate(run, registry=load_registry(config), cache_dir=cache_dir, cache=not no_cache,
                      progress=validation_progress(quiet))
    typer.echo(render_validation(result))
    typer.echo(f"written: {run / 'validation.json'}")


@app.command("report")
def report_cmd(run: Annotated[Path, typer.Argument(help="A finished run folder (of any protocol).")]) -> None:
    """Write report.md and a self-contained report.html (JudgeAgent runs: also the trainer export)."""
    from .export import export_weaknesses, graph_chunk_texts
    from .interview.validate import open_finished
    from .protocols.reports import protocol_of_run, write_reports
    from .report import build_report

    if protocol_of_run(run).name != "judgeagent":  # re-rendered from summary.json with the protocol's sections
        md, html = write_reports(run)
        typer.echo(f"report: {html}\nmarkdown: {md}")
        return
    md, html = build_report(run)
    finished = open_finished(run)
    parquet, jsonl, n = export_weaknesses(finished, graph_chunk_texts(finished))
    typer.echo(f"report: {html}\nmarkdown: {md}\nweaknesses ({n} failed questions): {parquet}, {jsonl}")


@app.command("rescore")
def rescore_cmd(
    run: Annotated[Path, typer.Argument(help="A finished KIEval run folder.")],
    evaluator: Annotated[str, typer.Option(help="The other evaluator (name, local, provider:model).")],
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:
    """Score a KIEval run's stored conversations with another evaluator; agreement per aspect."""
    from .models.spec import load_registry
    from .protocols.kieval.rescore import render_rescore, rescore

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            typer.echo(f"conversations: {done}/{total} rescored", err=True)

    result = rescore(run, evaluator, registry=load_registry(config), cache_dir=cache_dir, cache=not no_cache,
                     progress=None if quiet else progress)
    typer.echo(render_rescore(result))


@app.command("compare")
def compare_cmd(runs: Annotated[list[Path], typer.Argument(help="Finished run folders of one protocol "
                                                            "(JudgeAgent: validated runs).")]) -> None:
    """One table over runs of one protocol: a row per run with its models and the protocol's headline numbers
    (JudgeAgent: ACC1, ACC2, CR, CtE and Δ = CR - CtE)."""
    from .protocols.reports import compare

    typer.echo(compare(runs))


def _first_error(e: ValueError) -> str:
    errors = getattr(e, "errors", None)
    if callable(errors):  # pydantic: name the field and the problem, never echo the input
        first = errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(e)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
