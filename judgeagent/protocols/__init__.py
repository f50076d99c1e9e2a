"""Interview protocols on one engine: the `PROTOCOLS` catalogue, and running one by name."""
from __future__ import annotations

from typing import Any

from ..errors import JudgeAgentError
from .base import Episode, EpisodeContext, Protocol, RoleSpec, RunRequest, Section
from .dynaeval import DynaEvalProtocol
from .interviewer import InterviewerProtocol
from .judgeagent import JudgeAgentProtocol
from .kieval import KIEvalProtocol
from .options import parse_options
from .record import Record, Score
from .teach2eval import Teach2EvalProtocol

__all__ = ["PROTOCOLS", "Episode", "EpisodeContext", "InterviewerProtocol", "JudgeAgentProtocol", "Protocol",
           "Record", "RoleSpec", "RunRequest", "Score", "Section", "get_protocol", "parse_options", "run_protocol"]

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (JudgeAgentProtocol(), InterviewerProtocol(), KIEvalProtocol(),
                                                      Teach2EvalProtocol(), DynaEvalProtocol())}
"""Every protocol by name, in the order `judgeagent protocols` lists them."""


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise JudgeAgentError(f"unknown protocol {name!r}; choose one of {', '.join(PROTOCOLS)} "
                              "(judgeagent protocols lists them)") from None


def run_protocol(protocol: str | Protocol, benchmark: Any, graph: Any = None, *, models: dict[str, Any],
                 config: Any = None, **kwargs: Any) -> Any:
    """Run `protocol` (a name or object) on `benchmark` with `models` (role -> name or `ChatModel`).

    `config` is the protocol's `Config`, a dict of its fields, or None for the defaults; the other
    keyword arguments are `RunRequest`'s (run_dir, runs_root, registry, cache_dir, cache, max_cost, ...).
    """
    from pathlib import Path

    chosen = get_protocol(protocol) if isinstance(protocol, str) else protocol
    if config is None or isinstance(config, dict):
        config = parse_options(chosen, config or {})
    for key in ("run_dir", "runs_root", "cache_dir"):
        if kwargs.get(key) is not None:
            kwargs[key] = Path(kwargs[key])
    request = RunRequest(benchmark, graph, dict(models), config, **kwargs)
    return chosen.run(request)
