"""`judgeagent recipes` and `judgeagent reproduce`: the papers' headline experiments with their settings."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import Interrupted, JudgeAgentError
from .app import app
from .fields import ConfigOption, parse_roles

if TYPE_CHECKING:
    from ..benchmark import Benchmark
    from ..graph.model import ContextGraph
    from ..protocols.base import Protocol
    from ..recipes.catalogue import OptionValue, Recipe


@app.command("recipes")
def recipes_cmd(
    name: Annotated[Optional[str], typer.Argument(help="One recipe (default: all).")] = None,
) -> None:
    """List the papers' headline experiments: protocol, roles, data, items, options, calls, published table."""
    from ..recipes import get_recipe, render_catalogue

    typer.echo(render_catalogue(get_recipe(name) if name else None), nl=False)


@app.command("reproduce")
def reproduce_cmd(
    name: Annotated[str, typer.Argument(help="The recipe (judgeagent recipes lists them).")],
    role: Annotated[list[str], typer.Option("--role", help="ROLE=MODEL (repeat): the model under evaluation, and "
                                            "any role to run on another model than the paper's.")] = [],
    data: Annotated[Optional[str], typer.Option(help="The paper's data: FORMAT:PATH, or PATH in the recipe's "
                                                "format (judgeagent recipes NAME shows it).")] = None,
    graph: Annotated[Optional[Path], typer.Option(help="Context graph folder (the JudgeAgent recipes need one).")] = None,
    paper_row: Annotated[Optional[str], typer.Option(help="Keep only this row of the paper's beside ours (a "
                                                     "model as the paper names it; default: every row).")] = None,
    limit: Annotated[Optional[int], typer.Option(min=1, help="A smaller run: N of the paper's items (stratified "
                                                 "recipes keep their strata).")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", help="Change one of the recipe's settings, "
                                              "KEY=VALUE (repeat); reproduce.md prints each beside the paper's.")] = [],
    run_dir: Annotated[Optional[Path], typer.Option(help="Run folder (default: a new one under runs/); the same folder again resumes the run.")] = None,
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the items, calls and cost, and exit.")] = False,
) -> None:
    """Run one recipe with the paper's settings and scoring; the report puts our numbers beside the paper's rows."""
    from ..models.spec import load_registry
    from ..protocols.options import split_options

    registry = load_registry(config)  # prepare checks --paper-row before anything is read or called

    plan = prepare(name, parse_roles(role), data, graph, limit, workdir=run_dir.parent if run_dir else Path("runs"),
                   dry_run=dry_run, overrides=split_options(option), paper_row=paper_row)
    if dry_run:
        typer.echo(render_plan(plan, registry))
        return
    typer.echo(render_plan(plan, registry), err=True)
    try:
        _summary, table, folder = reproduce(plan, registry, run_dir=run_dir, cache=not no_cache, paper_row=paper_row)
    except KeyboardInterrupt:  # the run's journal keeps every finished call
        again = f"the same command{' (same --run-dir)' if run_dir else ''}"
        raise Interrupted(f"resume with {again}: finished calls are not made again") from None
    typer.echo(table)
    typer.echo(f"run: {folder}")


@dataclass(frozen=True)
class ReproducePlan:
    """A recipe made ready to run: checked before any model call, shown by `--dry-run`, then run."""

    recipe: Recipe
    protocol: Protocol
    models: dict[str, str]
    """Role -> model name (NAME,NAME for a many-model role): the paper's, or the one `--role` gave."""
    benchmark: Benchmark
    graph: ContextGraph | None
    options: dict[str, OptionValue]
    """The protocol's options: the recipe's, with the overrides applied."""
    paragraphs: str | None
    """DynaEval: what its items are (problems or paragraphs), said in place of a count."""
    segments: int
    """The items the call estimate counts (DynaEval: the problems or segments its own file holds)."""
    overrides: dict[str, tuple[str, str]]
    """`-o KEY=VALUE`: key -> (the paper's setting, this run's)."""


