"""The `judgeagent` command: each command parses its options, makes one library call and renders.

The commands live by subject (graph, models, evaluate, results) and register on one typer app (`app.py`);
importing them here, in this order, is what lists them in `judgeagent --help`.
"""
from __future__ import annotations

import sys

import typer

from ..errors import Interrupted, JudgeAgentError

# Importing a command module registers its commands; this order is `judgeagent --help`'s (not sorted).
# isort: off
from . import graph  # noqa: F401
from . import models  # noqa: F401
from . import cache  # noqa: F401
from . import evaluate  # noqa: F401
from . import results  # noqa: F401
from . import view  # noqa: F401
from . import synthesize  # noqa: F401
from . import detect  # noqa: F401
from . import reproduce  # noqa: F401
# isort: on
from .app import app


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors print one line and exit 1, never a traceback."""
    try:
        result = app(args=argv, prog_name="judgeagent", standalone_mode=False)
    except JudgeAgentError as e:
        typer.echo(f"error: {e}", err=True)
        return 1
    except Interrupted as e:
        typer.echo(f"aborted: {e}", err=True)
        return 130
    except typer.Exit as e:
        return e.exit_code
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("aborted", err=True)
        return 130
    except Exception as e:
        if hasattr(e, "show") and hasattr(e, "exit_code"):  # a usage error from typer's click
            e.show()
            return int(e.exit_code)
        raise
    if result == 130:  # typer turns Ctrl-C inside a command into a silent exit 130
        typer.echo("aborted", err=True)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
