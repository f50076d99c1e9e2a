"""`judgeagent evaluate`: one route for every protocol, JudgeAgent's included, and `judgeagent protocols`.

The flags and `-o KEY=VALUE` options become one options mapping that `parse_options` checks against the
chosen protocol's `Config` (its `Literal` types decide which values are allowed): a flag sets the option
of its name (`--batch-size` is `batch_size`, `--no-graph` is `graph=false`) when the protocol has one, and
is refused when it has none. Only flags given on the command line count, so a protocol's own defaults
hold. A run's manifest keeps the options given; `--resume RUN` takes them back.
"""
from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, TypedDict, cast

import typer

from ..errors import Interrupted, JudgeAgentError
from ..limits import MAX_BATCH_SIZE, MAX_HOPS, MAX_QUESTIONS_PER_ROUND, MAX_ROUNDS
from .app import app
from .bars import progress_for
from .fields import ConfigOption, parse_fields, parse_roles
from .plan import plan_head, render_plan

if TYPE_CHECKING:
    from ..models.base import ModelSettings
    from ..protocols.base import RoleChoice, Seats
    from ..runs import RunArgs


class EvaluateArgs(TypedDict):
    """`evaluate`'s parameters as typer parses them (`ctx.params`); with `--resume`, those the run's manifest
    recorded (`RunArgs`, paths as text) replace them."""

    protocol: str
    option: list[str]
    target: str | None
    role: list[str]
    benchmark: Path | str | None
    graph: Path | str | None
    interviewer: str | None
    judge: str | None
    base_url: str | None
    temperature: float | None
    max_tokens: int | None
    max_connections: int | None
    model_arg: list[str]
    config: Path | None
    field: list[str]
    limit: str | None
    sample_id: list[str]
    sample: int | None
    batch_size: int
    rounds: int
    hops: int
    questions_per_round: int
    seed: int
    no_graph: bool
    path: str
    fixed_difficulty: str | None
    adaptive: str
    no_extension: bool
    passages: bool
    max_passage_words: int | None
    run_dir: Path | None
    resume: Path | None
    no_cache: bool
    cache_dir: Path | None
    holdout: float
    judge_policy: str
    hard_probes: bool
    equivalence_weights: Path | None
    easy_generator: str
    no_self_check: bool
    validate: bool
    quiet: bool
    dry_run: bool
    max_cost: float | None

RUN_KEYS = ("protocol", "option", "role", "target", "benchmark", "field", "graph", "interviewer", "judge", "base_url",
            "limit", "sample_id", "sample", "seed", "batch_size", "rounds", "hops", "questions_per_round", "no_graph", "path",
            "fixed_difficulty", "adaptive", "no_extension", "passages", "max_passage_words", "holdout",
            "judge_policy", "easy_generator", "no_self_check", "temperature", "max_tokens", "max_connections",
            "model_arg", "equivalence_weights", "hard_probes")
"""The options that define a run: the manifest keeps those given, and `--resume` takes them back."""

CONFIG_FLAGS = {"batch_size": None, "rounds": None, "hops": None, "questions_per_round": None, "seed": None,
                "path": None, "fixed_difficulty": None, "adaptive": None, "max_passage_words": None, "holdout": None,
                "easy_generator": None, "judge_policy": None, "hard_probes": None, "no_graph": ("graph", False),
                "no_extension": ("extension", False), "no_self_check": ("self_check", ())}
"""Flags that set a protocol option: of the same name, or (option, value) for the negative flags."""


