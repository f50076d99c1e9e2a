"""`judgeagent export --format inspect`: a run as an Inspect AI eval log (its JSON log format, version 2), so
that `inspect view` shows our runs: one sample per episode (`Protocol.view_episodes`), each model turn as the
prompt it saw (a user message) and its reply (an assistant message naming the role's model), the episode's
scores with their reasons as explanations, and the models' usage per model and per role.

Written by hand from the format's documented fields, not with inspect_ai (a test-only dependency): the test
reads the log back with inspect_ai's own reader and lists it with Inspect's own listing (what `inspect view`
shows). Named as Inspect names its logs (`log_name`), since `inspect view` lists no other JSON log."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from ..files import check_replaceable, write_json_atomic
from ..models.cache import JournalCall, journal_calls
from ..protocols.episodes import EpisodeView, Turn
from ..protocols.record import call_id
from ..runs import Manifest, load_run

if TYPE_CHECKING:
    from ..models.roles import RoleDescription
    from ..protocols.base import Protocol

LOG_VERSION = 2


class ChatMessage(TypedDict, total=False):
    """Inspect's ChatMessage: a user or system message (`source` input) or the model's (`generate`, with `model`)."""

    role: str
    content: str
    source: str
    model: str | None
    metadata: dict[str, object]


class Tokens(TypedDict):
    input_tokens: int
    output_tokens: int
    total_tokens: int


class CostedTokens(Tokens):
    total_cost: float | None


class Choice(TypedDict):
    message: ChatMessage
    stop_reason: str


class ModelOutput(TypedDict, total=False):
    model: str
    choices: list[Choice]
    usage: Tokens


class ModelEvent(TypedDict, total=False):
    """A model event of Inspect's transcript: a call's whole input as sent, and its reply (and its own seconds,
    `working_time`, when the journal timed it)."""

    event: str
    timestamp: str
    working_start: float
    model: str
    role: str
    input: list[ChatMessage]
    tools: list[object]
    tool_choice: str
    config: dict[str, float | int | str | None]
    output: ModelOutput
    metadata: dict[str, object]
    working_time: float


class SampleTimes(TypedDict, total=False):
    """A sample's clock, from its journaled calls (none for a run journaled before calls were timed)."""

    started_at: str
    completed_at: str
    total_time: float
    working_time: float


class Sample(SampleTimes):
    """An EvalSample: one episode."""

    id: str
    epoch: int
    input: str
    target: str
    messages: list[ChatMessage]
    output: ModelOutput
    scores: dict[str, dict[str, object]]
    metadata: dict[str, object]
    model_usage: dict[str, Tokens]
    events: list[ModelEvent]


def log_name(protocol: Protocol, manifest: Manifest) -> str:
    """Inspect's own log name, `<ISO time>_<task>_<id>.json`: `inspect view` lists a JSON log only under such a
    name (its file pattern), and reads the task and id from it."""
    created = (manifest.get("created_at") or "1970-01-01T00:00:00+00:00").replace(":", "-")
    return f"{created}_judgeagent-{protocol.name}_{(manifest.get('config_id') or 'run')[:22]}.json"


def write_inspect_log(protocol: Protocol, folder: str | Path, out: Path | None = None) -> tuple[Path, int]:
    """Write the finished run at `folder` as an Inspect eval log; its path and the number of samples. `out` is a
    file, or a folder to write the log into under Inspect's own name (the default: the run's folder)."""
    from ..protocols.reports import finished_run

    run, summary = finished_run(protocol, folder)
    if out is None or out.is_dir():
        out = (out or run.folder) / log_name(protocol, run.manifest)
    check_replaceable(out, _an_export, "an Inspect log judgeagent wrote")
    episodes = protocol.view_episodes(load_run(run.folder))
    write_json_atomic(out, inspect_log(protocol, run.folder, run.manifest, summary, episodes,
                                       journal_calls(run.folder)))
    return out, len(episodes)


def _an_export(file: Path) -> bool:
    """Our log names its task `judgeagent/PROTOCOL` in its first lines (`inspect_log`'s key order, indented)."""
    with file.open("rb") as f:
        return b'"task": "judgeagent/' in f.read(4096)


