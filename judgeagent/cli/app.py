"""The typer application every command module registers on (kept apart from `main` so that the command
modules and `main` import it without importing each other)."""
from __future__ import annotations

import typer

app = typer.Typer(
    name="judgeagent", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="Interviewer-style LLM evaluation on a knowledge graph (JudgeAgent).",
)