@app.command("evaluate")
def evaluate_cmd(
    ctx: typer.Context,
    protocol: Annotated[str, typer.Option(help="The interview protocol (judgeagent protocols lists them).")] = "judgeagent",
    option: Annotated[list[str], typer.Option("--option", "-o", help="A protocol option KEY=VALUE (repeat; "
                                              "judgeagent protocols lists them).")] = [],
    target: Annotated[Optional[str], typer.Option(help="The model under evaluation (name, local, provider:model).")] = None,
    role: Annotated[list[str], typer.Option("--role", help="A protocol's role NAME=MODEL (repeat; MODEL,MODEL for "
                                            "a role of several, e.g. students; judgeagent protocols lists them).")] = [],
    benchmark: Annotated[Optional[Path], typer.Option(help="Benchmark file (.jsonl, .json, .csv, .parquet), or FORMAT:PATH in its publisher's format (mmlu, arc, hellaswag, ceval, math, gsm8k, mbpp, iwslt, teach2eval, medqa, quality; FORMAT:hf:SOURCE via Hugging Face datasets; docs/reproduce.md).")] = None,
    graph: Annotated[Optional[Path], typer.Option(help="Context graph folder made by build-graph.")] = None,
    interviewer: Annotated[Optional[str], typer.Option(help="Writes questions and feedback (default: the target).")] = None,
    judge: Annotated[Optional[str], typer.Option(help="Judges free-text answers (default: the interviewer).")] = None,
    base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible endpoint for an ad-hoc target.")] = None,
    temperature: Annotated[Optional[float], typer.Option(min=0, max=2, help="Sampling temperature of every "
                                                         "model of the run (default: the registry's, 0).")] = None,
    max_tokens: Annotated[Optional[int], typer.Option(min=1, help="Reply length cap of every model of the "
                                                      "run, in tokens.")] = None,
    max_connections: Annotated[Optional[int], typer.Option(min=1, help="Requests in flight per endpoint.")] = None,
    model_arg: Annotated[list[str], typer.Option("--model-arg", "-M", help="A model setting KEY=VALUE for every "
                                                 "model of the run, ROLE.KEY=VALUE for one role's (repeat): "
                                                 "temperature, top_p, max_tokens, seed, max_connections, timeout, "
                                                 "max_retries, structured_output.")] = [],
    config: ConfigOption = None,
    field: Annotated[list[str], typer.Option(help="Map an item field to another column: question=prompt, answer=meta.exact_answer (dotted = nested)")] = [],
    limit: Annotated[Optional[str], typer.Option(help="Only some items: the first N (10), a fraction (0.2) or a "
                                                 "range (10-20, from 1).")] = None,
    sample_id: Annotated[list[str], typer.Option(help="Only the items of these ids (repeat, or comma-separated).")] = [],
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
    hard_probes: Annotated[bool, typer.Option("--hard-probes", help="Calibrate the judge with hard negatives (a "
                                              "near number, another gold of the asked kind, part of the answer, "
                                              "another question's gold about the same subject).")] = False,
    equivalence_weights: Annotated[Optional[Path], typer.Option(
        help="The learned answer-equivalence step's weights: evouna-tq (default, shipped: trained on EVOUNA "
             "TriviaQA, Apache-2.0), a file from scripts/train_equivalence.py, or none (off): used for answers "
             "no rule decides when no judge is used, if its calibration passed; recorded with its sha256.")] = None,
    easy_generator: Annotated[str, typer.Option(help="Easy-tier questions: cloze (no model, exact) or llm.")] = "cloze",
    no_self_check: Annotated[bool, typer.Option("--no-self-check", help="Skip the interviewer answering its own "
                                                "medium and hard questions before they are asked.")] = False,
    validate: Annotated[bool, typer.Option("--validate", help="Validate the feedback when the run is done.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the items, roles, options and calls the run "
                                          "would take (JudgeAgent's also tokens and cost, from the configured "
                                          "prices), call no model, and exit.")] = False,
    max_cost: Annotated[Optional[float], typer.Option(min=0, help="Stop (resumably) once this many dollars are "
                                                      "spent by the run, over every invocation, by the configured "
                                                      "prices.")] = None,
) -> None:
    """Interview a target model on a benchmark: grading, graph-driven extension, feedback (Algorithm 1)."""
    # Compared by name: typer may carry its own copy of click, whose ParameterSource is another enum.
    given = {name for name in ctx.params
             if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in ("DEFAULT", "DEFAULT_MAP")}
    try:
        run_evaluate(cast("EvaluateArgs", dict(ctx.params)), given)
    except KeyboardInterrupt:  # what is recorded stays; the journal answers the finished calls again
        raise Interrupted("resume with the same command") from None


