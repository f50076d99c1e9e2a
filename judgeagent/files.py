"""Reading records from text files, with one-line errors that name the file and line."""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import JudgeAgentError


def read_text(file: Path) -> str:
    try:
        data = file.read_bytes()
    except OSError as e:
        raise JudgeAgentError(f"cannot read {file}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise JudgeAgentError(f"{file}:{line}: not valid UTF-8 (byte {e.start})") from None


def jsonl_records(file: Path, text: str, first_line: int = 1) -> Iterator[tuple[Any, str]]:
    """Records of JSON lines with their `file:line`; `first_line` numbers a slice of a larger file."""
    for number, line in enumerate(text.splitlines(), start=first_line):
        if not line.strip():
            continue
        try:
            yield json.loads(line), f"{file}:{number}"
        except json.JSONDecodeError as e:
            raise JudgeAgentError(f"{file}:{number}: malformed JSON ({e.msg}, column {e.colno})") from None


def json_records(file: Path, text: str) -> Iterator[tuple[Any, str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise JudgeAgentError(f"{file}:{e.lineno}: malformed JSON ({e.msg}, column {e.colno})") from None
    records = data if isinstance(data, list) else [data]
    for index, record in enumerate(records):
        yield record, f"{file}[{index}]"


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """`write(tmp)` into a hidden sibling, then rename over `path`: readers see old or new, never half."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def check_format(manifest: dict[str, Any], folder: Path, fmt: str, version: int, what: str, fix: str) -> None:
    """A manifest of the expected kind and format version, or a one-line error saying what to do."""
    if manifest.get("format") != fmt:
        raise JudgeAgentError(f"{folder} is not a judgeagent {what}")
    if manifest.get("format_version") != version:
        raise JudgeAgentError(f"{what} {folder} has format version {manifest.get('format_version')}; "
                              f"this judgeagent reads version {version}{fix}")


def field_value(record: dict[str, Any], path: str) -> Any:
    """The value a field mapping names: a key, or a dotted path into nested objects (`meta.exact_answer`).

    A key that itself contains dots wins over the path. Inside the path, a list gives its first element,
    or the element a numeric step names (`answers.1`); a value that is missing anywhere is None.
    """
    if path in record or "." not in path:
        return record.get(path)
    value: Any = record
    for step in path.split("."):
        if isinstance(value, list):
            value = value[int(step)] if step.isdigit() and int(step) < len(value) else (value[0] if value else None)
            if step.isdigit():
                continue
        if not isinstance(value, dict):
            return None
        value = value.get(step)
    return value
