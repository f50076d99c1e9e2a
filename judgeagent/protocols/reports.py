"""`judgeagent report` and `judgeagent compare` for the runs of every protocol.

A finished run's report.md is re-rendered from its summary.json with the protocol's sections (and any
sections from files written into the folder since, such as KIEval's rescores), and report.html shows the
same sections in the HTML page JudgeAgent's reports use. JudgeAgent's own report (judgeagent.report) is
built from its records and validation instead; `report_of` tells the CLI which one a run takes.
"""
from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from ..errors import JudgeAgentError
from ..files import write_text_atomic
from ..runs import Run, load_manifest, load_run
from . import get_protocol
from .base import Protocol


def protocol_of_run(folder: str | Path) -> Protocol:
    """The protocol a run folder was written by; a missing folder or one that is no run fails in one line."""
    folder = Path(folder)
    if not folder.exists():
        raise JudgeAgentError(f"run not found: {folder}; give a folder judgeagent evaluate wrote (its --run-dir)")
    if folder.is_dir() and not (folder / "manifest.json").is_file():
        raise JudgeAgentError(f"{folder} is not a run folder (no manifest.json); give a folder judgeagent evaluate "
                              "wrote (its --run-dir)")
    # Runs from before protocols existed are JudgeAgent runs.
    return get_protocol(str(load_manifest(folder).get("protocol", "judgeagent")))


def finished_run(folder: str | Path) -> tuple[Protocol, Run, dict[str, Any]]:
    """A finished run of any protocol, read-only: its protocol, the run and its summary."""
    protocol = protocol_of_run(folder)
    run = load_run(folder)
    if not run.finished:
        raise JudgeAgentError(f"run {folder} is unfinished: complete it first with judgeagent evaluate --resume "
                              f"{folder}")
    return protocol, run, run.summary()


def write_reports(folder: str | Path) -> tuple[Path, Path]:
    """report.md and report.html of a finished run of a protocol other than JudgeAgent; their paths."""
    from .runner import write_report

    protocol, run, summary = finished_run(folder)
    if protocol.name == "judgeagent":
        raise JudgeAgentError("JudgeAgent runs have their own report: judgeagent.report.build_report")
    md = write_report(protocol, run, summary)
    html = run.folder / "report.html"
    write_text_atomic(html, report_html(protocol, run, summary))
    return md, html


def report_html(protocol: Protocol, run: Run, summary: dict[str, Any]) -> str:
    """report.md's content as one self-contained page (JudgeAgent's page shell and styles)."""
    from ..report.build import md_block, page
    from .runner import report_parts

    header, sections = report_parts(protocol, run, summary)
    body = [f"<h1>{escape(protocol.title)} run: {escape(run.folder.name)}</h1>", md_block(header)]
    body += [f"<section>{md_block([f'## {s.title}', '', *s.body.splitlines()])}</section>" for s in sections]
    return page(f"judgeagent: {protocol.title} run {run.folder.name}", "".join(body))


def compare(folders: list[str | Path]) -> str:
    """One table over runs of one protocol, by that protocol's `compare`; runs of several are refused."""
    if not folders:
        raise JudgeAgentError("compare needs one or more run folders")
    protocols = {str(f): protocol_of_run(f).name for f in folders}
    names = list(dict.fromkeys(protocols.values()))
    if len(names) > 1:
        listed = "; ".join(f"{name}: " + ", ".join(f for f, p in protocols.items() if p == name) for name in names)
        raise JudgeAgentError(f"compare puts runs of one protocol side by side; these are runs of {len(names)} "
                              f"({listed}): compare each protocol's runs separately")
    return get_protocol(names[0]).compare([Path(f) for f in folders])


def compare_table(protocol: Protocol, folders: list[Path]) -> str:
    """A Markdown table: a row per finished run, its models and the protocol's headline numbers.

    Columns are the union of the runs' headlines in first-seen order: runs whose headlines differ (DynaEval
    tasks, players) show "-" where a number is not theirs.
    """
    rows = []
    for folder in folders:
        _, run, summary = finished_run(folder)
        models = ", ".join(f"{role}={d['name']}" for role, d in run.manifest["models"].items())
        rows.append((run.folder.name, models, protocol.headline(summary)))
    columns = list(dict.fromkeys(k for _, _, numbers in rows for k in numbers))
    out = ["| run | models | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
    out += [f"| {name} | {models} | " + " | ".join(_number(numbers.get(c)) for c in columns) + " |"
            for name, models, numbers in rows]
    return "\n".join(out)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
