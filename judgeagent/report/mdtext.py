"""Text that models and corpora wrote, made safe to put into a Markdown report.

Markdown passes raw HTML through: a model reply `<script>...</script>` interpolated into report.md runs in
any viewer that renders it. Every protocol's report puts such text through `md_text` (running text, list
items, quotes) or `md_cell` (a table cell); the HTML rendering of the same lines (`report.build.md_block`)
unescapes the entities before escaping once, so the page shows the text as written.
"""
from __future__ import annotations

from typing import Any


def md_text(value: Any) -> str:
    """`value` as text with `&`, `<` and `>` escaped (no raw HTML can pass), on one line."""
    text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(text.splitlines())


def md_cell(value: Any, limit: int | None = None) -> str:
    """`md_text`, also with `|` escaped (it would end the cell), cut to `limit` characters of the text."""
    text = " ".join(str(value).splitlines())
    if limit is not None:
        text = text[:limit]
    return md_text(text).replace("|", "\\|")


def md_lines(value: Any) -> list[str]:
    """`md_text` line by line (for a quoted reply, whose line breaks are kept)."""
    return [md_text(line) for line in str(value).splitlines()]


def md_fence(text: str, info: str = "text") -> str:
    """`text` verbatim in a fenced code block that nothing in it can close (the fence outgrows its backticks)."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def md_quote(text: str) -> str:
    """`text` as a Markdown quote (`> ` lines), escaped line by line; "(empty)" when blank."""
    return "\n".join(f"> {line}" if line else ">" for line in md_lines(text.strip() or "(empty)"))
