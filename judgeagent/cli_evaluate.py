"""The CLI side of `judgeagent evaluate` (typer, progress bars): options, or a run to resume, into one
`evaluate` call, rendered. Part of the CLI layer: no library module imports it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from .errors import JudgeAgentError

# Options that define a run; --resume takes them from the run's manifest.
_REQUEST = ("target", "benchmark", "field", "graph", "interviewer", "judge", "base_url", "limit", "sample", "seed",
            "batch_size", "rounds", "hops", "questions_per_round", "no_graph", "path", "fixed_difficulty", "adaptive",
            "no_extension", "passages", "max_passage_words", "holdout", "judge_policy", "easy_generator",
            "no_self_check")


def run_evaluate(args: dict[str, Any]) -> None:
    if args["resume"]:
        args = _from_run(Path(args["resume"]), args)
    if not args["target"] or not args["benchmark"]:
        import click

        raise click.UsageError("evaluate needs --target and --benchmark (or --resume RUN)")  # exit 2
    from .config import EvalConfig
    from .models.spec import load_registry
    from .interview.evaluate import evaluate
    from .interview.summary import render_summary

    config = _config(args, EvalConfig)
    graph = _graph(args)
    benchmark = _benchmark(args, graph)
    registry = load_registry(args["config"])
    if args["base_url"]:
        registry = registry.with_endpoint(args["target"], args["base_url"])
    request = {k: (str(v) if isinstance(v, Path) else v) for k, v in args.items() if k in _REQUEST}
    if args["dry_run"] or not args["quiet"]:
        typer.echo(_estimate(config, benchmark, registry, args, graph), err=not args["dry_run"])
    if args["dry_run"]:
        return
    batches = -(-len(benchmark.items) // config.batch_size)
    rounds = config.rounds * config.questions_per_round if config.extension else 0
    with _progress(args["quiet"], len(benchmark.items) + batches * rounds, batches) as on_record:
        result = evaluate(benchmark, graph, args["target"], interviewer=args["interviewer"], judge=args["judge"],
                          config=config, run_dir=args["run_dir"], registry=registry, cache_dir=args["cache_dir"],
                          cache=not args["no_cache"], progress=on_record, request=request,
                          notify=lambda line: typer.echo(line, err=True), max_cost=args["max_cost"],
                          on_stage=on_record.stage if on_record else None)
    if result.resumed and not result.usage:
        typer.echo("this run had finished: nothing to do")
    typer.echo(render_summary(result.summary, str(result.folder), result.usage))
    if args["validate"]:
        from .interview.validate import render_validation, validate

        typer.echo(render_validation(validate(result.folder, registry=registry, cache_dir=args["cache_dir"],
                                              cache=not args["no_cache"],
                                              progress=validation_progress(args["quiet"]))))


def validation_progress(quiet: bool) -> Any:
    """A line every tenth of the way (and at the end) on stderr, unless quiet."""
    def said(done: int, total: int) -> None:
        if not quiet and (done == total or done % max(1, total // 10) == 0):
            typer.echo(f"validation: {done}/{total} questions answered with and without suggestions", err=True)

    return said


def _estimate(config: Any, benchmark: Any, registry: Any, args: dict[str, Any], graph: Any) -> str:
    """The calls, tokens and cost this run will take, as ranges (a run that resumes pays less)."""
    from .interview.estimate import estimate_run, render_estimate

    names = {"target": args["target"], "interviewer": args["interviewer"] or args["target"]}
    names["judge"] = args["judge"] or names["interviewer"]
    prices = {role: registry.resolve(name).prices for role, name in names.items()}
    words = (graph.manifest.get("config", {}).get("chunking", {}) or {}).get("max_words", 150) if graph else 150
    table = render_estimate(estimate_run(config, benchmark.items, prices, chunk_words=words))
    return f"estimate for {len(benchmark.items)} items (calls, tokens and cost, low-high):\n{table}"


def _from_run(folder: Path, args: dict[str, Any]) -> dict[str, Any]:
    from .runs import load_manifest

    request = load_manifest(folder).get("request") or {}
    if not request:
        raise JudgeAgentError(f"run {folder} does not record how it was started; rerun the evaluate command")
    return {**args, **request, "run_dir": folder}


def _config(args: dict[str, Any], cls: Any) -> Any:
    level = args["fixed_difficulty"]
    if level not in (None, "easy", "medium", "hard"):
        raise JudgeAgentError(f"--fixed-difficulty must be easy, medium or hard; got {level!r}")
    choices = {"judge_policy": ("calibrated", "trust", "off"), "easy_generator": ("cloze", "llm"),
               "adaptive": ("tiers", "irt"), "path": ("graph", "dense")}
    for name, allowed in choices.items():
        if args[name] not in allowed:
            raise JudgeAgentError(f"--{name.replace('_', '-')} must be {', '.join(allowed)}; got {args[name]!r}")
    from pydantic import ValidationError

    from .config import CheckerConfig
    from .protocols.options import cross_field_problem

    try:
        return cls(batch_size=args["batch_size"], rounds=args["rounds"], hops=args["hops"],
                   questions_per_round=args["questions_per_round"], seed=args["seed"], graph=not args["no_graph"],
                   path=args["path"],
                   fixed_difficulty=level, adaptive=args["adaptive"], extension=not args["no_extension"],
                   max_passage_words=args["max_passage_words"], holdout=args["holdout"],
                   checker=CheckerConfig(judge_policy=args["judge_policy"]), easy_generator=args["easy_generator"],
                   self_check=() if args["no_self_check"] else ("medium", "hard"))
    except ValidationError as e:  # flags that contradict each other (EvalConfig's checks across fields)
        raise JudgeAgentError(f"options contradict: {cross_field_problem(e)}") from None


def _graph(args: dict[str, Any]) -> Any:
    if not args["graph"]:
        return None
    from .graph.store import load_graph

    return load_graph(args["graph"])


def _benchmark(args: dict[str, Any], graph: Any) -> Any:
    from .benchmark import attach_passages, load_benchmark

    from .benchmark import ItemFields
    from .cli import parse_fields

    benchmark = load_benchmark(args["benchmark"], parse_fields(args["field"], ItemFields), limit=args["limit"],
                               sample=args["sample"], seed=args["seed"])
    if args["passages"]:
        if graph is None:
            raise JudgeAgentError("--passages takes the documents from the graph: give --graph")
        from .graph.model import document_texts

        benchmark = attach_passages(benchmark, document_texts(graph))
    return benchmark


class _progress:
    """A tqdm bar over every question asked (base and extension), named by the stage it is in, with
    batches done, tokens and cost so far; a non-terminal gets one line per stage instead."""

    def __init__(self, quiet: bool, total: int, batches: int = 0) -> None:
        self.quiet, self.total, self.n_batches = quiet, total, batches
        self.bar: Any = None
        self.asked = self.batches = 0
        self.stage_name = ""

    def __enter__(self) -> Any:
        if self.quiet:
            return None
        import sys

        from tqdm import tqdm

        self.bar = tqdm(total=self.total, desc="starting", unit="q", disable=not sys.stderr.isatty())
        return self

    def __call__(self, record: dict[str, Any] | None, ledger: Any) -> None:
        if record is None:
            self.batches += 1
            self.stage(f"feedback for {self.batches} of {self.n_batches} batches written")
        else:
            self.asked += 1
            self.bar.update(1)
            round_ = record.get("round")
            self.stage("base questions" if record["stage"] == "grading" else f"extension round {round_}")
        lines = ledger.roles.values()
        self.bar.set_postfix(batches=f"{self.batches}/{self.n_batches}",
                             tokens=sum(u.input_tokens + u.output_tokens for u in lines),
                             cost=f"${sum(u.cost for u in lines):.4f}")

    def stage(self, name: str) -> None:
        """A new stage: the bar's name on a terminal, one line elsewhere."""
        if self.bar is None or name == self.stage_name:
            return
        self.stage_name = name
        if self.bar.disable:
            typer.echo(f"{name} ({self.asked} questions asked, {self.bar.format_interval(self.bar.format_dict['elapsed'])})",
                       err=True)
        else:
            self.bar.set_description(name)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()
