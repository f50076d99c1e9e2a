"""What the viewer and the Inspect export show of a run: its episodes, each with filterable facets, numeric
scores and its turns in order. `generic_episodes` reads any run written through the runner (records in the
shared `Record` envelope, a row per episode); a protocol whose records differ builds its own."""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path as FilePath
from typing import Any, TypedDict

from ..benchmark import load_benchmark
from ..errors import JudgeAgentError
from ..runs import Manifest, Run, read_rows
from .record import CALL_KEY, Record, ScoreRow

Facet = str | list[str]


@dataclass(frozen=True)
class PathView:
    """A knowledge path a turn was built on: its entities (highlighted in the texts) and chunks."""

    entities: list[str]
    chunks: list[dict[str, str]]
    """Each chunk `{"id": ..., "text": ...}` (text empty when the graph is no longer where the run found it)."""


class PagePath(TypedDict):
    entities: list[str]
    chunks: list[dict[str, str]]


class PageTurn(TypedDict):
    """A turn as the viewer's page reads it."""

    role: str
    step: str
    prompt: str
    reply: str
    scores: dict[str, ScoreRow]
    notes: dict[str, str]
    details: str
    path: PagePath | None
    model: str


class PageEpisode(TypedDict):
    """An episode as the viewer's page embeds it: its turns as one JSON string (of `PageTurn`s)."""

    id: str
    item: str
    qid: str | None
    facets: dict[str, Facet]
    scores: dict[str, float]
    methods: list[str]
    gold: str | None
    path: PagePath | None
    turns: str


@dataclass(frozen=True)
class Turn:
    """One model turn: who spoke (`role`), at which step, what it saw (`prompt`), what it said, its scores."""

    role: str
    step: str
    prompt: str
    reply: str
    scores: dict[str, ScoreRow] = field(default_factory=dict)
    """Score name -> {value, method, reason, extracted}."""
    notes: dict[str, str] = field(default_factory=dict)
    """Short protocol-specific fields (stage, round, error type ...), shown as `key: value`."""
    details: str = ""
    """Longer structured fields (a judge's per-aspect comments) as indented JSON: the judge's reasoning."""
    path: PathView | None = None
    model: str = ""
    call: tuple[str, str] | None = None
    """The journaled call this turn was, as (the last message sent, the reply received), where the turn shows
    another prompt or reply: a prompt shown with its roles, an answer parsed from a whole batch's reply (JudgeAgent
    under `setting=authors`). None: the call is (`prompt`, `reply`)."""
    call_id: str = ""
    """The journaled call's `record.call_id`, where the record kept it (a prompt or reply not the call's own, e.g. an
    interviewer's feedback parsed from its JSON reply); it names the call before `call` does."""


@dataclass(frozen=True)
class EpisodeView:
    """One episode as the viewer lists it."""

    id: str
    item: str
    """What the episode is about, one line (the item's question, the game)."""
    qid: str | None
    facets: dict[str, Facet]
    """Filterable fields (verdict, stage, difficulty, ...); a list when the episode has several values."""
    scores: dict[str, float]
    """Numeric scores (a mean over the episode's turns per score name, the row's own numbers)."""
    methods: list[str]
    """The verdict methods its scores were reached by."""
    turns: list[Turn]
    gold: str | None = None
    path: PathView | None = None
    """A knowledge path the whole episode was grounded on (KIEval's interactor with a graph)."""

    def to_dict(self) -> PageEpisode:
        """As the page embeds it: the turns as one JSON string, parsed only when the episode is opened (a
        10,000-episode run's page parses its list first; bench/view.py)."""
        return {"id": self.id, "item": self.item, "qid": self.qid, "facets": self.facets, "scores": self.scores,
                "methods": self.methods, "gold": self.gold, "path": _path_dict(self.path),
                "turns": json.dumps([_turn_dict(t) for t in self.turns], ensure_ascii=False, default=str)}


def _turn_dict(t: Turn) -> PageTurn:
    """A turn as a dict (`dataclasses.asdict` deep-copies every value: 3x slower on a large run)."""
    return {"role": t.role, "step": t.step, "prompt": t.prompt, "reply": t.reply, "scores": t.scores,
            "notes": t.notes, "details": t.details, "path": _path_dict(t.path), "model": t.model}


def _path_dict(path: PathView | None) -> PagePath | None:
    return None if path is None else {"entities": path.entities, "chunks": path.chunks}


SKIPPED_ROW_FIELDS = {"episode", "index", "qid", "question", "gold", "transcript", "options", "path"}
MAX_NOTE = 80
MAX_FACET = 40


def generic_episodes(run: Run) -> list[EpisodeView]:
    """Every episode of a run written through the runner, in index order (records grouped by `episode`)."""
    from .rows import EpisodeModel, check_row

    path = run.folder / "episodes.jsonl"
    rows = read_rows(path, "episode", finished=run.finished)
    for row in rows:
        check_row(EpisodeModel, row, path)
    rows.sort(key=lambda r: r.get("index") or 0)
    by_episode: dict[str, list[Record]] = {}
    for record in (Record.read(r, run.folder / "records.jsonl") for r in run.records):
        by_episode.setdefault(record.episode, []).append(record)
    known = {r["episode"] for r in rows}
    rows += [{"episode": e} for e in by_episode if e not in known]  # an unfinished episode: its records alone
    models = {role: d.get("name", "") for role, d in (run.manifest.get("models") or {}).items()}
    items = item_facets(run.manifest)
    return [with_item_facets(generic_episode(row, by_episode.get(row["episode"], []), models), items)
            for row in rows]