def run_evaluate(args: EvaluateArgs, given: set[str]) -> None:
    """The one route: the protocol, its config from flags and options, the inputs, the roles; run; render."""
    from ..models.spec import load_registry
    from ..protocols import get_protocol, run_protocol

    _refuse_contradictions(args, given)
    protocol = get_protocol(_protocol_name(args, given))
    if args["resume"]:
        from ..runs import load_manifest

        stored = _from_run(Path(args["resume"]))
        recorded = load_manifest(Path(args["resume"])).get("equivalence") or {}
        _same_weights(args, given, stored, recorded.get("weights"))
        _same_options(args, given, stored)
        args, given = cast(EvaluateArgs, {**args, **stored, "run_dir": Path(args["resume"])}), given | set(stored)
    _check_required(protocol, args)
    if args["validate"] and protocol.name != "judgeagent":
        raise JudgeAgentError(f"--validate is JudgeAgent's; protocol {protocol.name} has no such step yet")
    config = protocol_config(protocol, args, given)
    shared: dict[str, RoleChoice] = {r: args[r] for r in ("target", "interviewer", "judge") if args[r]}
    models: dict[str, RoleChoice] = {**shared, **parse_roles(args["role"])}
    resolved = protocol.resolve_roles(models)  # a role the protocol has not fails before any input is read
    clock = time.perf_counter()
    graph = _graph(args["graph"])
    benchmark = _benchmark(args, graph)
    if args["max_passage_words"] and not any(item.passage for item in benchmark.items):
        raise JudgeAgentError(f"--max-passage-words cuts the items' passages, and no item of {args['benchmark']} has "
                              "one: give --passages (their documents from the graph) with it, or leave it out")
    timings = {"loading graph and benchmark": time.perf_counter() - clock}
    registry = load_registry(args["config"])
    if args["base_url"]:
        if not args["target"]:
            raise JudgeAgentError("--base-url gives the endpoint of --target; give --target NAME with it")
        registry = registry.with_endpoint(args["target"], args["base_url"])
    from .role_settings import apply_role_settings, split_settings

    settings, by_role = split_settings(model_settings(args))
    role_given: dict[str, ModelSettings] = {}
    if settings:
        names = [n for value in resolved.values() for n in (value if isinstance(value, list) else [value])
                 if isinstance(n, str)]
        registry = registry.with_settings(list(dict.fromkeys(names)), settings)
    if by_role:  # each set role on its own copy of its model: the run is given every role's model by name
        registry, resolved, role_given = apply_role_settings(registry, resolved, by_role, protocol.name)
        models = resolved
    request = cast("RunArgs", {k: (str(v) if isinstance(v, Path) else v) for k, v in args.items()
                               if k in RUN_KEYS and k in given})
    request["protocol"] = protocol.name
    warn = _echo_err
    if protocol.name == "judgeagent" and (args["dry_run"] or not args["quiet"]):
        typer.echo(plan_head(protocol, config, benchmark, resolved, role_given, dry=args["dry_run"]),
                   err=not args["dry_run"])
        typer.echo(_estimate(config, benchmark, registry, resolved, graph), err=not args["dry_run"])
    if protocol.name != "judgeagent" and (args["dry_run"] or not args["quiet"]):
        typer.echo(render_plan(protocol, config, benchmark, resolved, role_given, dry=args["dry_run"],
                               registry=registry),
                   err=not args["dry_run"])
    if args["dry_run"]:  # what the run would refuse before its first call, a dry run refuses too
        from ..grading.equivalence import for_run
        from ..runs import check_run_folder

        if args["run_dir"]:
            check_run_folder(Path(args["run_dir"]))
        if args.get("equivalence_weights") and protocol.grades_free_text:  # the others' runs turn the step off
            for_run(args["equivalence_weights"])
        return
    clock = time.perf_counter()
    with progress_for(protocol.name, args["quiet"], config, benchmark) as progress:
        result = run_protocol(protocol, benchmark, graph, models=models, config=config, run_dir=args["run_dir"],
                              registry=registry, cache_dir=args["cache_dir"], cache=not args["no_cache"],
                              max_cost=args["max_cost"], request=request, notify=warn, progress=progress,
                              on_stage=getattr(progress, "stage", None),
                              equivalence_weights=args.get("equivalence_weights"))
    timings["run"] = time.perf_counter() - clock
    if result.resumed and not result.usage:
        typer.echo("this run had finished: nothing to do")
    typer.echo(protocol.render_summary(result.summary, str(result.folder)))  # its usage: the whole run's
    if args["validate"]:
        from ..protocols.judgeagent.validate import render_validation, validate
        from .results import validation_progress

        clock = time.perf_counter()
        typer.echo(render_validation(validate(result.folder, registry=registry, cache_dir=args["cache_dir"],
                                              cache=not args["no_cache"],
                                              progress=validation_progress(args["quiet"]))))
        timings["validation"] = time.perf_counter() - clock
    typer.echo(render_timings(timings, result.timings), err=True)  # diagnostics: stdout stays the results


