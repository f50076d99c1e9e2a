"""`judgeagent view` (the transcript viewer) and `judgeagent export` (a run in another tool's format)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app

EXPORT_FORMATS = ("inspect",)


@app.command("view")
def view_cmd(
    run: Annotated[Path, typer.Argument(help="A run folder (of any protocol).")],
    run2: Annotated[Optional[Path], typer.Argument(help="A second run to compare with (a second target, an "
                                                        "ablation): the same items side by side.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="The HTML file to write (default: viewer.html in RUN, or "
                                                     "viewer-vs-RUN2.html with two runs); an existing file only "
                                                     "if it is a viewer page.")] = None,
    open_it: Annotated[bool, typer.Option("--open", help="Open it in the web browser.")] = False,
) -> None:
    """Write a self-contained HTML viewer of every episode: filters, search, each transcript, the manifest."""
    from ..protocols import protocol_of_run
    from ..view.page import write_viewer

    folders = [run] + ([run2] if run2 else [])
    path = write_viewer([(protocol_of_run(f), f) for f in folders], out)
    typer.echo(f"viewer: {path}")
    if open_it:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())


@app.command("export")
def export_cmd(
    run: Annotated[Path, typer.Argument(help="A finished run folder (of any protocol).")],
    format: Annotated[str, typer.Option("--format", help="inspect: an Inspect AI eval log (one sample per "
                                        "episode), for `inspect view`.")] = "inspect",
    out: Annotated[Optional[Path], typer.Option(help="The file to write, or a folder to write it into under "
                                                "Inspect's log name (default: the run's folder); an existing file "
                                                "only if it is an Inspect log judgeagent wrote.")] = None,
) -> None:
    """Write the run in another tool's format (JudgeAgent's trainer export is `judgeagent report`'s)."""
    from ..errors import JudgeAgentError
    from ..protocols import protocol_of_run
    from ..view.inspect_log import write_inspect_log

    if format not in EXPORT_FORMATS:
        raise JudgeAgentError(f"unknown export format {format!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    path, samples = write_inspect_log(protocol_of_run(run), run, out)
    typer.echo(f"inspect log ({samples} samples): {path}")