def item_facets(manifest: Manifest) -> dict[str, dict[str, str]]:
    """Each item's own fields by qid, from the run's benchmark file: difficulty, question type and the file's
    other short columns (a subject, a category). None when the file is gone or no longer reads: the viewer
    shows the run without them."""
    path = (manifest.get("benchmark") or {}).get("path")
    if not path or not FilePath(path).is_file():
        return {}
    try:
        bench = load_benchmark(path)
    except JudgeAgentError:
        return {}
    out = {}
    for item in bench.items:
        fields = {"difficulty": item.difficulty, "question_type": item.question_type, **item.meta}
        out[item.qid] = {k: _label(v) for k, v in fields.items() if _is_facet(v) and len(_label(v)) <= MAX_FACET}
    return out


def with_item_facets(episode: EpisodeView, items: dict[str, dict[str, str]]) -> EpisodeView:
    """The episode with its item's fields as filters (the episode's own fields win)."""
    found = items.get(episode.qid or "")
    return replace(episode, facets={**found, **episode.facets}) if found else episode


def generic_episode(row: dict[str, Any], records: list[Record], models: dict[str, str]) -> EpisodeView:
    """One episode from its row and its records (in the order they were written, which is the dialogue's)."""
    turns = [record_turn(r, models.get(r.role, "")) for r in records]
    facets: dict[str, Facet] = {k: _label(v) for k, v in row.items()
                                if k not in SKIPPED_ROW_FIELDS and _is_facet(v)}
    facets["stage"] = _distinct(t.notes.get("stage", "") for t in turns)
    facets["role"] = _distinct(t.role for t in turns)
    verdict = _verdict(records)
    if verdict:
        facets["verdict"] = verdict
    scores = _mean_scores(records)
    scores.update({f"{k} (row)": float(v) for k, v in (row.get("scores") or {}).items() if _is_number(v)})
    methods = _distinct(s.method for r in records for s in r.scores.values())
    scored = [r for r in records if r.scores] or records  # the item as first put to a scored model
    item = str(row.get("question") or (scored[0].prompt if scored else row["episode"])).strip()
    return EpisodeView(row["episode"], item.splitlines()[0][:300] if item else row["episode"],
                       row.get("qid"), facets, scores, methods, turns, _gold(row), path_of(row.get("path")))


def record_turn(record: Record, model: str = "") -> Turn:
    """A turn from a record in the shared envelope: its short meta fields as notes, the rest as details."""
    meta = record.meta
    notes = {k: _label(v) for k, v in meta.items() if _is_facet(v) and len(_label(v)) <= MAX_NOTE}
    notes.pop(CALL_KEY, None)  # which journaled call: for the export, not a note
    rest = {k: v for k, v in meta.items()
            if k not in notes and v not in (None, "", [], {}) and k not in ("path", CALL_KEY)}
    step = record.record_id.split("/", 1)[-1]
    return Turn(record.role, step, record.prompt or "", record.reply or "",
                {name: score.to_dict() for name, score in record.scores.items()}, notes,
                json.dumps(rest, indent=1, ensure_ascii=False, default=str) if rest else "",
                path_of(meta.get("path")), model, call_id=str(meta.get(CALL_KEY) or ""))


def path_of(path: Any, texts: dict[str, str] | None = None) -> PathView | None:
    """A knowledge path from a stored one (`entities`, `chunk_ids`, and `text`/`texts` when it kept them)."""
    if not isinstance(path, dict) or not path:
        return None
    ids = [str(c) for c in path.get("chunk_ids") or []]
    stored = path.get("texts") or ([path["text"]] if isinstance(path.get("text"), str) else [])
    if ids and (texts or len(stored) == len(ids)):  # a text per chunk
        chunks = [{"id": c, "text": (texts or {}).get(c) or (stored[i] if i < len(stored) else "")}
                  for i, c in enumerate(ids)]
    else:  # the path's chunks' texts kept as one (KIEval's `text`)
        chunks = [{"id": ", ".join(ids), "text": t} for t in stored]
    return PathView([str(e) for e in path.get("entities") or []], chunks)


def _verdict(records: list[Record]) -> str:
    """right / wrong by the last `correct` score of the episode (the answer that counted), else none."""
    last = [r.scores["correct"] for r in records if "correct" in r.scores]
    return "" if not last else ("right" if last[-1].value >= 0.5 else "wrong")


def _mean_scores(records: list[Record]) -> dict[str, float]:
    values: dict[str, list[float]] = {}
    for r in records:
        for name, score in r.scores.items():
            if _is_number(score.value):
                values.setdefault(name, []).append(float(score.value))
    return {name: sum(v) / len(v) for name, v in values.items()}


def _gold(row: dict[str, Any]) -> str | None:
    gold = row.get("gold") or row.get("gold_letter")
    return None if gold is None else str(gold)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_facet(value: Any) -> bool:
    return value is not None and isinstance(value, (str, bool, int, float))


def _label(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _distinct(values: Any) -> list[str]:
    return [v for v in dict.fromkeys(values) if v]
