"""The `judgeagent` command line: a thin typer layer over the library (no library module imports it)."""
from .main import app, main

__all__ = ["app", "main"]
