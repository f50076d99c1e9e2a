"""`judgeagent evaluate --protocol NAME` for protocols other than JudgeAgent, and `judgeagent protocols`.

Library code the CLI calls: it takes the parsed options as a dict and returns text; no typer here.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..benchmark import Benchmark
from ..errors import JudgeAgentError
from . import PROTOCOLS, get_protocol, run_protocol
from .base import SHARED_ROLES
from .judgeagent import OPTION_FLAGS as _JUDGEAGENT_FLAGS
from .options import describe_options, parse_options

Echo = Callable[[str], None]


def protocol_of(name: str | None, resume: Path | None) -> str:
    """The protocol a command runs: the one named, or the one of the run it resumes (JudgeAgent by default)."""
    if resume is not None and name in (None, "judgeagent"):
        from ..runs import load_manifest

        return str(load_manifest(Path(resume)).get("protocol", "judgeagent"))
    return get_protocol(name or "judgeagent").name


def parse_roles(pairs: list[str] | None) -> dict[str, str]:
    """`--role NAME=MODEL` (repeatable; `MODEL,MODEL` for a role that takes several) as role -> value."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not name or not value:
            raise JudgeAgentError(f"--role expects NAME=MODEL (judgeagent protocols lists each protocol's roles); "
                                  f"got {pair!r}")
        out[name] = value
    return out


def judgeagent_options(args: dict[str, Any]) -> dict[str, Any]:
    """`-o KEY=VALUE` for judgeagent: checked against EvalConfig, then set on the flag of the same name.

    `--role` names one of judgeagent's three roles here, the same as its flag.
    """
    args = dict(args)
    for name, value in parse_roles(args.get("role")).items():
        if name not in SHARED_ROLES:
            raise JudgeAgentError(f"protocol judgeagent has no role {name}; its roles are {', '.join(SHARED_ROLES)}")
        args[name] = value
    pairs = args.get("option") or []
    if not pairs:
        return args
    protocol = PROTOCOLS["judgeagent"]
    config = parse_options(protocol, pairs)  # unknown keys and bad values fail here, in one line
    out = dict(args)
    for pair in pairs:
        key = pair.partition("=")[0].strip()
        if key not in _JUDGEAGENT_FLAGS:
            raise JudgeAgentError(f"option {key} of protocol judgeagent has no -o form; -o sets "
                                  f"{', '.join(_JUDGEAGENT_FLAGS)} (the others are flags: judgeagent evaluate --help)")
        out[key] = getattr(config, key)
    return out


def run_command(args: dict[str, Any], echo: Echo, warn: Echo) -> str:
    """Run (or resume) a protocol run from the evaluate command's options; returns its summary text."""
    from ..models.spec import load_registry

    if args.get("resume"):
        args = _from_run(Path(args["resume"]), args)
    protocol = get_protocol(args["protocol"])
    for flag in ("dry_run", "validate"):
        if args.get(flag):
            raise JudgeAgentError(f"--{flag.replace('_', '-')} is JudgeAgent's; protocol {protocol.name} has no "
                                  "such step yet")
    if not args.get("benchmark") and "benchmark" in protocol.needs:
        raise JudgeAgentError("evaluate needs --benchmark (or --resume RUN)")
    options = list(args.get("option") or [])
    if not any(o.partition("=")[0].strip() == "seed" for o in options) and "seed" in protocol.Config.model_fields:
        options.append(f"seed={args['seed']}")
    config = parse_options(protocol, options)
    if protocol.needs_graph(config) and not args.get("graph"):
        raise JudgeAgentError(f"protocol {protocol.name} needs a graph: give --graph (build one with build-graph)")
    graph = _graph(args.get("graph"))
    benchmark = _benchmark(args) if args.get("benchmark") else Benchmark(Path("no-benchmark"), [])
    registry = load_registry(args.get("config"))
    if args.get("base_url"):
        if not args.get("target"):
            raise JudgeAgentError("--base-url gives the endpoint of --target; give --target NAME with it")
        registry = registry.with_endpoint(args["target"], args["base_url"])
    models = {**{role: args.get(role) for role in SHARED_ROLES if args.get(role)}, **parse_roles(args.get("role"))}
    request = {k: (str(v) if isinstance(v, Path) else v) for k, v in args.items() if k in _REQUEST}
    result = run_protocol(protocol, benchmark, graph, models=models, config=config, run_dir=args.get("run_dir"),
                          registry=registry, cache_dir=args.get("cache_dir"), cache=not args.get("no_cache"),
                          max_cost=args.get("max_cost"), request=request, notify=warn,
                          progress=None if args.get("quiet") else _progress(warn))
    lead = "this run had finished: nothing to do\n" if result.resumed and not result.usage else ""
    return lead + protocol.render_summary(result.summary, str(result.folder))


_REQUEST = ("protocol", "option", "role", "target", "benchmark", "field", "graph", "interviewer", "judge", "base_url",
            "limit", "sample", "seed")


def _from_run(folder: Path, args: dict[str, Any]) -> dict[str, Any]:
    from ..runs import load_manifest

    request = load_manifest(folder).get("request") or {}
    if not request:
        raise JudgeAgentError(f"run {folder} does not record how it was started; rerun the evaluate command")
    return {**args, **request, "run_dir": folder}


def _progress(warn: Echo) -> Callable[[int, int], None]:
    def said(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            warn(f"episodes: {done}/{total} done")

    return said


def _graph(path: Any) -> Any:
    if not path:
        return None
    from ..graph.store import load_graph

    return load_graph(path)


def _benchmark(args: dict[str, Any]) -> Any:
    from ..benchmark import ItemFields, load_benchmark

    mapping = {}
    for pair in args.get("field") or []:
        key, sep, value = pair.partition("=")
        if not sep or key not in ItemFields.model_fields or not value:
            raise JudgeAgentError(f"--field expects FIELD=COLUMN with FIELD one of "
                                  f"{', '.join(ItemFields.model_fields)}; got {pair!r}")
        mapping[key] = value
    return load_benchmark(args["benchmark"], ItemFields(**mapping), limit=args.get("limit"),
                          sample=args.get("sample"), seed=args.get("seed") or 0)


def render_protocols() -> str:
    """Every protocol: what it measures, its roles (with defaults), inputs and options; 80 columns."""
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
        else:
            lines.append("  options (-o KEY=VALUE, default shown):")
            lines += [f"    {key}={default}" + (f"\n{_wrap(help_, 8)}" if help_ else "")
                      for key, default, help_ in describe_options(p)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _wrap(text: str, indent: int) -> str:
    import textwrap

    return textwrap.fill(text, 80, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2),
                         break_on_hyphens=False)
