"""The CLI reference cannot drift: docs/cli.md's option tables are generated from the CLI, every option
says what it does, and `--help` fits an 80-column terminal. (That no library module imports the CLI is
tests/test_layout.py's.) Run in this process: a subprocess a command (about 0.4 s each, quiet) added only the
interpreter's start, which the one `python -m judgeagent --help` below still checks."""
import os
import subprocess
import sys

from tests.conftest import ROOT

NARROW = {"COLUMNS": "80", "TERM": "dumb", "NO_COLOR": "1"}


def test_the_option_tables_match_the_cli():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import cli_reference
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    doc = cli_reference.DOC.read_text(encoding="utf-8")
    assert cli_reference.render(doc) == doc, "docs/cli.md is out of date: run .venv/bin/python scripts/cli_reference.py"


def _wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > 80]


def test_every_option_has_help_and_help_fits_80_columns(capsys, monkeypatch):
    import typer

    from judgeagent.cli import app, main

    for key, value in NARROW.items():
        monkeypatch.setenv(key, value)  # rich reads COLUMNS when typer makes the help's console, per call
    group = typer.main.get_command(app)
    assert len(group.commands) > 10
    for name, command in group.commands.items():
        for param in command.params:
            if type(param).__name__.endswith("Option") and param.name != "help":
                assert (param.help or "").strip(), f"{name} --{param.name} has no help"
        assert main([name, "--help"]) == 0
        out = capsys.readouterr().out
        assert f"judgeagent {name}" in out and "--help" in out, out[:200]
        assert not _wide(out), f"{name} --help: {_wide(out)[:2]}"


def test_the_module_entry_point_prints_help_that_fits(capsys):
    out = subprocess.run([sys.executable, "-m", "judgeagent", "--help"], cwd=ROOT, env={**os.environ, **NARROW},
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "build-graph" in out.stdout and not _wide(out.stdout), _wide(out.stdout)[:2]


def test_a_wide_line_is_seen(capsys, monkeypatch):
    """The width check bites: the same help at 200 columns has lines over 80 (else COLUMNS was not read)."""
    from judgeagent.cli import main

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["evaluate", "--help"]) == 0
    assert _wide(capsys.readouterr().out)