def model_settings(args: EvaluateArgs) -> ModelSettings:
    """--temperature, --max-tokens, --max-connections and each -M KEY=VALUE (a JSON value, else text), one dict;
    a setting given twice is one line naming it."""
    import json

    settings: ModelSettings = {k: args[k] for k in ("temperature", "max_tokens", "max_connections") if args.get(k) is not None}
    for pair in args.get("model_arg") or []:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise JudgeAgentError(f"-M {pair!r}: give KEY=VALUE, e.g. -M temperature=0.7")
        key = key.strip()
        if key in settings:
            raise JudgeAgentError(f"model setting {key} is given twice: give it once")
        try:
            settings[key] = json.loads(text)
        except ValueError:
            settings[key] = text
    return settings


def _refuse_contradictions(args: EvaluateArgs, given: set[str]) -> None:
    """Options that cannot both hold, in one line before anything is read."""
    if args["resume"] and "run_dir" in given and Path(args["run_dir"]) != Path(args["resume"]):
        raise JudgeAgentError(f"--resume {args['resume']} continues the run in that folder and --run-dir names another "
                              f"({args['run_dir']}): give one of them")


def render_timings(outer: dict[str, float], run: dict[str, float]) -> str:
    """One line of where `evaluate`'s time went: loading, the run (its setup, e.g. the judge's calibration,
    and its episodes), validation; and the seconds spent inside each role's model calls (calls in flight
    together each count, so these can add up to more than the run)."""
    parts = [f"{k} {v:.1f} s" for k, v in outer.items() if k != "run" and k != "validation"]
    if "run" in outer:
        inner = [f"{'setup' if k == 'prepare' else k} {v:.1f}" for k, v in run.items() if not k.startswith("model:")]
        parts.append(f"run {outer['run']:.1f} s" + (f" ({', '.join(inner)})" if inner else ""))
    if "validation" in outer:
        parts.append(f"validation {outer['validation']:.1f} s")
    models = [f"{k.removeprefix('model:')} {v:.1f} s" for k, v in run.items() if k.startswith("model:")]
    return "time: " + ", ".join(parts) + (f"; inside model calls: {', '.join(models)}" if models else "")


def protocol_config(protocol: Any, args: EvaluateArgs, given: set[str]) -> Any:
    """The protocol's `Config` from the flags given and the `-o` options (one line for any conflict)."""
    from ..protocols.options import parse_options, split_options

    fields = protocol.Config.model_fields
    options: dict[str, Any] = {}
    flags: Mapping[str, object] = args  # by the names in CONFIG_FLAGS
    for flag, mapped in CONFIG_FLAGS.items():
        if flag not in given:
            continue
        if mapped and not flags[flag]:
            continue  # a negative flag off (a resumed run's manifest keeps it as false)
        key, value = mapped or (flag, flags[flag])
        if key not in fields and key in ("judge_policy", "hard_probes") and "checker" in fields:
            key = f"checker.{key}"  # JudgeAgent's answer checker holds it
        elif key not in fields:
            if flag == "seed":
                continue  # it also draws --sample's items, whether the protocol has a seed or not
            raise JudgeAgentError(f"--{flag.replace('_', '-')} is not an option of protocol {protocol.name} "
                                  "(judgeagent protocols lists its options)")
        options[key] = value
    for key, value in split_options(args["option"] or []).items():
        if key in options:
            raise JudgeAgentError(f"option {key} of protocol {protocol.name} is given twice, as a flag and as "
                                  f"-o {key}={value}: give it once")
        options[key] = value
    return parse_options(protocol, options)


