"""The commands on finished runs: validate, report, rescore, compare."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .app import app
from .fields import ConfigOption, every_tenth

AllowModelChange = Annotated[bool, typer.Option(
    "--allow-model-change", help="Go on when a model's name now resolves to another model than the run used "
    "(another server, weights or settings); the change is recorded in the run.")]


def validation_progress(quiet: bool) -> Any:
    """A line every tenth of the way (and at the end) on stderr, unless quiet."""
    return None if quiet else every_tenth(
        lambda done, total: f"validation: {done}/{total} questions answered with and without suggestions")


@app.command("validate")
def validate_cmd(
    run: Annotated[Path, typer.Argument(help="A finished JudgeAgent run folder.")],
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    all_rounds: Annotated[bool, typer.Option("--all-rounds", help="Also validate the feedback the interviewer "
                                             "gives after each earlier extension round (round 0: base questions "
                                             "only), as the authors' --eval_all_rounds.")] = False,
    allow_model_change: AllowModelChange = False,
) -> None:
    """Re-answer the base questions with each batch's suggestions: ACC1, ACC2, CR, CtE (Algorithm 2; JudgeAgent)."""
    from ..models.spec import load_registry
    from ..protocols.judgeagent.validate import render_validation, validate

    result = validate(run, registry=load_registry(config), cache_dir=cache_dir, cache=not no_cache,
                      progress=validation_progress(quiet), all_rounds=all_rounds,
                      allow_model_change=allow_model_change)
    typer.echo(render_validation(result))
    typer.echo(f"written: {run / 'validation.json'}")


@app.command("report")
def report_cmd(run: Annotated[Path, typer.Argument(help="A finished run folder (of any protocol).")]) -> None:
    """Write report.md, a self-contained report.html and the transcript viewer, viewer.html (JudgeAgent runs: also
    the trainer export)."""
    from ..files import write_text_atomic
    from ..protocols import protocol_of_run
    from ..protocols.judgeagent.export import export_weaknesses, graph_chunk_texts
    from ..protocols.judgeagent.report import build_report
    from ..protocols.judgeagent.validate import open_finished
    from ..protocols.reports import write_reports
    from ..view.page import render_viewer

    protocol = protocol_of_run(run)
    viewer, page = render_viewer([(protocol, run)], reported=True)  # every episode read before any write
    if protocol.name != "judgeagent":  # re-rendered from summary.json with the protocol's sections
        md, html = write_reports(protocol, run)
        write_text_atomic(viewer, page)
        typer.echo(f"report: {html}\nmarkdown: {md}\nviewer: {viewer}")
        return
    md, html = build_report(run)
    finished = open_finished(run)
    parquet, jsonl, n = export_weaknesses(finished, graph_chunk_texts(finished))
    write_text_atomic(viewer, page)
    typer.echo(f"report: {html}\nmarkdown: {md}\nweaknesses ({n} failed questions): {parquet}, {jsonl}\n"
               f"viewer: {viewer}")


@app.command("rescore")
def rescore_cmd(
    run: Annotated[Path, typer.Argument(help="A finished KIEval run folder.")],
    evaluator: Annotated[str, typer.Option(help="The other evaluator (name, local, provider:model).")],
    config: ConfigOption = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the shared response cache.")] = False,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Shared response cache folder.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    allow_model_change: AllowModelChange = False,
) -> None:
    """Score a KIEval run's stored conversations with another evaluator; agreement per aspect."""
    from ..models.spec import load_registry
    from ..protocols.kieval.rescore import render_rescore, rescore

    said = every_tenth(lambda done, total: f"conversations: {done}/{total} rescored")
    result = rescore(run, evaluator, registry=load_registry(config), cache_dir=cache_dir, cache=not no_cache,
                     progress=None if quiet else said, allow_model_change=allow_model_change)
    typer.echo(render_rescore(result))


@app.command("compare")
def compare_cmd(runs: Annotated[list[Path], typer.Argument(help="Finished run folders of one protocol "
                                                            "(JudgeAgent: validated runs).")]) -> None:
    """One table over runs of one protocol: a row per run with its models and the protocol's headline numbers
    (JudgeAgent: ACC1, ACC2, CR, CtE and Δ = CR - CtE)."""
    from ..protocols import compare_runs

    typer.echo(compare_runs(runs))
