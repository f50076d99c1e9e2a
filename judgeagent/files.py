"""Reading records from text files, with one-line errors that name the file and line."""
from __future__ import annotations

import json
from collections.abc import Iterator
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


def jsonl_records(file: Path, text: str) -> Iterator[tuple[Any, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
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
