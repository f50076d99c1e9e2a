"""Read a corpus (files or folders of .jsonl / .json / .txt / .md / .parquet) into `Document`s."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import FieldMap
from .errors import JudgeAgentError
from .files import field_value, json_records, jsonl_records, read_text

SUFFIXES = (".jsonl", ".json", ".txt", ".md", ".parquet")


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where it was read from (`file` or `file:line`), for error messages."""


@dataclass(frozen=True)
class Corpus:
    root: Path
    documents: list[Document]

    def __len__(self) -> int:
        return len(self.documents)


def read_corpus(path: str | Path, fields: FieldMap = FieldMap()) -> Corpus:
    """Read every supported file under `path`; fail on the first bad record with its location."""
    root = Path(path)
    if not root.exists():
        raise JudgeAgentError(f"corpus not found: {root}")
    files = corpus_files(root)
    if not files:
        raise JudgeAgentError(f"corpus {root} has no {'/'.join(SUFFIXES)} files")
    seen: dict[str, Document] = {}
    for file in files:
        for doc in _read_file(file, root, fields):
            if doc.doc_id in seen:
                raise duplicate_doc(doc, seen[doc.doc_id].source)
            seen[doc.doc_id] = doc
    if not seen:
        raise JudgeAgentError(f"corpus {root} has no documents")
    return Corpus(root, list(seen.values()))


def duplicate_doc(doc: Document, first: str) -> JudgeAgentError:
    """The one wording for a repeated doc_id, whether the corpus is read whole or block by block."""
    return JudgeAgentError(f"duplicate doc_id {doc.doc_id!r} at {doc.source} (first at {first})")


def corpus_files(root: Path) -> list[Path]:
    if root.is_file():
        if root.suffix.lower() not in SUFFIXES:
            raise JudgeAgentError(f"unsupported corpus file {root} (expected one of {', '.join(SUFFIXES)})")
        return [root]
    return sorted(
        p for p in root.rglob("*")
        if p.is_file() and p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _read_file(file: Path, root: Path, fields: FieldMap) -> Iterator[Document]:
    suffix = file.suffix.lower()
    if suffix == ".parquet":
        yield from _read_parquet(file, fields)
        return
    text = read_text(file)
    if suffix == ".jsonl":
        yield from _read_jsonl(file, text, fields)
    elif suffix == ".json":
        yield from _read_json(file, text, fields)
    else:
        yield _plain_document(file, root, text)


def _read_jsonl(file: Path, text: str, fields: FieldMap) -> Iterator[Document]:
    for record, source in jsonl_records(file, text):
        yield to_document(record, source, fields)


def _read_json(file: Path, text: str, fields: FieldMap) -> Iterator[Document]:
    for record, source in json_records(file, text):
        yield to_document(record, source, fields)


def _read_parquet(file: Path, fields: FieldMap) -> Iterator[Document]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(file)
    except Exception as e:  # pyarrow raises several types for unreadable files
        raise JudgeAgentError(f"cannot read parquet file {file}: {e}") from None
    _check_columns(file, table.column_names, fields)
    for index, record in enumerate(table.to_pylist()):
        yield to_document(record, f"{file}[row {index}]", fields)


def _check_columns(file: Path, columns: list[str], fields: FieldMap) -> None:
    """A table lacks a column for every row at once: say so once, naming it, not per document."""
    for field_name in ("doc_id", "text"):
        column = getattr(fields, field_name)
        if column not in columns and column.split(".")[0] not in columns:
            raise JudgeAgentError(f"{file} has no column {column!r} (columns: {', '.join(columns)}); "
                                  f"map yours with --field {field_name}=NAME")


def _plain_document(file: Path, root: Path, text: str) -> Document:
    base = root if root.is_dir() else root.parent
    doc_id = file.relative_to(base).with_suffix("").as_posix()
    if not text.strip():
        raise JudgeAgentError(f"document {doc_id!r} ({file}) has no text")
    title = file.stem
    first = text.lstrip().splitlines()[0]
    if file.suffix.lower() == ".md" and first.startswith("#"):
        title = first.lstrip("#").strip()
    return Document(doc_id=doc_id, title=title, text=text, meta={"path": str(file)}, source=str(file))


def to_document(record: Any, source: str, fields: FieldMap) -> Document:
    """One record (a dict) to a `Document`, with errors that name the record and the missing field."""
    if not isinstance(record, dict):
        raise JudgeAgentError(f"{source}: expected a JSON object, got {type(record).__name__}")
    doc_id = field_value(record, fields.doc_id)
    if doc_id is None or str(doc_id).strip() == "":
        raise JudgeAgentError(
            f"{source}: record has no {fields.doc_id!r} field (map another column with --field doc_id=NAME)"
        )
    text = field_value(record, fields.text)
    if not isinstance(text, str) or not text.strip():
        raise JudgeAgentError(f"{source}: document {str(doc_id)!r} has no text (field {fields.text!r})")
    meta = field_value(record, fields.meta) or {}
    if not isinstance(meta, dict):
        meta = {"value": meta}
    title = field_value(record, fields.title)
    return Document(str(doc_id), "" if title is None else str(title), text, meta, source)
