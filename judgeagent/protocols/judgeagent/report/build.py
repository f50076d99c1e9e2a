"""Build report.md and report.html for a run from its records, feedback and validation."""
from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....errors import JudgeAgentError
from ....files import write_text_atomic
from ....report.mdtext import md_cell, md_text
from ....report.page import VIEWER_LINK, VIEWER_MD, md_block, page, table
from ....report.plots import bars, trajectories
from ....runs import Run
from ..feedback import read_feedback
from ..records import FeedbackEntry, PathInfo, question_records
from .checked import check_report_inputs
from .gaps import (
    Gap,
    GapSections,
    ability_markdown,
    gap_sections,
    gaps_markdown,
    graph_names,
    knowledge_gaps,
    weak_markdown,
)
from .judging import Judging, judging, judging_markdown

if TYPE_CHECKING:
    from ....models.roles import RoleDescription


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


@dataclass(frozen=True)
class ReportData(GapSections):
    """Everything the report shows: both renderings read only this."""

    run: Run
    summary: dict[str, Any]
    validation: dict[str, Any] | None
    by_difficulty: dict[str, float]
    feedback: list[FeedbackEntry]
    gaps: list[Gap]
    models: dict[str, RoleDescription]
    judging: Judging


def sections(run: Run) -> ReportData:
    """Everything the report shows, as data: both renderings read only this."""
    summary = run.summary()
    check_report_inputs(run, summary)
    names = graph_names(run.manifest)
    vpath = run.folder / "validation.json"
    validation = json.loads(vpath.read_text()) if vpath.exists() else None
    records = question_records(run)
    by_difficulty = {k.split("/", 1)[1] + (" (ext)" if k.startswith("extension") else ""): v["accuracy"]
                     for k, v in summary["accuracy"].items() if "/" in k}
    gaps = gap_sections(records, names)
    return ReportData(gaps.weak_documents, gaps.weak_entities, gaps.ability, gaps.batch_ability, gaps.names,
                      run, summary, validation, by_difficulty, read_feedback(run), knowledge_gaps(records, names),
                      run.manifest["models"], judging(records, run.manifest))


def build_report(folder: str | Path) -> tuple[Path, Path]:
    from ..validate import open_finished

    run = open_finished(folder)
    data = sections(run)
    md, html = run.folder / "report.md", run.folder / "report.html"
    write_text_atomic(md, markdown(data))
    write_text_atomic(html, html_page(data))
    return md, html


# --- Markdown ---------------------------------------------------------------------------------------
def markdown(d: ReportData) -> str:
    s, run = d.summary, d.run
    out = [f"# judgeagent report: {run.folder.name}", "",
           f"Target **{md_text(d.models['target']['name'])}** ({md_text(d.models['target']['model'])}), "
           f"interviewer {md_text(d.models['interviewer']['name'])}, judge {md_text(d.models['judge']['name'])}.",
           "", VIEWER_MD, "",
           f"**Overall score** {s['overall_score']:.3f} over {s['questions']} questions in {s['batches']} batches.",
           "", "## Accuracy", "", "| group | n | correct | accuracy |", "|---|---|---|---|"]
    out += [f"| {k} | {a['n']} | {a['correct']} | {_pct(a['accuracy'])} |" for k, a in s["accuracy"].items()]
    out += ["", "## Tier trajectory per batch", ""]
    out += [f"- batch {b}: {' -> '.join(t)}" for b, t in s["trajectories"].items()]
    out += ability_markdown(d)
    out += ["", *paths_markdown(run)]
    out += ["", *judging_markdown(d.judging)]
    out += ["", *validation_markdown(d.validation)]
    out += ["", "## Knowledge gaps", "", "Entities most often behind failed questions (on their knowledge paths, "
            "or named by a failed base question and its gold):", ""]
    out += gaps_markdown(d.gaps, d.names is not None)
    out += weak_markdown(d)
    out += ["", "## Feedback per batch", ""]
    for f in d.feedback:
        out += batch_markdown(run, f)
    out += ["", "## Tokens and cost", "", "| role | calls | cached | input tokens | output tokens | cost $ |",
            "|---|---|---|---|---|---|"]
    out += [f"| {role} | {u['calls']} | {u['cache_hits']} | {u['input_tokens']} | {u['output_tokens']} | {u['cost']:.4f} |"
            for role, u in (s.get("usage") or {}).items()]
    return "\n".join(out) + "\n"


