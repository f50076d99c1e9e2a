"""Load benchmark items (question, gold answer, options) from .jsonl / .json / .csv / .parquet files."""
from __future__ import annotations

import csv
import io
import math
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .benchmarks import is_spec, load_native
from .benchmarks.item import (
    DIFFICULTIES,
    Difficulty,
    Item,
    ItemFields,
    normalise_difficulty,
    option_letter,
    to_item,
)
from .errors import JudgeAgentError
from .files import json_records, jsonl_records, read_text

__all__ = ["DIFFICULTIES", "SUFFIXES", "Benchmark", "Difficulty", "Item", "ItemFields", "attach_passages",
           "choose_items", "load_benchmark", "normalise_difficulty", "option_letter", "to_item"]

SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")

@dataclass(frozen=True)
class Benchmark:
    path: Path
    items: list[Item]
    notes: tuple[str, ...] = field(default=(), kw_only=True)
    """(Keyword-only, so that subclasses' positional fields keep their places.) What a native-format loader left out, one line each (e.g. multi-answer items no protocol grades)."""

    def __len__(self) -> int:
        return len(self.items)


def load_benchmark(path: str | Path, fields: ItemFields = ItemFields(), *, limit: int | None = None,
                   sample: int | None = None, seed: int = 0) -> Benchmark:
    """Read every item of one file, check it, then keep a `sample` and/or the first `limit` items.

    Formats: `.jsonl` (one object a line), `.json` (a list of objects, or one object), `.csv` and
    `.parquet` (one row an item). Options are a mapping {"A": text, ...}, a list (lettered A, B, ...)
    or, in CSV, either a JSON string in the options column or one column per option named A, B, C, ...
    (used when the options column is absent or empty). `supporting_doc_ids` in CSV is a JSON list or
    ids separated by `;`. Columns that are not mapped to a field go into `meta` (with the record's own
    `meta` object). An item without a qid gets `<file stem>-<n>` (n = its position, from 1).

    `FORMAT:PATH` (e.g. `mmlu:data/test`, `iwslt:en-zh.tgz`, `gsm8k:hf:openai/gsm8k#main/test`) reads a
    benchmark in its publisher's native format instead (`judgeagent.benchmarks` lists the formats).

    `sample` draws that many items at random (reproducible with `seed`, kept in file order); `limit`
    then keeps the first N. The whole file is validated either way.
    """
    file = Path(path)
    _check_count("limit", limit)
    _check_count("sample", sample)
    notes: tuple[str, ...] = ()
    if is_spec(str(path)):
        loaded = load_native(str(path), fields)
        items, notes = _unique(loaded.items), loaded.notes
    else:
        items = _unique(list(_read_items(_checked_file(file), fields)))
    if not items:
        raise JudgeAgentError(f"benchmark {file} has no items")
    if sample is not None and sample < len(items):
        keep = sorted(random.Random(seed).sample(range(len(items)), sample))
        items = [items[i] for i in keep]
    if limit is not None:
        items = items[:limit]
    return Benchmark(file, items, notes=notes)


def choose_items(benchmark: Benchmark, limit: str | int | None = None, ids: list[str] | None = None) -> Benchmark:
    """The items a user names the way other tools let them: `limit` as a count (`10`), a fraction of the file
    (`0.2`, as lm-evaluation-harness), or a 1-based inclusive range (`10-20`, as Inspect); `ids` by qid (Inspect's
    --sample-id), in file order. A bad value or an unknown id is one line naming it."""
    items = benchmark.items
    if ids:
        wanted = [i.strip() for part in ids for i in str(part).split(",") if i.strip()]
        known = {item.qid for item in items}
        missing = [i for i in wanted if i not in known]
        if missing:
            raise JudgeAgentError(f"--sample-id {missing[0]!r} is no item of {benchmark.path} (its ids look like "
                                  f"{', '.join(list(known)[:3])})")
        items = [item for item in items if item.qid in set(wanted)]
    if limit is not None and str(limit).strip():
        items = items[_limit_slice(str(limit).strip(), len(items))]
    if not items:
        raise JudgeAgentError(f"--limit {limit} keeps no item of {benchmark.path}")
    return Benchmark(benchmark.path, items, notes=benchmark.notes)


