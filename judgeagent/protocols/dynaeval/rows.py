"""DynaEval's rows in episodes.jsonl (a game) and its summary. JSON-shaped, so TypedDicts: a row is read back as
written. What a move's value and a task's measures hold is the task's own (a number, a text, a sandbox result)."""
from __future__ import annotations

from typing import NotRequired, TypedDict

from ...metrics import MeanInterval
from .tasks.base import Metric


class MoveRow(TypedDict):
    """A seat's move in a round, as the referee read it (by rule, or reformatted by the referee model)."""

    round: int
    seat: str
    value: object
    valid: bool
    note: str
    parsed_by: str


class GameRow(TypedDict, total=False):
    """A game (less the runner's `episode` and `index`): who sat where (seat -> player role), each seat's score
    (None: no score), how it ended, the task's further measures per seat, the moves and the transcript."""

    repetition: int
    cast: dict[str, str]
    item: object
    """The task item it was played on (an id, or the item itself); None for tasks without items."""
    scores: dict[str, float | None]
    end: str
    rounds: int
    metrics: dict[str, dict[str, Metric]]
    moves: list[MoveRow]
    transcript: str


class PlayerNumbers(MeanInterval):
    model: str


class Summary(TypedDict, total=False):
    """summary.json of a DynaEval run (`report.numbers`, with the recorded isolation and the runner's `usage`)."""

    task: str
    unit: str
    symmetric: bool
    epsilon: float
    max_runs: int
    repetitions: int
    games: int
    converged: bool
    players: dict[str, PlayerNumbers]
    running: list[dict[str, float | None]]
    """Each cell's mean after each repetition (with `repetition`, the count so far)."""
    measures: dict[str, dict[str, float]]
    ends: dict[str, int]
    parsed_by: dict[str, int]
    transcript: str
    scoring: dict[str, str]
    positions: list[dict[str, str | int | float]]
    roles: list[str]
    matrix: dict[str, dict[str, MeanInterval]]
    role_measures: dict[str, dict[str, dict[str, float]]]
    headline_measures: list[str]
    pairs: list[dict[str, str | int | float | None]]
    isolation: object
    usage: dict[str, dict[str, float]]


class SourceStamp(TypedDict):
    """The file a task read its items from (`-o problems=`, `-o sources=`), by content."""

    option: str
    path: str
    sha256: str


class Setup(TypedDict):
    """The manifest's `dynaeval`: the task, its items and players, and what it ran with."""

    task: str
    items: int
    players: list[str]
    isolation: NotRequired[str]
    """Which sandbox ran the models' code, e.g. bubblewrap 0.8.0 (the code task)."""
    source: NotRequired[SourceStamp]
