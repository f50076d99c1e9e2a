"""What every protocol's report.html is made of: one self-contained page (inline CSS, no scripts), tables,
and the few Markdown shapes report sections use rendered as HTML."""
from __future__ import annotations

from html import escape, unescape
from typing import Any

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}td,th{border:1px solid #ccc;padding:.3em .5em;
vertical-align:top;text-align:left}th{background:#f3f3f3}.plots{display:flex;flex-wrap:wrap;gap:1em}
.bad{color:#b00}.good{color:#070}details{margin:.5em 0}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}blockquote{border-left:3px solid #ccc;margin:.5em 0;
padding:0 .8em;color:#444}"""


VIEWER_MD = "Every episode's transcript: [viewer.html](viewer.html) (`judgeagent report` and `judgeagent view` write it)."
VIEWER_LINK = ("<p class='viewer'><a href='viewer.html'>Every episode's transcript: viewer.html</a> (<code>judgeagent "
               "report</code> and <code>judgeagent view</code> write it)</p>")
"""The report's link to the run's transcript viewer (`judgeagent.view`), in Markdown and in HTML."""


def page(title: str, body: str) -> str:
    """The self-contained HTML page every report is (inline CSS, no scripts): `body` is HTML already."""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>\n")


def table(head: list[str], rows: list[list[Any]], ident: str) -> str:
    cells = "".join(f"<th>{escape(str(h))}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table id='{ident}'><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"



def md_block(lines: list[str]) -> str:
    """The few Markdown shapes the sections use (headings, bullets, pipe tables, quotes, fenced code) as HTML."""
    html: list[str] = []
    piped: list[list[str]] = []
    quote: list[str] = []
    code: list[str] | None = None
    for line in [*lines, ""]:
        if code is not None:  # inside a fence: verbatim until the closing one
            if line.startswith("```"):
                html.append(f"<pre>{escape(chr(10).join(code))}</pre>")
                code = None
            else:
                code.append(line)
            continue
        if line.startswith("|"):
            piped.append([unescape(c.strip().replace("\\|", "|")) for c in line.strip("|").split(" | ")])
            continue
        if piped:
            rows = [r for r in piped if not set("".join(r)) <= set("-|")]
            html.append(table(rows[0], rows[1:], "t"))
            piped = []
        line = line if line.startswith("|") else unescape(line)  # md_text's entities: escaped once below
        if line.startswith(">"):
            quote.append(line[1:].removeprefix(" "))
            continue
        if quote:
            html.append(f"<blockquote>{'<br>'.join(escape(q) for q in quote)}</blockquote>")
            quote = []
        if line.startswith("```"):
            code = []
        elif line.startswith("### "):
            html.append(f"<h3>{escape(line[4:])}</h3>")
        elif line.startswith("## "):
            html.append(f"<h2>{escape(line[3:])}</h2>")
        elif line.startswith("# "):
            html.append(f"<h1>{escape(line[2:])}</h1>")
        elif line.startswith("- "):
            html.append(f"<p>• {escape(line[2:]).replace('**', '')}</p>")
        elif line.strip():
            html.append(f"<p>{escape(line).replace('**', '').replace('`', '')}</p>")
    if code is not None:  # an unclosed fence still shows its text
        html.append(f"<pre>{escape(chr(10).join(code))}</pre>")
    return "".join(html)