def _limit_slice(text: str, count: int) -> slice:
    start, dash, stop = text.partition("-")
    try:
        if dash:
            first, last = int(start), int(stop)
            if first < 1 or last < first:
                raise ValueError
            return slice(first - 1, last)
        if "." in text:
            share = float(text)
            if not 0 < share <= 1:
                raise ValueError
            return slice(0, max(1, math.ceil(share * count)))
        n = int(text)
        if n < 1:
            raise ValueError
        return slice(0, n)
    except ValueError:
        raise JudgeAgentError(f"--limit {text!r}: give a count (10), a fraction of the items (0.2) or a range "
                              "(10-20, counted from 1)") from None


def attach_passages(benchmark: Benchmark, documents: Mapping[str, str]) -> Benchmark:
    """Give items without a passage the texts of their supporting documents, joined by blank lines."""
    items = []
    for item in benchmark.items:
        texts = [documents[d] for d in item.supporting_doc_ids if d in documents]
        if item.passage is None and texts:
            item = replace(item, passage="\n\n".join(texts))
        items.append(item)
    return Benchmark(benchmark.path, items, notes=benchmark.notes)


def _check_count(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise JudgeAgentError(f"{name} must be at least 1, got {value}")


def read_questions(path: str | Path) -> list[str]:
    """The question of each record of a benchmark file, no gold needed (what `sample-path --questions` asks paths
    for): its `question` field, or Inspect's `input` where a record has none."""
    file, found = _checked_file(Path(path)), []
    for record, source in _records(file):
        value = (record.get("question", record.get("input")) if isinstance(record, dict) else None)
        if not isinstance(value, str) or not value.strip():
            columns = ", ".join(map(str, record)) if isinstance(record, dict) else "none: not an object"
            raise JudgeAgentError(f"{source}: no question text (a 'question' or 'input' field); its columns: "
                                  f"{columns or 'none'}")
        found.append(value.strip())
    if not found:
        raise JudgeAgentError(f"{file} holds no questions")
    return found


def _checked_file(file: Path) -> Path:
    if not file.exists():
        raise JudgeAgentError(f"benchmark not found: {file}")
    if file.is_dir() or file.suffix.lower() not in SUFFIXES:
        raise JudgeAgentError(f"unsupported benchmark file {file} (expected one of {', '.join(SUFFIXES)})")
    return file


def _unique(items: list[Item]) -> list[Item]:
    seen: dict[str, Item] = {}
    for item in items:
        if item.qid in seen:
            first = seen[item.qid].source
            raise JudgeAgentError(f"duplicate qid {item.qid!r} at {item.source} (first at {first})")
        seen[item.qid] = item
    return items


# --- reading records ---------------------------------------------------------------------------------


INSPECT_FIELDS = ItemFields(qid="id", question="input", answer="target", options="choices")
"""Inspect AI's sample columns (`input`, `target`, `choices`, `id`): read as they are when a file has them and
not ours. A multiple-choice `target` is the gold option's letter."""


def _read_items(file: Path, fields: ItemFields) -> Iterator[Item]:
    for number, (record, source) in enumerate(_records(file), start=1):
        chosen = fields
        if fields == ItemFields() and isinstance(record, dict) and "question" not in record and "input" in record:
            chosen = INSPECT_FIELDS.model_copy(update={"answer_letter": "target"}) if record.get("choices") \
                else INSPECT_FIELDS
        yield to_item(record, source, chosen, default_qid=f"{file.stem}-{number}")


def _records(file: Path) -> Iterator[tuple[Any, str]]:
    suffix = file.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet_records(file)
        return
    text = read_text(file)
    if suffix == ".jsonl":
        yield from jsonl_records(file, text)
    elif suffix == ".json":
        yield from json_records(file, text)
    else:
        yield from _csv_records(file, text)


def _csv_records(file: Path, text: str) -> Iterator[tuple[Any, str]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    line = 2  # the header is line 1
    try:
        for row in reader:
            yield row, f"{file}:{line}"
            line = reader.line_num + 1  # a quoted cell may span lines: the next row starts after this one
    except csv.Error as e:
        raise JudgeAgentError(f"{file}:{reader.line_num}: malformed CSV ({e})") from None


def _parquet_records(file: Path) -> Iterator[tuple[Any, str]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(file)
    except Exception as e:  # pyarrow raises several types for unreadable files
        raise JudgeAgentError(f"cannot read parquet file {file}: {e}") from None
    for index, record in enumerate(table.to_pylist()):
        yield record, f"{file}[row {index}]"