def inspect_log(protocol: Protocol, folder: Path, manifest: Manifest, summary: dict[str, Any],
                episodes: list[EpisodeView], calls: list[JournalCall] | None = None) -> dict[str, Any]:
    """The log. `calls` (the run's journal, `journal_calls`) give each turn its full conversation as sent, system
    prompt included, its tokens and its time: in the sample's messages, its model events (Inspect's transcript)
    and its usage. A turn the journal does not hold (a failed call, a run from before messages were kept) shows
    its prompt and reply only."""
    models = manifest.get("models") or {}
    target = next(iter(models.values()), {}).get("name", "unknown")
    created = manifest.get("created_at") or ""
    index = _index(calls)
    bench = manifest.get("benchmark") or {}
    return {
        "version": LOG_VERSION, "status": "success",
        "eval": {
            "created": created, "task": f"judgeagent/{protocol.name}", "task_id": manifest.get("config_id", "")[:22],
            "run_id": folder.name, "model": target,
            "model_roles": {role: {"model": d.get("name", "")} for role, d in models.items()},
            "dataset": {"name": Path(bench.get("path") or folder.name).stem, "location": bench.get("path"),
                        "samples": len(episodes)},
            "config": {}, "task_args": manifest.get("config") or {},
            "metadata": {"protocol": protocol.name, "paper": protocol.paper, "run": str(folder),
                         "judge_calibration": manifest.get("judge_calibration")},
        },
        "plan": {"name": protocol.name, "steps": [{"solver": protocol.name, "params": {}}]},
        "results": {"total_samples": len(episodes), "completed_samples": len(episodes),
                    "scores": _results(episodes)},
        "stats": {"started_at": created, "completed_at": manifest.get("finished_at") or created,
                  "model_usage": _model_usage(summary.get("usage") or {}, models),
                  "role_usage": {role: _usage(u) for role, u in (summary.get("usage") or {}).items()}},
        "samples": [_sample(e, target, index, created, protocol.roles[0].name) for e in episodes],
    }


def _sample(e: EpisodeView, target: str, index: dict[tuple[str, str] | str, JournalCall], created: str,
            evaluated: str) -> Sample:
    """One episode as a sample; `evaluated` is the protocol's role under evaluation (its first), whose last reply is
    the sample's answer and output (not a judge's verdict that happens to come last)."""
    sent = [index.get(t.call_id) or index.get(t.call or (t.prompt, t.reply)) for t in e.turns]
    messages: list[ChatMessage] = []
    system = None
    for t, call in zip(e.turns, sent):
        said = _system(call)
        if said is not None and said != system:  # a system prompt where it first applies, or changes
            messages.append({"role": "system", "content": said, "source": "input", "metadata": {"role": t.role}})
        system = said if said is not None else system
        messages += _messages(t, call)
    scored = [t for t in e.turns if t.scores] or e.turns  # the item as first put to a scored model
    first = scored[0].prompt if scored else e.item
    own = [t for t in e.turns if t.role == evaluated or t.role.startswith(evaluated + ".")]
    last = (own or e.turns)[-1] if e.turns else None
    usage: dict[str, Tokens] = {}
    for t, call in zip(e.turns, sent):
        if call is not None:
            line = usage.setdefault(t.model or target, {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0})
            counts = call.get("usage") or {}
            i, o = int(counts.get("input_tokens") or 0), int(counts.get("output_tokens") or 0)
            line["input_tokens"] += i
            line["output_tokens"] += o
            line["total_tokens"] += i + o
    return {
        "id": e.id, "epoch": 1, "input": first or e.item, "target": e.gold or "",
        "messages": messages,
        "output": {"model": (last.model if last else "") or target, "choices": [] if last is None else [
            {"message": _assistant(last), "stop_reason": "stop"}]},
        "scores": {name: {"value": value, "answer": last.reply if last else None,
                          "explanation": _explanation(e.turns, name)} for name, value in e.scores.items()},
        "metadata": {"item": e.item, "qid": e.qid, "methods": e.methods, **e.facets},
        "model_usage": usage,
        **_times([call for call in sent if call is not None]),
        "events": [_event(t, call, target, created) for t, call in zip(e.turns, sent)],
    }


def _times(calls: list[JournalCall]) -> SampleTimes:
    """The sample's clock from its journaled calls (each stored as it finished, with its own seconds): from the first
    call's start to the last call's end, and the time spent in model calls. Nothing when the journal has no times (a
    run from before calls were timed): Inspect shows no duration rather than a made-up one."""
    timed = [c for c in calls if c.get("seconds") is not None and c.get("stored") is not None]
    if not timed:
        return {}
    start = min(float(c["stored"]) - float(c["seconds"]) for c in timed)
    end = max(float(c["stored"]) for c in timed)
    return {"started_at": _iso(start), "completed_at": _iso(end), "total_time": round(end - start, 3),
            "working_time": round(sum(float(c["seconds"]) for c in timed), 3)}


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat()


def _index(calls: list[JournalCall] | None) -> dict[tuple[str, str] | str, JournalCall]:
    """Journaled calls by (the last message sent, the reply), and by their `call_id`: how a recorded turn finds its
    full conversation."""
    out: dict[tuple[str, str] | str, JournalCall] = {}
    for call in calls or []:
        messages = call.get("messages")
        if messages:
            out.setdefault((str(messages[-1].get("content", "")), str(call.get("text", ""))), call)
            out.setdefault(call_id(messages, str(call.get("text", ""))), call)
    return out


