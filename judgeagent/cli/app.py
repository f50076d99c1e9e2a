"""The typer application every command module registers on (kept apart from `main` so that the command
modules and `main` import it without importing each other)."""
from __future__ import annotations

import typer

app = typer.Typer(
    name="judgeagent", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="Interviewer-style LLM evaluation on a knowledge graph (JudgeAgent).",
)


def _version(value: bool) -> None:
    if value:
        from ..version import __version__, versions

        commit = versions().get("judgeagent_commit")
        typer.echo(f"judgeagent {__version__}" + (f" ({commit[:12]}{'+dirty' if commit.endswith('+dirty') else ''})"
                                                   if commit else ""))
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                       help="Print judgeagent's version and exit.")) -> None:
    """Interviewer-style LLM evaluation on a knowledge graph (JudgeAgent)."""