def paths_markdown(run: Run) -> list[str]:
    """How on topic each extension round's chunks were: the distribution of the path's relevance (mean
    over its chunks of the similarity to the closest batch question), by where the chunks came from."""
    rounds: dict[tuple[int, int], PathInfo] = {}
    for r in question_records(run):
        if r.stage == "extension" and r.path:
            rounds.setdefault((r.batch, r.round), r.path)
    out = ["## Knowledge paths", ""]
    measured = [p for p in rounds.values() if p.get("relevance") is not None]
    if not measured:
        return out + ["No extension round recorded a path relevance (a run without extension, or from an "
                      "earlier version)."]
    by_source: dict[str, list[float]] = {}
    for p in measured:
        source = "random (--no-graph)" if p.get("random") else "dense (--path dense)" if p.get("dense") else "graph"
        by_source.setdefault(source, []).append(float(p.get("relevance") or 0.0))
    out += ["Relevance of a round's chunks: the mean over its chunks of the cosine similarity to the closest "
            "question of the batch (the graph's encoder).", "",
            "| chunks from | rounds | min | median | max |", "|---|---|---|---|---|"]
    for source, values in by_source.items():
        values.sort()
        out.append(f"| {source} | {len(values)} | {values[0]:.2f} | {statistics.median(values):.2f} | {values[-1]:.2f} |")
    kinds = Counter(p.get("seed_kind") for p in measured if not p.get("random") and not p.get("dense"))
    if kinds:
        out += ["", "Graph paths by seed: " + ", ".join(f"{k or 'unknown'} {n}" for k, n in kinds.most_common()) + "."]
    return out


def validation_markdown(v: dict[str, Any] | None) -> list[str]:
    if not v:
        return ["## Validation", "", "Not validated yet: run `judgeagent validate` on this run."]
    iv = v["intervals"]
    ci = lambda k: "" if not iv.get(k) else f" [{_pct(iv[k][0])}, {_pct(iv[k][1])}]"  # noqa: E731
    o = v["overall"]
    rows = ["## Validation", "", "| | n | ACC1 | ACC2 | CR | CtE | Δ = CR - CtE |", "|---|---|---|---|---|---|---|",
            f"| all | {o['n']} | {_pct(o['acc1'])}{ci('acc1')} | {_pct(o['acc2'])}{ci('acc2')} | {_pct(o['cr'])}{ci('cr')} | "
            f"{_pct(o['cte'])}{ci('cte')} | {_pct(o['delta'])}{ci('delta')} |"]
    groups = [(f"difficulty {k}", r) for k, r in v["by_difficulty"].items()]
    groups += [(f"type {k}", r) for k, r in v["by_question_type"].items()]
    if v.get("held_out"):
        groups += [("seen by the interviewer", v["seen"]), ("held out", v["held_out"])]
    rows += [f"| {name} | {r['n']} | {_pct(r['acc1'])} | {_pct(r['acc2'])} | {_pct(r['cr'])} | {_pct(r['cte'])} | "
             f"{_pct(r['delta'])} |" for name, r in groups]
    rows += ["", f"CR over the initially wrong {_pct(o['cr_given_wrong'])}; CtE over the initially right "
             f"{_pct(o['cte_given_right'])}; exact McNemar p = {o['mcnemar_p']:.3g} "
             f"({o['wrong_to_right']} wrong→right, {o['right_to_wrong']} right→wrong). Intervals: 95% bootstrap.",
             f"Leakage guard: leaks caught in {v['leakage']['batches_with_leaks']} of {v['batches']} batches, "
             f"{v['leakage']['redacted']} redacted."]
    return rows