def _protocol_name(args: EvaluateArgs, given: set[str]) -> str:
    """The protocol named, or the one of the run `--resume` continues (JudgeAgent by default)."""
    resume = args["resume"]
    if not resume:
        return str(args["protocol"])
    from ..runs import load_manifest, run_protocol_name

    ran = run_protocol_name(load_manifest(Path(resume)), Path(resume))
    if "protocol" in given and args["protocol"] != ran:  # else its options would be read as the wrong protocol's
        raise JudgeAgentError(f"run {resume} is a {ran} run and this command gives --protocol {args['protocol']}: "
                              "resume without --protocol, or start a new run (--run-dir) for the other protocol")
    return ran


def _check_required(protocol: Any, args: EvaluateArgs) -> None:
    """A usage error (exit 2) for a missing --target or --benchmark the protocol cannot run without."""
    target = next((r for r in protocol.roles if r.name == "target"), None)
    needs = {"--target": target is not None and not target.defaults and not target.model,
             "--benchmark": "benchmark" in protocol.needs}
    given = {"--target": bool(args["target"]) or "target" in parse_roles(args["role"]),
             "--benchmark": bool(args["benchmark"])}
    if any(needs[f] and not given[f] for f in needs):
        import click

        raise click.UsageError(f"evaluate needs {' and '.join(f for f in needs if needs[f])} (or --resume RUN)")


def _same_weights(args: EvaluateArgs, given: set[str], stored: RunArgs, recorded: str | None = None) -> None:
    """`--resume` with `--equivalence-weights` naming other weights than the run's is refused in one line (the same
    file with other bytes is refused by the run's identity, which holds their sha256). The run's are those its
    command named, else the file its manifest records (`recorded`; None: the run graded without the step)."""
    from ..grading.equivalence import OFF, is_off, named

    if "equivalence_weights" not in given:
        return
    then, now = stored.get("equivalence_weights") or recorded or OFF, args["equivalence_weights"]
    if is_off(then) and is_off(now) or not is_off(then) and not is_off(now) and (
            named(then).resolve() == named(str(now)).resolve()):
        return
    had = "no learned-step weights" if is_off(then) else then
    raise JudgeAgentError(f"run {args['resume']} graded with {had} and --equivalence-weights names {now}: "
                          "resume without it, or start a new run")


def _same_options(args: EvaluateArgs, given: set[str], stored: RunArgs) -> None:
    """`--resume` continues the run as it was started: a run-defining flag given again with another value (or one
    the run left at its default, given now with another) is refused in one line rather than silently dropped."""
    import inspect

    defaults = {name: p.default for name, p in inspect.signature(evaluate_cmd).parameters.items()}
    for key in RUN_KEYS:
        if key not in given or key in ("protocol", "equivalence_weights"):  # the two have their own checks
            continue
        then = stored.get(key, defaults.get(key))  # type: ignore[misc]  # RunArgs holds every RUN_KEYS name
        if _as_json(args[key]) != _as_json(then):  # type: ignore[literal-required]
            flag = "--" + key.replace("_", "-")
            raise JudgeAgentError(f"run {args['resume']} was started with {flag} {_shown(then)} and this command "
                                  f"gives {_shown(args[key])}: resume without {flag}, or "  # type: ignore[literal-required]
                                  "start a new run (--run-dir) for the new value")


def _as_json(value: object) -> object:
    """A flag's value as the manifest keeps it (paths as text, tuples as lists), to compare across the two."""
    return json.loads(json.dumps(value, default=str))