def prepare(name: str, roles: dict[str, str], data: str | None, graph: Path | None, limit: int | None,
            workdir: Path = Path("runs"), dry_run: bool = False,
            overrides: dict[str, str] | None = None, paper_row: str | None = None) -> ReproducePlan:
    """The recipe, its roles (the paper's models where not given), its items and graph: checked, before any call.
    `overrides` (`-o KEY=VALUE`) replace the recipe's settings; each is checked against the protocol's options
    and kept with the paper's setting for reproduce.md.

    A DynaEval task reads its own file: the recipe writes it from the data into `workdir` (named by its content,
    so the same data gives the same file and a run resumes)."""
    from ..benchmark import Benchmark, load_benchmark
    from ..benchmarks import is_spec
    from ..protocols import get_protocol
    from ..recipes import check_paper_row, get_recipe, select_items

    recipe = get_recipe(name)
    check_paper_row(recipe, paper_row)
    protocol = get_protocol(recipe.protocol)
    unknown = sorted(set(roles) - set(recipe.roles))
    if unknown:
        raise JudgeAgentError(f"recipe {name} has no role {unknown[0]!r}; its roles: {', '.join(recipe.roles)}")
    missing = [r for r, m in recipe.roles.items() if m == "{target}" and r not in roles]
    if missing:
        raise JudgeAgentError(f"recipe {name} evaluates your model: give --role {missing[0]}=MODEL")
    models = {r: roles.get(r, m) for r, m in recipe.roles.items()}
    benchmark, every = Benchmark(Path("no-benchmark"), []), []
    if recipe.data_format is not None or data:
        if not data:
            raise JudgeAgentError(f"recipe {name} reads the paper's data: give --data (as published: {recipe.data})")
        spec = data if is_spec(data) or recipe.data_format is None else f"{recipe.data_format}:{data}"
        loaded = load_benchmark(spec)
        every = loaded.items
        benchmark = Benchmark(loaded.path, select_items(recipe, loaded.items, limit), notes=loaded.notes)
    loaded_graph = None
    if recipe.needs and graph is None and recipe.protocol == "judgeagent":
        raise JudgeAgentError(f"recipe {name} needs {recipe.needs[0]}")
    if graph is not None:
        from ..graph.store import load_graph

        loaded_graph = load_graph(graph)
    options: dict[str, OptionValue] = dict(recipe.options)
    paragraphs: str | None = None
    segments = len(benchmark.items)
    if recipe.protocol == "dynaeval" and options.get("task") == "code" and benchmark.items:
        # The code task reads MBPP's file itself and plays a seeded sample of its test split.
        tests = sum(1 for i in every if i.meta.get("split") == "test")
        if not tests:
            raise JudgeAgentError(f"{benchmark.path}: no problem of MBPP's test split (task_ids 11-510) in it; "
                                  "give MBPP's own mbpp.jsonl")
        problems = data.removeprefix(f"{recipe.data_format}:") if data else ""
        options |= {"problems": problems, "items": min(limit or tests, tests)}
        segments = min(limit or tests, tests)
        paragraphs = f"{segments} problems of MBPP's test split ({tests}), a seeded sample when fewer"
        benchmark = Benchmark(Path("no-benchmark"), [], notes=benchmark.notes)
    elif recipe.protocol == "dynaeval" and benchmark.items:
        from ..recipes import translation_sources

        rows = translation_sources(benchmark.items, int(recipe.extra.get("paragraph_segments", 5)))
        paragraphs = f"{len(rows)} paragraphs from {len(benchmark.items)} segments (the game plays `items` of them)"
        options["sources"] = "(written when the run starts)" if dry_run else str(_sources_file(recipe, rows, workdir))
        benchmark = Benchmark(Path("no-benchmark"), [], notes=benchmark.notes)
    changed = _overrides(protocol, options, overrides or {})
    options |= {k: new for k, (_, new) in changed.items()}
    return ReproducePlan(recipe, protocol, models, benchmark, loaded_graph, options, paragraphs, segments, changed)


