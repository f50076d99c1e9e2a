"""`judgeagent view`: one self-contained HTML file (inline CSS, script and data; no server, no network) that
lists a run's episodes with filters and search and shows each transcript; with two runs, the same items side
by side with the differences marked."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files import check_replaceable, write_text_atomic
from ..runs import Run, load_run

if TYPE_CHECKING:
    from ..protocols.base import Protocol

VIEWER = "viewer.html"
"""The viewer's file name in a run folder (the report links to it)."""


@dataclass(frozen=True)
class ViewedRun:
    """A run as the page embeds it."""

    run: Run
    protocol: Protocol
    reported: bool = False
    """Link the run's report.html even before it exists (`judgeagent report` writes it after reading the run)."""

    def data(self, page_dir: Path) -> dict[str, Any]:
        report = self.run.folder / "report.html"
        return {
            "name": self.run.folder.name, "protocol": self.protocol.name, "title": self.protocol.title,
            "manifest": self.run.manifest,
            "report": os.path.relpath(report, page_dir) if self.reported or report.exists() else None,
            "episodes": [e.to_dict() for e in self.protocol.view_episodes(self.run)],
        }


def default_out(folders: list[Path]) -> Path:
    """viewer.html in the (first) run's folder; two runs: viewer-vs-<second run>.html there."""
    return folders[0] / (VIEWER if len(folders) == 1 else f"viewer-vs-{folders[1].name}.html")


def write_viewer(runs: list[tuple[Protocol, str | Path]], out: Path | None = None) -> Path:
    """Write the viewer for one run or two (the second compared with the first); its path."""
    out, page = render_viewer(runs, out)
    write_text_atomic(out, page)
    return out


def render_viewer(runs: list[tuple[Protocol, str | Path]], out: Path | None = None,
                  reported: bool = False) -> tuple[Path, str]:
    """The viewer's path and page, written by no one yet: `judgeagent report` reads every record through it
    before it writes any file, so a damaged run leaves its old reports as they were."""
    folders = [Path(f) for _, f in runs]
    out = out or default_out(folders)
    check_replaceable(out, _a_viewer, "a judgeagent viewer page")
    viewed = [ViewedRun(load_run(f), p, reported) for p, f in runs]
    return out, viewer_html(viewed, out.parent)


def _a_viewer(file: Path) -> bool:
    with file.open("rb") as f:
        return b"<title>judgeagent view:" in f.read(4096)


def viewer_html(runs: list[ViewedRun], page_dir: Path) -> str:
    data = {"runs": [r.data(page_dir.resolve() if page_dir.exists() else page_dir) for r in runs]}
    title = " vs ".join(r.run.folder.name for r in runs)
    reports = [(r.run.folder.name, d["report"]) for r, d in zip(runs, data["runs"]) if d["report"]]
    links = "".join(f"<a href='{escape(href)}'>report of {escape(name)}</a> " for name, href in reports)
    asset = files(__package__)
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>judgeagent view: {escape(title)}"
            f"</title><style>{asset.joinpath('viewer.css').read_text(encoding='utf-8')}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><nav></nav><span class='links'>{links}</span>"
            "<span class='notes'>keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous, <kbd>/</kbd> search, "
            "<kbd>o</kbd> prompts, <kbd>Esc</kbd> leave a field</span></header>"
            "<div id='filters'></div>"
            "<main id='episodes-view'><div id='list'><table id='episodes'><thead><tr><th>episode</th><th>item</th>"
            "<th>verdict</th><th>scores</th><th>methods</th></tr></thead><tbody id='rows'></tbody></table>"
            "<div id='more' class='more'></div></div><div id='transcript'></div></main>"
            "<div id='compare-view' class='hidden'><p><label><input type='checkbox' id='only-diff'> only items that "
            "differ</label> <span id='compare-count'></span></p><table id='compare'><thead><tr><th>qid</th><th>item"
            "</th><th>verdict A</th><th>verdict B</th><th>scores A</th><th>scores B</th></tr></thead>"
            "<tbody id='pairs'></tbody></table><div class='pair'><div id='side-a'></div><div id='side-b'></div>"
            "</div></div><div id='manifest' class='hidden'></div>"
            f"<script type='application/json' id='data'>{script_json(data)}</script>"
            f"<script>{asset.joinpath('viewer.js').read_text(encoding='utf-8')}</script></body></html>\n")


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: every `<` written as `\\u003c` (JSON's own escape, so the parsed
    text is unchanged), so no `</script>` can close the element and no `<!--` can change how it is parsed."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).replace("<", "\\u003c")