def _system(call: JournalCall | None) -> str | None:
    if not call:
        return None
    first = call["messages"][0]
    return str(first.get("content", "")) if first.get("role") == "system" else None


def _event(t: Turn, call: JournalCall | None, target: str, created: str) -> ModelEvent:
    """A model event for Inspect's transcript: the call's whole input as sent (or the turn's prompt), its reply."""
    sent = call["messages"] if call else [{"role": "user", "content": t.prompt}]
    inputs: list[ChatMessage] = [{"role": m.get("role", "user"), "content": str(m.get("content", "")),
                                  "source": "input"} for m in sent]
    usage = (call or {}).get("usage") or {}
    i, o = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    seconds = (call or {}).get("seconds")
    began = _iso(float(call["stored"]) - float(seconds)) if seconds is not None and call else None
    event: ModelEvent = {
        "event": "model", "timestamp": began or created or "1970-01-01T00:00:00+00:00", "working_start": 0.0,
        "model": t.model or target, "role": t.role, "input": inputs, "tools": [], "tool_choice": "none",
        "config": {k: v for k, v in ((call or {}).get("settings") or {}).items() if k in _CONFIG},
        "output": {"model": t.model or target, "choices": [{"message": _assistant(t, call), "stop_reason": "stop"}],
                   "usage": {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}},
        "metadata": {"step": t.step, "journaled": call is not None}}
    if seconds is not None:
        event["working_time"] = float(seconds)
    return event


_CONFIG = ("max_tokens", "temperature", "top_p", "seed")
"""Call settings Inspect's GenerateConfig also has."""


def _messages(t: Turn, call: JournalCall | None = None) -> list[ChatMessage]:
    """The turn's prompt and reply; with its journaled call, the call's own last message and reply (the exact text
    an auditor checks: the whole batch's prompt and reply where the turn's answer was parsed from it)."""
    meta = {"role": t.role, "step": t.step}
    prompt = str(call["messages"][-1].get("content", "")) if call and call.get("messages") else t.prompt
    return [{"role": "user", "content": prompt, "source": "input", "metadata": meta}, _assistant(t, call)]


def _assistant(t: Turn, call: JournalCall | None = None) -> ChatMessage:
    """The turn's reply (with its call: the reply as received, and the turn's own answer in the metadata where that
    was parsed from it)."""
    said = str(call.get("text", "")) if call else t.reply
    meta: dict[str, object] = {"role": t.role, "step": t.step, "scores": t.scores}
    if said != t.reply:
        meta["answer"] = t.reply
    return {"role": "assistant", "content": said, "source": "generate", "model": t.model or None, "metadata": meta}


def _explanation(turns: list[Turn], name: str) -> str:
    """The reasons behind a score: each turn's, with its method (a KIEval aspect scored in every round)."""
    parts = [f"{t.step}: {s.get('value')} by {s.get('method')}" + (f" ({s['reason']})" if s.get("reason") else "")
             for t in turns for n, s in t.scores.items() if n == name]
    return "; ".join(parts)


def _results(episodes: list[EpisodeView]) -> list[dict[str, object]]:
    names = list(dict.fromkeys(n for e in episodes for n in e.scores))
    out = []
    for name in names:
        values = [e.scores[name] for e in episodes if name in e.scores]
        out.append({"name": name, "scorer": name, "scored_samples": len(values),
                    "unscored_samples": len(episodes) - len(values),
                    "metrics": {"mean": {"name": "mean", "value": sum(values) / len(values)}}})
    return out


def _usage(u: Mapping[str, float | int | None]) -> CostedTokens:
    i, o = int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0)
    return {"input_tokens": i, "output_tokens": o, "total_tokens": i + o, "total_cost": u.get("cost")}


def _model_usage(usage: Mapping[str, Mapping[str, float | int | None]], models: Mapping[str, RoleDescription]
                 ) -> dict[str, CostedTokens]:
    """Usage per model: the roles a model served summed (a role's model by its registry name)."""
    out: dict[str, CostedTokens] = {}
    for role, u in usage.items():
        name = (models.get(role) or {}).get("name") or role
        merged = out.setdefault(name, {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0, "total_cost": 0.0})
        line = _usage(u)
        merged["input_tokens"] += line["input_tokens"]
        merged["output_tokens"] += line["output_tokens"]
        merged["total_tokens"] += line["total_tokens"]
        merged["total_cost"] = (merged["total_cost"] or 0) + (line["total_cost"] or 0)
    return out