def batch_markdown(run: Run, f: FeedbackEntry) -> list[str]:
    fb: Mapping[str, str] = f.feedback or {}
    out = [f"### Batch {f.batch} (score {f.score:.1f} over {f.asked} questions; tiers "
           f"{' -> '.join(f.trajectory)})", ""]
    for key in ("flaws_knowledge", "flaws_capability", "comprehensive_performance", "suggestions"):
        out.append(f"- **{key.replace('_', ' ')}**: {md_text(fb.get(key, f.feedback_error or '-'))}")
    out += ["", "| stage | difficulty | question | gold | answer | correct | path |", "|---|---|---|---|---|---|---|"]
    for r in (r for r in question_records(run) if r.batch == f.batch):
        path = " → ".join(r.path_entities)
        cells = [r.stage, r.difficulty or "-", r.question, r.gold, r.answer.strip(), "yes" if r.correct else "no",
                 path or "-"]
        out.append("| " + " | ".join(md_cell(c, 200) for c in cells) + " |")
    return out + [""]


# --- HTML -------------------------------------------------------------------------------------------------


def html_page(d: ReportData) -> str:
    s, run, v = d.summary, d.run, d.validation
    charts = [trajectories(s["trajectories"]), bars(d.by_difficulty, "Accuracy by difficulty")]
    if v:
        o = v["overall"]
        charts.append(bars({"ACC1": o["acc1"], "ACC2": o["acc2"], "CR": o["cr"], "CtE": o["cte"]},
                           "Validation: ACC1, ACC2, CR, CtE"))
    body = [f"<h1>judgeagent report: {escape(run.folder.name)}</h1>",
            f"<p>Target <b>{escape(d.models['target']['name'])}</b>; overall score "
            f"<b id='overall-score'>{s['overall_score']:.3f}</b> over {s['questions']} questions in "
            f"{s['batches']} batches.</p>", VIEWER_LINK,
            f"<div class='plots'>{''.join(charts)}</div>",
            md_block(ability_markdown(d)),
            md_block(paths_markdown(run)),
            "<h2>Accuracy</h2>", table(["group", "n", "correct", "accuracy"],
                                        [[k, a["n"], a["correct"], _pct(a["accuracy"])] for k, a in s["accuracy"].items()],
                                        "accuracy"),
            md_block(judging_markdown(d.judging)),
            md_block(validation_markdown(v)),
            "<h2>Knowledge gaps</h2>", table(["entity", "kind", "in documents", "failed questions"],
                                             [[g.name, g.kind, g.documents, g.failed] for g in d.gaps], "gaps"),
            md_block(weak_markdown(d)),
            "<h2>Feedback per batch</h2>"]
    for f in d.feedback:
        body.append(f"<details open><summary>Batch {f.batch}</summary>{md_block(batch_markdown(run, f)[2:])}</details>")
    body.append("<h2>Tokens and cost</h2>")
    body.append(table(["role", "calls", "cached", "input tokens", "output tokens", "cost $"],
                       [[r, u["calls"], u["cache_hits"], u["input_tokens"], u["output_tokens"], f"{u['cost']:.4f}"]
                        for r, u in (s.get("usage") or {}).items()], "usage"))
    return page(f"judgeagent: {run.folder.name}", "".join(body))




def compare_runs(folders: list[str | Path]) -> str:
    """One Markdown table over several validated runs (targets, or ablations as in the paper's Table 3)."""
    from ....runs import load_run

    rows = ["| run | target | extension | graph | difficulty | n | ACC1 | ACC2 | CR | CtE | Δ = CR - CtE |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for folder in folders:
        run = load_run(folder)
        vpath = run.folder / "validation.json"
        if not vpath.exists():
            raise JudgeAgentError(f"run {folder} has no validation: run judgeagent validate {folder} first")
        o = json.loads(vpath.read_text())["overall"]
        c = run.manifest["config"]
        rows.append(f"| {run.folder.name} | {run.manifest['models']['target']['name']} | "
                    f"{'yes' if c['extension'] else 'no'} | {'yes' if c['graph'] else 'random chunks'} | "
                    f"{c['fixed_difficulty'] or 'adaptive'} | {o['n']} | {_pct(o['acc1'])} | {_pct(o['acc2'])} | "
                    f"{_pct(o['cr'])} | {_pct(o['cte'])} | {_pct(o['delta'])} |")
    return "\n".join(rows)
