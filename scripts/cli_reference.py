"""Regenerate the option tables of docs/cli.md from the CLI itself, so the reference cannot drift.

    .venv/bin/python scripts/cli_reference.py          # rewrite the tables in docs/cli.md
    .venv/bin/python scripts/cli_reference.py --check  # exit 1 if they differ (tests/test_cli_docs.py)

Each command's table sits between `<!-- options: NAME -->` and `<!-- /options -->`; the prose around
them is written by hand. A command without markers gets a section appended at the end.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import typer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judgeagent.cli import app  # noqa: E402

DOC = ROOT / "docs" / "cli.md"
BLOCK = re.compile(r"<!-- options: (?P<name>[\w-]+) -->\n.*?<!-- /options -->", re.S)


def commands() -> dict[str, Any]:
    group = typer.main.get_command(app)
    return {name: group.commands[name] for name in sorted(group.commands)}  # type: ignore[attr-defined]


def table(command: Any) -> str:
    rows = ["| option | type | default | what it does |", "|---|---|---|---|"]
    for param in command.params:
        if param.name == "help":
            continue
        names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
        if type(param).__name__.endswith("Argument"):
            names = f"`{param.name.upper()}` (argument)"
        kind = "flag" if getattr(param, "is_flag", False) else _kind(param)
        if param.multiple:
            kind += ", repeatable"
        default = "**required**" if param.required else _default(param.default)
        text = (getattr(param, "help", None) or "").replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {names} | {kind} | {default} | {text} |")
    return "\n".join(rows)


def _kind(param: Any) -> str:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    name = getattr(annotation, "__name__", str(annotation or "text"))
    kind = {"str": "text", "Path": "path", "int": "integer", "float": "number", "list": "text"}.get(name, name)
    bounds = [f">= {param.min}" if getattr(param, "min", None) is not None else "",
              f"<= {param.max}" if getattr(param, "max", None) is not None else ""]
    return " ".join([kind, *[b for b in bounds if b]])


def _default(value: object) -> str:
    if value is None or value == () or value == []:
        return ""
    if value is False:
        return "off"
    return f"`{value}`"


def render(doc: str) -> str:
    """`doc` with every command's option table regenerated (and missing commands appended)."""
    cmds = commands()
    seen: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        seen.add(name)
        if name not in cmds:
            return match.group(0)
        return f"<!-- options: {name} -->\n{table(cmds[name])}\n<!-- /options -->"

    doc = BLOCK.sub(replace, doc)
    for name, command in cmds.items():  # commands the doc does not mention yet
        if name not in seen:
            summary = " ".join((command.help or "").strip().split("\n\n")[0].split())  # its first paragraph, whole
            doc = doc.rstrip("\n") + (f"\n\n## {name}\n{summary}\n\n<!-- options: {name} -->\n{table(command)}\n"
                                      "<!-- /options -->\n")
    return doc if doc.endswith("\n") else doc + "\n"


def main() -> int:
    current = DOC.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in sys.argv:
        if current != wanted:
            print("docs/cli.md is out of date with the CLI: run .venv/bin/python scripts/cli_reference.py")
            return 1
        return 0
    DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
