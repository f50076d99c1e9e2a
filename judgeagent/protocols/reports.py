"""A run's report.md (written by the runner when a run finishes), and `judgeagent report` and `judgeagent
compare` for the runs of every protocol; each function takes the protocol (the catalogue,
`judgeagent.protocols`, finds a run's protocol by name).

A finished run's report.md is re-rendered from its summary.json with the protocol's sections (and any
sections from files written into the folder since, such as KIEval's rescores), and report.html shows the
same sections in the shared HTML page (`report/page.py`). JudgeAgent's own report
(`protocols/judgeagent/report/`) is built from its records and validation instead.
"""
from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..errors import JudgeAgentError
from ..files import write_text_atomic
from ..runs import Run, finish_hint, load_run
from .base import Protocol, Section, SummaryT
from .run_fields import check_manifest, check_summary, reading

if TYPE_CHECKING:
    from ..models.usage import UsageLine


def finished_run(protocol: Protocol[Any, Any, SummaryT], folder: str | Path) -> tuple[Run, SummaryT]:
    """A finished run of `protocol`, read-only: the run and its summary."""
    run = load_run(folder)
    if not run.finished:
        raise JudgeAgentError(f"run {folder} is unfinished: complete it first with "
                              f"{finish_hint(run.folder, run.manifest)}")
    summary = run.summary()
    check_manifest(run.folder, run.manifest)
    check_summary(run.folder, summary, run.manifest)
    return run, cast(SummaryT, summary)


def write_reports(protocol: Protocol, folder: str | Path) -> tuple[Path, Path]:
    """report.md and report.html of a finished run of `protocol`, from its summary; their paths."""
    run, summary = finished_run(protocol, folder)
    md = write_report(protocol, run, summary)
    html = run.folder / "report.html"
    write_text_atomic(html, report_html(protocol, run, summary))
    return md, html


def report_html(protocol: Protocol[Any, Any, SummaryT], run: Run, summary: SummaryT) -> str:
    """report.md's content as one self-contained page (JudgeAgent's page shell and styles)."""
    from ..report.page import VIEWER_LINK, md_block, page

    header, sections = report_parts(protocol, run, summary)
    body = [f"<h1>{escape(protocol.title)} run: {escape(run.folder.name)}</h1>", md_block(header), VIEWER_LINK]
    body += [f"<section>{md_block([f'## {s.title}', '', *s.body.splitlines()])}</section>" for s in sections]
    return page(f"judgeagent: {protocol.title} run {run.folder.name}", "".join(body))


def compare(protocol: Protocol, folders: list[Path]) -> str:
    """One table over finished runs of `protocol`: its own (`Protocol.own_comparison`), else `compare_table`."""
    return protocol.own_comparison(folders) or compare_table(protocol, folders)


def compare_table(protocol: Protocol, folders: list[Path]) -> str:
    """A Markdown table: a row per finished run, its models and the protocol's headline numbers.

    Columns are the union of the runs' headlines in first-seen order: runs whose headlines differ (DynaEval
    tasks, players) show "-" where a number is not theirs.
    """
    rows = []
    for folder in folders:
        run, summary = finished_run(protocol, folder)
        models = ", ".join(f"{role}={d['name']}" for role, d in (run.manifest.get("models") or {}).items())
        rows.append((run.folder.name, models, protocol.headline(summary)))
    columns = list(dict.fromkeys(k for _, _, numbers in rows for k in numbers))
    out = ["| run | models | " + " | ".join(columns) + " |", "|---|---|" + "---|" * len(columns)]
    out += [f"| {name} | {models} | " + " | ".join(_number(numbers.get(c)) for c in columns) + " |"
            for name, models, numbers in rows]
    return "\n".join(out)


def _usage(summary: Mapping[str, object]) -> dict[str, UsageLine]:
    """The runner's `usage` in a summary (every protocol's summary.json has it): role -> its calls and costs."""
    return cast("dict[str, UsageLine]", summary.get("usage") or {})


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def write_report(protocol: Protocol[Any, Any, SummaryT], run: Run, summary: SummaryT) -> Path:
    """report.md: the protocol's sections under a common header."""
    header, sections = report_parts(protocol, run, summary)
    from ..report.page import VIEWER_MD

    lines = [f"# {protocol.title} run", "", *header, "", VIEWER_MD]
    for section in sections:
        lines += ["", f"## {section.title}", "", section.body.rstrip()]
    path = run.folder / "report.md"
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


def report_parts(protocol: Protocol[Any, Any, SummaryT], run: Run, summary: SummaryT
                 ) -> tuple[list[str], list[Section]]:
    """The report's header bullets and its sections: the protocol's, those from files later commands wrote
    into the folder (`Protocol.report_extras`), and the usage. report.md and report.html both render these."""
    m = run.manifest
    lines = [f"- run: `{run.folder}`", f"- protocol: `{protocol.name}` ({protocol.paper})"]
    bench = m.get("benchmark")
    if bench and bench["items"]:
        lines.append(f"- benchmark: `{bench.get('path')}` ({bench['items']} items)")
    lines += [f"- {role}: {d['name']}" for role, d in (m.get("models") or {}).items()]
    sections = [*reading(run.folder, protocol.title, lambda: protocol.report_sections(summary), run.manifest),
                *protocol.report_extras(run.folder)]
    usage = _usage(summary)
    if usage:
        rows = [f"| {r} | {u['calls']} | {u['cache_hits']} | {u.get('failures', 0)} | "
                f"{u['input_tokens']} | {u['output_tokens']} | {u['cost']:.4f} |" for r, u in usage.items()]
        sections.append(Section("Usage", "\n".join(["| role | calls | cached | failed | tokens in | tokens out | cost $ |",
                                                    "|---|---|---|---|---|---|---|", *rows])))
    return lines, sections
