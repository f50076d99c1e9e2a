"""A run's records.jsonl and episodes.jsonl rows checked as typed models before the shared readers (report,
view, export, resume) use them: a row that is JSON with its key but holds a field of the wrong kind is one line
`FILE:LINE: field X should be ..., got ...`, as a damaged line is (`runs.read_rows`) (#49)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..benchmarks.records import parse
from ..errors import JudgeAgentError
from ..runs import LINE_FIX as FIX


class _Strict(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class ScoreModel(_Strict):
    value: float
    method: str
    reason: str = ""
    extracted: str | None = None


class RecordModel(_Strict):
    """A `Record` row (the shared envelope every protocol writes)."""

    record_id: str
    protocol: str
    episode: str
    turn: int
    role: str
    prompt: str
    reply: str
    scores: dict[str, ScoreModel] | None = None
    meta: dict[str, Any] | None = None


class EpisodeModel(_Strict):
    """An episodes.jsonl row's fields the shared readers use (a protocol adds its own)."""

    episode: str
    index: int | None = None
    qid: str | None = None
    scores: dict[str, Any] | None = None


def check_row(model: type[BaseModel], row: dict[str, Any], path: Path) -> None:
    """Refuse `row` (read from `path`) in one line naming its line and field, if it is not a `model`."""
    try:
        model.model_validate(row)
    except ValidationError:
        try:
            parse(model, row, f"{path}:{line_of(path, row)}")
        except JudgeAgentError as e:
            raise JudgeAgentError(f"{e}{FIX}") from None


def line_of(path: Path, row: dict[str, Any]) -> int | str:
    """The line of `path` that holds `row` (looked for only when a row is refused), or '?'."""
    try:
        with open(path, "rb") as f:
            for number, line in enumerate(f, start=1):
                try:
                    if json.loads(line) == row:
                        return number
                except ValueError:
                    continue
    except OSError:
        pass
    return "?"


class _Verdict(_Strict):
    method: str = ""
    reason: str = ""
    extracted: str | None = None
    score: float | None = None


class _Tokens(_Strict):
    input: int = 0
    output: int = 0
    cached: bool = False


class QuestionModel(_Strict):
    """A JudgeAgent record row (`QuestionRecord`): the fields it reads, of the kinds it reads them as; the fields
    every version left out or wrote as null stay optional."""

    record_id: str
    stage: str
    protocol: str = "judgeagent"
    batch: int = 0
    round: int | None = 0
    qid: str | None = None
    difficulty: str | None = None
    tier: str | None = None
    question_type: str | None = None
    held_out: bool | None = None
    question: str | None = None
    gold: str | None = None
    answer: str | None = None
    correct: bool | None = None
    verdict: _Verdict | None = None
    points: float | None = None
    options: dict[str, str] | None = None
    aliases: list[str] | None = None
    gold_letter: str | None = None
    path: dict[str, Any] | None = None
    generator: str | None = None
    entities: list[str] | None = None
    prompt: list[dict[str, Any]] | str | None = None
    target_error: str | None = None
    tokens: _Tokens | None = None
    batch_reply: str | None = None
