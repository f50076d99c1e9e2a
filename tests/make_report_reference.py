"""Write tests/data/report_reference/: what a reader sees of a scripted run of each of the five protocols.

    PYTHONPATH=. .venv/bin/python tests/make_report_reference.py [--check]

For each protocol, the run of tests/make_layout_reference.py (JudgeAgent: the 20-question run of
tests/make_judgeagent_reference.py, then `validate`, so its report has the validation's sections; and
`judgeagent-extension`, the same with the extension stage on the graph of tests/conftest.py's `mhr_slice_graph`,
so the report has paths, knowledge gaps and weak documents), then: `<name>.report.md` and `<name>.report.html`
(`judgeagent report`), `<name>.compare.md` (`judgeagent compare` of the run beside itself),
`<name>.inspect.json` (`judgeagent export-inspect`, Inspect's own log) and, for JudgeAgent,
`<name>.weaknesses.jsonl` (the trainer export, its lines sorted). `VARIANTS` adds the reports of runs at
other settings (the paper scorings, follow-ups).
tests/test_report_reference.py compares fresh runs with these files byte for byte, so a changed word, number,
separator or field of a report or a log fails a test that names the file and the first differing lines (#47:
the report modules' emptied strings and swapped conditions survived the tests that read a report's headline
numbers only). What a run cannot make the same twice is normalised first (`normalised`): the run's temporary
folder and graph's, the data's and the checkout's folders, and the log's clocks and ids.

Write them again (and read the diff) after a deliberate change to a report or the Inspect export; `--check`
compares instead of writing.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "data" / "report_reference"
FOLDER, GRAPH = "<run>", "<graph>"
"""What the run's temporary folder and its graph's folder read as in the stored files."""
CLOCKS = frozenset({"created", "started_at", "completed_at", "timestamp", "working_time", "total_time"})
"""Inspect log keys that hold a time: each run has its own."""
IDS = {("eval", "task_id"), ("eval", "run_id")}
"""Inspect log ids: JudgeAgent's task id is its config id, which holds the loopback servers' ports."""


def run(name: str, tmp: Path, graph: Any = None) -> Path:
    """A finished scripted run of `name` in `tmp`, JudgeAgent's validated (its extension's on `graph`)."""
    if name.startswith("judgeagent"):
        from tests.make_judgeagent_reference import capture

        capture(tmp / name, graph if name == "judgeagent-extension" else None)
        return tmp / name
    from tests.make_layout_reference import RUNS

    return (RUNS.get(name) or VARIANTS[name])(tmp / name)


def _interviewer_followups(folder: Path) -> Path:
    from tests.test_interviewer import followup_run

    return followup_run(folder)[0].folder


def _paper_scoring(protocol: str) -> Callable[[Path], Path]:
    def run(folder: Path) -> Path:
        from judgeagent.protocols import run_protocol

        test = __import__(f"tests.test_{protocol}", fromlist=["OPTS", "bench", "models"])
        return run_protocol(protocol, test.bench(), models=test.models(), config={**test.OPTS, "scoring": "paper"},
                            run_dir=folder, cache=False).folder
    return run


def _dynaeval_translation(folder: Path) -> Path:
    """An asymmetric game (translator and proofreader) at the paper's scoring: the report's table by pair of roles."""
    from judgeagent.models.testing import FunctionModel
    from tests.test_dynaeval import SECRET, run

    folder.mkdir(parents=True)
    sources = folder / "sources.jsonl"
    sources.write_text("".join(json.dumps({"id": i, "text": en, "reference": fr}) + "\n" for i, en, fr in (
        ("cat", "The cat sleeps on the red mat.", "Le chat dort sur le tapis rouge."),
        ("rain", "It rains in Paris today.", "Il pleut à Paris aujourd'hui."))))

    def player(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        return ("Il pleut à Paris." if "Paris" in text else "Le chat dort sur le tapis rouge.") \
            if "Translator:" in text else ("Un chat dort." if "cat" in text else "Il pleut.")

    def referee(messages: list[dict[str, str]]) -> str:
        return json.dumps({"Translator": {"evaluation": "loses words", "score": 4},
                           "Proofreader": {"evaluation": "restores them", "score": 9}})

    models = {"players.1": FunctionModel(player, name=SECRET[0]), "players.2": FunctionModel(player, name=SECRET[1]),
              "referee": FunctionModel(referee, name="referee-secret")}
    return run(models, folder, task="translation", sources=str(sources)).folder


VARIANTS: dict[str, Callable[[Path], Path]] = {
    "interviewer-followups": _interviewer_followups, "kieval-paper": _paper_scoring("kieval"),
    "teach2eval-paper": _paper_scoring("teach2eval"), "dynaeval-translation": _dynaeval_translation}
"""Runs at the settings the layout reference's do not take (the layout references were written before the paper
scorings were the defaults, and ask no follow-ups): their reports only, the Inspect export being the same code."""


def _without_clocks(value: Any, path: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        return {k: _without_clocks(v, (*path, k)) for k, v in value.items()
                if k not in CLOCKS and (*path, k) not in IDS}
    if isinstance(value, list):
        return [_without_clocks(v, path) for v in value]
    return value


def inspect_json(log: bytes, folder: Path, graph: str) -> bytes:
    """The Inspect log without its clocks and ids, its samples in id order (episodes finish in the scheduler's
    order), the run's folder as FOLDER."""
    data = _without_clocks(json.loads(log))
    data["samples"] = sorted(data.get("samples") or [], key=lambda s: (str(s.get("id")), s.get("epoch", 0)))
    return normalised(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", folder, graph)


def normalised(text: str, folder: Path, graph: str) -> bytes:
    """`text` with the machine's folders as names: the run's, its graph's, the data's and the checkout's."""
    from tests.conftest import DATA

    text = text.replace(str(folder), FOLDER).replace(str(folder.parent), "<tmp>")
    text = text.replace(graph, GRAPH) if graph else text
    return text.replace(str(DATA), "<data>").replace(str(ROOT), "<checkout>").encode()


def capture(name: str, tmp: Path, graph: Any = None) -> dict[str, bytes]:
    """The files of a fresh scripted run of `name` (its extension on `graph`), normalised, by file name."""
    from judgeagent.protocols import get_protocol
    from judgeagent.protocols.reports import compare, write_reports
    from judgeagent.view.inspect_log import write_inspect_log

    folder = run(name, tmp, graph)
    protocol = get_protocol(name.split("-")[0])
    manifest = json.loads((folder / "manifest.json").read_text())
    at = str((manifest.get("graph") or {}).get("path") or "")
    found = {}
    if protocol.name == "judgeagent":
        from judgeagent.protocols.judgeagent.export import export_weaknesses, graph_chunk_texts
        from judgeagent.protocols.judgeagent.report import build_report
        from judgeagent.protocols.judgeagent.validate import open_finished

        md, html = build_report(folder)
        finished = open_finished(folder)
        _, jsonl, _ = export_weaknesses(finished, graph_chunk_texts(finished))
        found[f"{name}.weaknesses.jsonl"] = normalised("".join(sorted(jsonl.read_text().splitlines(True))), folder, at)
    else:
        written = (folder / "report.md").read_bytes()
        md, html = write_reports(protocol, folder)
        assert md.read_bytes() == written, f"{name}: `judgeagent report` renders another report.md than the run wrote"
    found |= {f"{name}.report.md": normalised(md.read_text(), folder, at),
              f"{name}.report.html": normalised(html.read_text(), folder, at)}
    if name in VARIANTS:
        return found
    log, _ = write_inspect_log(protocol, folder, tmp / f"{name}.log.json")
    return {**found, f"{name}.compare.md": normalised(compare(protocol, [folder, folder]), folder, at),
            f"{name}.inspect.json": inspect_json(log.read_bytes(), folder, at)}


def slice_graph(tmp: Path) -> Any:
    """tests/conftest.py's `mhr_slice_graph` (from the graph cache when it holds it)."""
    from tests.conftest import mhr_slice_docs
    from tests.graph_cache import build

    (tmp / "corpora").mkdir()
    return build(mhr_slice_docs(tmp / "corpora"), tmp / "mhr-slice")


NAMES = ("judgeagent", "judgeagent-extension", "interviewer", "kieval", "teach2eval", "dynaeval", *VARIANTS)


def stored(name: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(REFERENCE.glob(f"{name}.*"))}


def main() -> int:
    from tests.make_layout_reference import write_or_check

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the stored files instead of writing them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        graph = slice_graph(Path(tmp))
        differ = [write_or_check(name, capture(name, Path(tmp), graph), REFERENCE, args.check) for name in NAMES]
    return 1 if any(differ) else 0

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