def _shown(value: object) -> str:
    if value in (None, [], ()):
        return "unset"
    return " ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _from_run(folder: Path) -> RunArgs:
    """How a run was started (its manifest's `request`): what `--resume` runs again."""
    from ..files import folder_kind
    from ..runs import load_manifest

    manifest = load_manifest(folder)
    request: RunArgs = {**(manifest.get("request") or {})}
    if folder_kind(folder, manifest) == "reproduce":
        recipe = request.get("recipe") or "RECIPE"
        raise JudgeAgentError(f"{folder} is a reproduce run, not an evaluate run: continue it with the reproduce "
                              f"command that started it (judgeagent reproduce {recipe} ... --run-dir {folder})")
    if not request:
        raise JudgeAgentError(f"run {folder} does not record how it was started; rerun the evaluate command")
    request.pop("protocol", None)  # the manifest's own `protocol` names it
    return request


def _graph(path: Any) -> Any:
    if not path:
        return None
    from ..graph.store import load_graph

    return load_graph(path)


def _benchmark(args: EvaluateArgs, graph: Any) -> Any:
    from ..benchmark import Benchmark, ItemFields, attach_passages, choose_items, load_benchmark

    if not args["benchmark"]:
        return Benchmark(Path("no-benchmark"), [])
    benchmark = choose_items(load_benchmark(args["benchmark"], parse_fields(args["field"] or [], ItemFields),
                                            sample=args["sample"], seed=args["seed"] or 0),
                             args["limit"], args["sample_id"])
    for note in benchmark.notes:
        _echo_err(f"{args['benchmark']}: {note}")
    if args["passages"]:
        if graph is None:
            raise JudgeAgentError("--passages takes the documents from the graph: give --graph")
        from ..graph.model import document_texts

        benchmark = attach_passages(benchmark, document_texts(graph))
    return benchmark


def _estimate(config: Any, benchmark: Any, registry: Any, names: Seats, graph: Any) -> str:
    """JudgeAgent's calls, tokens and cost for this run, as ranges (a run that resumes pays less)."""
    from ..protocols.judgeagent.estimate import estimate_run, render_estimate

    prices = {role: registry.resolve(names[role]).prices for role in ("target", "interviewer", "judge")}
    words = (graph.manifest.get("config", {}).get("chunking", {}) or {}).get("max_words", 150) if graph else 150
    table = render_estimate(estimate_run(config, benchmark.items, prices, chunk_words=words))
    return f"estimate for {len(benchmark.items)} items (calls, tokens and cost, low-high):\n{table}"


def _echo_err(line: str) -> None:
    typer.echo(line, err=True)


@app.command("protocols")
def protocols_cmd() -> None:
    """List the interview protocols with their roles (and defaults), inputs and options."""
    typer.echo(render_protocols())


def render_protocols() -> str:
    """Every protocol: what it measures, its roles (with defaults), inputs and options; 80 columns."""
    from ..protocols import PROTOCOLS
    from ..protocols.options import describe_options

    blocks = []
    for p in PROTOCOLS.values():
        lines = [f"{p.name}: {p.title}", _wrap(f"measures: {p.measures}", 2), _wrap(f"follows: {p.paper}", 2),
                 _wrap("needs: " + (p.needs_note or ", ".join(sorted(p.needs)) or "no input file"), 2), "  roles:"]
        lines += [_wrap(f"{r.name}: {r.help}" + (" (one or more models, comma-separated)" if r.many else "")
                        + (f" (default: the {', else the '.join(r.defaults)}'s model)" if r.defaults else "")
                        + (f" (default: {r.model})" if r.model and not r.defaults else "")
                        + (" (optional)" if r.optional else ""), 4)
                  for r in p.roles]
        if p.options_note:
            lines.append(_wrap(f"options: {p.options_note}", 2))
        lines.append("  options (-o KEY=VALUE, default shown):")
        lines += [f"    {key}={default}" + (f"\n{_wrap(help_, 8)}" if help_ else "")
                  for key, default, help_ in describe_options(p)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _wrap(text: str, indent: int) -> str:
    import textwrap

    return textwrap.fill(text, 80, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2),
                         break_on_hyphens=False)