def _overrides(protocol: Any, options: dict[str, OptionValue], overrides: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each override as (the paper's setting, ours): the recipe's value, else the protocol's default. Checked
    against the protocol's options with the recipe's (an unknown key or a bad value fails in one line)."""
    from ..protocols.options import parse_options

    if not overrides:
        return {}
    parse_options(protocol, {**options, **overrides})
    fields = protocol.Config.model_fields
    out = {}
    for key, value in overrides.items():
        if key in options:
            paper = str(options[key])
        else:
            default = fields[key].default if key in fields else None
            paper = "(not set: the default)" if default is None else f"{default} (not set: the default)"
        out[key] = (paper, value)
    return out


def overrides_table(changed: dict[str, tuple[str, str]]) -> str:
    """reproduce.md's record of the settings changed from the paper's (empty when none)."""
    if not changed:
        return ""
    rows = "".join(f"| `{k}` | {paper} | {ours} |\n" for k, (paper, ours) in changed.items())
    return ("\nSettings changed from the paper's (`-o`): the numbers above are not the paper's setup.\n\n"
            "| option | the paper's setting | this run |\n|---|---|---|\n" + rows)


def _sources_file(recipe: Any, rows: list[dict[str, str]], workdir: Path) -> Path:
    import hashlib
    import json

    from ..files import write_text_atomic

    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path = workdir / f"{recipe.name}-sources-{hashlib.sha256(text.encode()).hexdigest()[:12]}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    return path


def render_plan(plan: ReproducePlan, registry: Any) -> str:
    """Items, roles, expected calls and, where the paper gives tokens and the registry prices, the cost."""
    from ..recipes import estimate_calls, typical_calls

    recipe, benchmark = plan.recipe, plan.benchmark
    students = max(len(str(m).split(",")) for m in plan.models.values())
    # DynaEval's translation reads its paragraphs from a file of its own: count the segments they came from
    low, high = estimate_calls(recipe, plan.segments or len(benchmark.items), students, plan.options)
    lines = [f"recipe {recipe.name}: {recipe.experiment}",
             "  items: " + (plan.paragraphs or f"{len(benchmark.items)}" + (
                 f" (the paper: {recipe.items})" if recipe.items else "")),
             "  roles: " + ", ".join(f"{k}={v}" for k, v in plan.models.items()),
             "  options: " + ", ".join(f"{k}={v}" for k, v in plan.options.items()),
             *(f"  changed: {k}={ours} (the paper's: {paper})" for k, (paper, ours) in plan.overrides.items()),
             f"  calls: {low}-{high}" + _typical(typical_calls(recipe, len(benchmark.items), plan.options))]
    if recipe.calls.tokens_per_call:
        prompt, completion = recipe.calls.tokens_per_call
        lines.append(f"  tokens: {low * prompt:,}-{high * prompt:,} prompt, {low * completion:,}-{high * completion:,} "
                     "completion (the paper's average call)")
        cost = price_range(plan.models, registry, (low, high), (prompt, completion))
        if cost:
            lines.append(f"  cost: ${cost[0]:.2f}-${cost[1]:.2f} at the configured prices (all calls priced as the "
                         "dearest role)")
    lines += [f"  note: {note}" for note in benchmark.notes]
    lines += [f"  missing here: {m}" for m in recipe.missing]
    lines += [f"  differs from the paper: {d}" for d in recipe.differs]
    return "\n".join(lines)


def _typical(calls: int | None) -> str:
    return "" if calls is None else f" (typical {calls}: every stage once, no retry or skip, every calibration pair)"


def price_range(models: dict[str, str], registry: Any, calls: tuple[int, int], tokens: tuple[int, int]) -> tuple[float, float] | None:
    """The cost of `calls` calls of `tokens` (prompt, completion) tokens each, every call priced as the dearest
    of `models` (role -> name or NAME,NAME); None when none has a price."""
    prices = []
    for model in models.values():
        for single in str(model).split(","):
            try:
                p = registry.resolve(single).prices
            except JudgeAgentError:
                continue
            prices.append(p.input * tokens[0] / 1e6 + p.output * tokens[1] / 1e6)
    if not prices or max(prices) == 0:
        return None
    return calls[0] * max(prices), calls[1] * max(prices)


def reproduce(plan: ReproducePlan, registry: Any, *, run_dir: Path | None = None, cache: bool = True,
              paper_row: str | None = None, cache_dir: Path | None = None) -> tuple[dict[str, Any], str, Path]:
    """Run the recipe; return the summary, the table beside the paper's row, and the run folder."""
    from ..files import write_text_atomic
    from ..protocols import run_protocol
    from ..recipes import render_reproduce

    recipe = plan.recipe
    request = {"recipe": recipe.name, "protocol": recipe.protocol, "role": [f"{k}={v}" for k, v in plan.models.items()]}
    result = run_protocol(plan.protocol, plan.benchmark, plan.graph, models=plan.models,
                          config=dict(plan.options), run_dir=run_dir, registry=registry, cache=cache,
                          cache_dir=cache_dir, request=request)
    summary = dict(result.summary)
    if recipe.protocol == "judgeagent":  # ACC1/ACC2/CR/CtE: the feedback validated, as the paper does
        from ..protocols.judgeagent.validate import validate

        summary["validation"] = validate(result.folder, registry=registry, cache=cache, cache_dir=cache_dir)
    target = next(plan.models[r] for r, m in recipe.roles.items() if m == "{target}")
    items = plan.segments or len(plan.benchmark.items)
    table = render_reproduce(recipe, summary, str(target), paper_row, plan.models, plan.options, items)
    table += overrides_table(plan.overrides)
    if recipe.missing:
        table += "\nWhat this tool does not have yet (the run went without it):\n" + "".join(f"- {m}\n" for m in recipe.missing)
    if recipe.differs:
        table += "\nWhat differs from the paper:\n" + "".join(f"- {d}\n" for d in recipe.differs)
    write_text_atomic(Path(result.folder) / "reproduce.md", table)
    return summary, table, Path(result.folder)
