"""A DynaEval task: the rule each seat is told, who acts in which round, how a reply is read, when the
game ends, and how it is scored. One `Game` object holds one game's state; the referee drives it."""
from __future__ import annotations

import hashlib
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NotRequired, TypedDict

from ....errors import JudgeAgentError
from ..config import DynaEvalConfig


@dataclass(frozen=True)
class Move:
    """One player's reply as the referee reads it: the standardised value, and whether the rule allows it."""

    seat: str
    reply: str
    value: Any
    valid: bool
    note: str = ""
    """Why a move is invalid (or a remark such as "agrees")."""
    parsed_by: str = "rule"
    """Who read the reply into `value`: `rule` (the task's parser) or `referee` (the referee model)."""


class CodeProblem(TypedDict):
    """A code task's problem: HumanEval's four fields, or an MBPP record made that shape (`mbpp.problem`)."""

    task_id: str
    prompt: str
    entry_point: str
    test: str
    """Python defining `check(candidate)`."""
    context: NotRequired[str]
    """MBPP: its trusted `test_setup_code`, run on the harness's side (HumanEval: the prompt's preamble)."""


class TestRun(TypedDict):
    """One code version run against its problem's tests in the sandbox."""

    status: str
    """`passed`, `failed`, `timeout`, ... (the sandbox's), or `no code`."""
    detail: str
    seconds: float


class TranslationSource(TypedDict):
    """A translation task's paragraph: its id, the text to translate, and the reference translation if any."""

    id: str
    source: str
    reference: Any
    """The reference as the file gives it (a text; None or absent when there is none)."""


Metric = float | int | str | None | TestRun
"""One of a seat's numbers for a finished game (a rating, a chrF, a count, a test run)."""


@dataclass
class Outcome:
    """A finished game: each seat's score (the task's unit), how it ended, and any further numbers per seat."""

    scores: dict[str, float | None]
    """None: the game could not be scored for that seat (a referee that gave no rating); left out of means."""
    end: str
    metrics: dict[str, dict[str, Metric]] = field(default_factory=dict)
    """Per seat, the task's further numbers by name (`final chrF`, `pass@1 round 2`, `hits`)."""


class Game(ABC):
    """One game. Seats are anonymous names (`Player A`, `programmer`): never a model's name."""

    def __init__(self, config: DynaEvalConfig, seats: tuple[str, ...], item: Any, rng: random.Random) -> None:
        self.config, self.seats, self.item, self.rng = config, seats, item, rng

    @abstractmethod
    def rule(self, seat: str) -> str:
        """The task rule the referee broadcasts to `seat` before round 1."""

    @abstractmethod
    def acting(self, round_: int) -> list[str]:
        """The seats that act in `round_` (from 1); they all act on the same state, together."""

    @abstractmethod
    def prompt(self, seat: str, round_: int) -> str:
        """What the referee tells `seat` at the start of `round_`: the messages the rule lets it see."""

    @abstractmethod
    def read(self, seat: str, reply: str) -> Move:
        """The reply in the task's standard form (a number, code, an idiom), checked against the rule."""

    @abstractmethod
    def apply(self, round_: int, moves: dict[str, Move]) -> None:
        """Record a round's moves in the game's state."""

    @abstractmethod
    def ended(self, round_: int) -> str | None:
        """Why the game ends after `round_`, or None while it goes on."""

    async def interpret(self, seat: str, reply: str, referee: Any) -> Move:
        """The reply read as the referee reads it; by default the rule alone (`read`), whatever `referee` is."""
        return self.read(seat, reply)

    @abstractmethod
    async def outcome(self, end: str, referee: Any) -> Outcome:
        """The scores (rule-based; `referee`, a model or None, for ratings the rule cannot give)."""


class Task(ABC):
    """A game's type: symmetric (every seat the same role) or asymmetric (a seat per role)."""

    name: ClassVar[str]
    symmetric: ClassVar[bool]
    roles: ClassVar[tuple[str, ...]] = ()
    """Asymmetric tasks: the role of each seat, in seat order (the seat is named after its role)."""
    unit: ClassVar[str]
    """What a score counts (coins, pass, wins), for the report."""
    epsilon: ClassVar[float]
    """The default convergence threshold, in the score's unit."""

    def check(self, config: DynaEvalConfig, players: int, referee: bool) -> None:
        """Refuse a configuration the task cannot play (raise `JudgeAgentError`)."""

    def unit_for(self, config: DynaEvalConfig) -> str:
        """The score's unit under `config` (a task whose scoring option changes it overrides this)."""
        return self.unit

    def headline_measures(self, config: DynaEvalConfig) -> tuple[str, ...]:
        """Further measures per role that the paper reports beside the score, for the headline columns."""
        return ()

    def pairwise(self, config: DynaEvalConfig) -> bool:
        """Whether a repetition is every ordered pair of players in a two-seat game (idiom's pairwise play)."""
        return False

    def isolation(self, config: DynaEvalConfig) -> str | None:
        """How the task runs untrusted code, for the manifest and report (e.g. `bubblewrap 0.8.0`); None: it runs none."""
        return None

    def load(self, config: DynaEvalConfig) -> list[Any]:
        """The task's items (problems, start idioms), or [] when it needs none; read once before the games."""
        return []

    def load_stamped(self, config: DynaEvalConfig) -> tuple[list[Any], Stamp | None]:
        """The items, and the stamp of the user's file they were read from (None: the task reads no such file)."""
        return self.load(config), None

    def item(self, items: list[Any], repetition: int) -> Any:
        return items[repetition % len(items)] if items else None

    @abstractmethod
    def game(self, config: DynaEvalConfig, seats: tuple[str, ...], item: Any, rng: random.Random) -> Game: ...


@dataclass(frozen=True)
class Stamp:
    """The file a task's items come from, as read: `option` (problems, sources), its path, and the sha256 of
    the very bytes parsed. A run's identity holds only the path; the stamp is what tells an edited file."""

    option: str
    path: str
    sha256: str


def read_source(path: str, option: str) -> tuple[Path, str, Stamp]:
    """The file named by `-o option=path`: (file, its text, its stamp), from one read of its bytes."""
    file = Path(path)
    if not file.is_file():
        raise JudgeAgentError(f"{option} file not found: {file} (give -o {option}=FILE)")
    try:
        data = file.read_bytes()
    except OSError as e:
        raise JudgeAgentError(f"cannot read {file}: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:  # as files.read_text words it
        line = data[: e.start].count(b"\n") + 1
        raise JudgeAgentError(f"{file}:{line}: not valid UTF-8 (byte {e.start})") from None
    return file, text, Stamp(option, path, hashlib.sha256(data).hexdigest())
