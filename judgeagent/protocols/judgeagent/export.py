"""The trainer export: every failed question with its gold, the target's answer, its knowledge and advice."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

import pyarrow as pa
import pyarrow.parquet as pq

from ...files import write_atomic, write_text_atomic
from ...runs import Run
from .feedback import read_feedback
from .records import question_records


class Weakness(TypedDict):
    """A row of weaknesses.jsonl (and weaknesses.parquet): a failed question, its knowledge and the batch's advice."""

    record_id: str
    batch: int
    stage: str
    round: int
    qid: str | None
    difficulty: str | None
    question: str
    options: str | None
    gold: str
    gold_letter: str | None
    target_answer: str
    verdict_method: str
    verdict_reason: str
    entities: list[str]
    chunk_ids: list[str]
    chunk_texts: list[str]
    suggestions: str | None


def weaknesses(run: Run, chunk_texts: dict[str, str] | None = None) -> list[Weakness]:
    suggestions = {f.batch: f.suggestions for f in read_feedback(run)}
    rows: list[Weakness] = []
    for r in question_records(run):
        if r.correct:
            continue
        ids = r.chunk_ids
        rows.append({
            "record_id": r.record_id, "batch": r.batch, "stage": r.stage, "round": r.round,
            "qid": r.qid, "difficulty": r.difficulty, "question": r.question,
            "options": json.dumps(r.options, ensure_ascii=False) if r.options else None,
            "gold": r.gold, "gold_letter": r.gold_letter, "target_answer": r.answer,
            "verdict_method": r.verdict.method, "verdict_reason": r.verdict.reason,
            "entities": r.path_entities, "chunk_ids": ids,
            "chunk_texts": [(chunk_texts or {}).get(c, "") for c in ids], "suggestions": suggestions.get(r.batch),
        })
    return rows


def export_weaknesses(run: Run, chunk_texts: dict[str, str] | None = None) -> tuple[Path, Path, int]:
    """Write weaknesses.parquet and weaknesses.jsonl (atomically) into the run folder."""
    rows = weaknesses(run, chunk_texts)
    schema = pa.schema([
        ("record_id", pa.string()), ("batch", pa.int32()), ("stage", pa.string()), ("round", pa.int32()),
        ("qid", pa.string()), ("difficulty", pa.string()), ("question", pa.string()), ("options", pa.string()),
        ("gold", pa.string()), ("gold_letter", pa.string()), ("target_answer", pa.string()),
        ("verdict_method", pa.string()), ("verdict_reason", pa.string()), ("entities", pa.list_(pa.string())),
        ("chunk_ids", pa.list_(pa.string())), ("chunk_texts", pa.list_(pa.string())), ("suggestions", pa.string()),
    ])
    table = pa.Table.from_pylist(list(map(dict, rows)), schema=schema)
    parquet, jsonl = run.folder / "weaknesses.parquet", run.folder / "weaknesses.jsonl"
    write_atomic(parquet, lambda tmp: pq.write_table(table, tmp))
    write_text_atomic(jsonl, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return parquet, jsonl, len(rows)


def graph_chunk_texts(run: Run) -> dict[str, str]:
    """Chunk texts from the run's graph, when it is still where the run found it."""
    graph = run.manifest.get("graph") or {}
    path = Path(graph.get("path") or "")
    if not graph.get("path") or not (path / "chunks.parquet").exists():
        return {}
    chunks = pq.read_table(path / "chunks.parquet", columns=["chunk_id", "text"])
    return dict(zip(chunks.column("chunk_id").to_pylist(), chunks.column("text").to_pylist()))
