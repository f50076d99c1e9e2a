"""Interview protocols on one engine: the `PROTOCOLS` catalogue, and running one by name."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import JudgeAgentError
from .base import Episode, EpisodeContext, Protocol, RoleChoice, RoleSpec, RunRequest, Section
from .dynaeval import DynaEvalProtocol
from .interviewer import InterviewerProtocol
from .judgeagent.protocol import JudgeAgentProtocol
from .kieval import KIEvalProtocol
from .options import parse_options
from .record import Record, Score
from .runner import run_episodes
from .teach2eval import Teach2EvalProtocol

__all__ = ["PROTOCOLS", "Episode", "EpisodeContext", "InterviewerProtocol", "JudgeAgentProtocol", "Protocol",
           "Record", "RoleSpec", "RunRequest", "Score", "Section", "compare_runs", "get_protocol", "parse_options",
           "protocol_of_run", "run_protocol", "run_protocol_async"]

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (JudgeAgentProtocol(), InterviewerProtocol(), KIEvalProtocol(),
                                                      Teach2EvalProtocol(), DynaEvalProtocol())}
"""Every protocol by name, in the order `judgeagent protocols` lists them."""


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise JudgeAgentError(f"unknown protocol {name!r}; choose one of {', '.join(PROTOCOLS)} "
                              "(judgeagent protocols lists them)") from None


def run_protocol(protocol: str | Protocol, benchmark: Any, graph: Any = None, *, models: Mapping[str, RoleChoice],
                 config: Any = None, **kwargs: Any) -> Any:
    """Run `protocol` (a name or object) on `benchmark` with `models` (role -> name or `ChatModel`).

    `config` is the protocol's `Config`, a dict of its fields, or None for the defaults; the other
    keyword arguments are `RunRequest`'s (run_dir, runs_root, registry, cache_dir, cache, max_cost, ...).
    """
    from .runner import refuse_inside_a_loop

    refuse_inside_a_loop("run_protocol", "judgeagent.protocols.run_protocol_async(...)")
    return _run_protocol(protocol, benchmark, graph, models=models, config=config, **kwargs)


def _run_protocol(protocol: str | Protocol, benchmark: Any, graph: Any = None, *, models: Mapping[str, RoleChoice],
                  config: Any = None, **kwargs: Any) -> Any:
    chosen = get_protocol(protocol) if isinstance(protocol, str) else protocol
    if config is None or isinstance(config, dict):
        config = parse_options(chosen, config or {})
    for key in ("run_dir", "runs_root", "cache_dir"):
        if kwargs.get(key) is not None:
            kwargs[key] = Path(kwargs[key])
    request = RunRequest(benchmark, graph, dict(models), config, **kwargs)
    return run_episodes(chosen, request)


async def run_protocol_async(protocol: str | Protocol, benchmark: Any, graph: Any = None, *,
                             models: Mapping[str, RoleChoice], config: Any = None, **kwargs: Any) -> Any:
    """`run_protocol` for code that already runs an event loop (a notebook, an async service): the run, with its
    own loop and model clients, goes on a worker thread while the caller's loop stays free. `ChatModel` objects
    given in `models` are called from that thread's loop."""
    import asyncio

    return await asyncio.to_thread(_run_protocol, protocol, benchmark, graph, models=models, config=config, **kwargs)


def protocol_of_run(folder: str | Path) -> Protocol:
    """The protocol a run folder was written by; a missing folder or one that is no run fails in one line."""
    from ..runs import load_manifest

    folder = Path(folder)
    if not folder.exists():
        raise JudgeAgentError(f"run not found: {folder}; give a folder judgeagent evaluate wrote (its --run-dir)")
    if folder.is_dir() and not (folder / "manifest.json").is_file():
        from ..files import folder_kind, wrong_kind

        if folder_kind(folder) is not None:  # a synthesized dataset, say
            raise wrong_kind(folder, "run")
        raise JudgeAgentError(f"{folder} is not a run folder (no manifest.json); give a folder judgeagent evaluate "
                              "wrote (its --run-dir)")
    from ..runs import run_protocol_name
    from .run_fields import check_manifest

    manifest = load_manifest(folder)
    name = run_protocol_name(manifest, folder)  # another kind of folder is named before its fields are read
    check_manifest(folder, manifest)
    return get_protocol(name)


def compare_runs(folders: list[str | Path]) -> str:
    """One table over runs of one protocol (`reports.compare`); runs of several protocols are refused."""
    from .reports import compare

    if not folders:
        raise JudgeAgentError("compare needs one or more run folders")
    protocols = {str(f): protocol_of_run(f).name for f in folders}
    names = list(dict.fromkeys(protocols.values()))
    if len(names) > 1:
        listed = "; ".join(f"{name}: " + ", ".join(f for f, p in protocols.items() if p == name) for name in names)
        raise JudgeAgentError(f"compare puts runs of one protocol side by side; these are runs of {len(names)} "
                              f"({listed}): compare each protocol's runs separately")
    return compare(get_protocol(names[0]), [Path(f) for f in folders])
