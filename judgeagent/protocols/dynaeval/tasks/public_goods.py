"""Public goods game (symmetric, rule-scored), both of the paper's modes (Section 2.4, Appendix A.8).

Each round every player gets the endowment and invests part of it in a pool; the pool is multiplied
and shared equally by all players. A player's score is its coins at the end: over the rounds, what it
kept plus its shares. Mode 1 tells each player its income after a round, mode 2 the descending list
of all investments. An invalid move (no number, negative, above the endowment) forfeits that round's
endowment: the player invests nothing and keeps nothing, but still gets its share of the pool; any
valid move scores more, so an invalid one is never a way to free-ride.

Reading a reply: with a referee model, the referee reformats it (the paper's recording phase) into a
schema whose amount is bounded to 0..endowment, or null when the reply states no amount in that range,
which makes the move invalid. A referee that gives no valid answer (not the schema, or out of range)
costs the player nothing: the rule reads the reply instead, as it does with no referee (a `coins`
field of a JSON object, else the first number). Each move records which read it (`parsed_by`).
"""
from __future__ import annotations

import json
import re
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model

from .base import Game, Move, Outcome, Task

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class PublicGoods(Task):
    name = "public_goods"
    symmetric = True
    unit = "coins"
    epsilon = 1.0

    def game(self, config: Any, seats: tuple[str, ...], item: Any, rng: Any) -> Game:
        return PublicGoodsGame(config, seats, item, rng)


def read_coins(reply: str) -> float | None:
    """The investment: the `coins` field of a JSON object in the reply, else the reply's first number."""
    for match in re.finditer(r"\{[^{}]*\}", reply):
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "coins" in data:
            try:
                return float(data["coins"])
            except (TypeError, ValueError):
                return None
    found = _NUMBER.search(reply)
    return float(found.group(0)) if found else None


@cache
def contribution_schema(endowment: int) -> type[BaseModel]:
    """The referee's answer: the amount, bounded to the legal range (a reply that states none, or only an
    illegal one, is null)."""
    amount = Annotated[float, Field(ge=0, le=endowment)]
    return create_model("Contribution", coins=(amount | None, Field(
        description=f"the coins the player chose to invest this round, 0 to {endowment}; null when the reply "
                    f"states no amount, or only one outside 0..{endowment}")))


def referee_prompt(reply: str, endowment: int) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You are the referee of a public goods game. You record each player's "
             "move in a standard form; you do not judge or change it."},
            {"role": "user", "content": (
                f"A player was asked how many of its {endowment} coins (0 to {endowment}) to invest in the public "
                f"pool this round, and replied:\n<reply>\n{reply}\n</reply>\nGive the amount it chose, as a "
                f"number (\"seven\" is 7). If the reply states no amount, or only one outside 0..{endowment}, "
                'give null. Reply in JSON: {"coins": <amount or null>}')}]


def payoffs(investments: list[dict[str, float | None]], endowment: float, multiplier: float) -> dict[str, float]:
    """Each seat's coins after the rounds; an invalid move (None) keeps nothing and invests nothing."""
    seats = list(investments[0]) if investments else []
    total = {s: 0.0 for s in seats}
    for round_ in investments:
        share = multiplier * sum(x or 0.0 for x in round_.values()) / len(round_)
        for seat, x in round_.items():
            total[seat] += (endowment - x if x is not None else 0.0) + share
    return total


class PublicGoodsGame(Game):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.invested: list[dict[str, float | None]] = []

    def rule(self, seat: str) -> str:
        c, n = self.config, len(self.seats)
        told = ("At the end of each round you will be told the coins you earned in it."
                if c.mode == 1 else "At the beginning of each round you will be informed of the amount of invested "
                "coins in the last round, as a descending sorted list where each element is one player's investment.")
        return (f"You are {seat}, playing a game. There are {n} participants in this game, a total of {c.rounds} "
                f"rounds. {told} At the beginning of each round, you will get {c.endowment} coins. You can choose to "
                f"invest X (0 <= X <= {c.endowment}) coins in the public pool. At the end of each round, the coins "
                f"in the public pool will be multiplied by {c.multiplier:g} times and evenly distributed to all "
                "participants. Your goal is to have the most coins at the end of the game. An answer without a "
                f"number, or with a number outside 0..{c.endowment}, forfeits that round's {c.endowment} coins. "
                'Your output must follow the JSON format: {"reason": <reason>, "coins": <investment amount>}')

    def acting(self, round_: int) -> list[str]:
        return list(self.seats)

    def prompt(self, seat: str, round_: int) -> str:
        c = self.config
        ask = (f"Round {round_} starts, you get {c.endowment} coins. Please give the amount of coins you want to "
               "invest and explain your decision reason.")
        if round_ == 1:
            return ask
        last = self.invested[-1]
        if c.mode == 1:
            income = c.multiplier * sum(x or 0.0 for x in last.values()) / len(last)
            return f"In the last round you earned {income:g} coins. {ask}"
        listed = sorted((x or 0.0 for x in last.values()), reverse=True)
        return f"In the last round the amounts of invested coins were {[round(x, 2) for x in listed]}. {ask}"

    def read(self, seat: str, reply: str) -> Move:
        coins = read_coins(reply)
        if coins is None:
            return Move(seat, reply, None, False, "no number")
        if not 0 <= coins <= self.config.endowment:
            return Move(seat, reply, None, False, f"{coins:g} is outside 0..{self.config.endowment}")
        return Move(seat, reply, coins, True)

    async def interpret(self, seat: str, reply: str, referee: Any) -> Move:
        if referee is None or not reply.strip():  # an empty reply (a failed call) has nothing to reformat
            return self.read(seat, reply)
        endowment = self.config.endowment
        result = await referee.complete(referee_prompt(reply, endowment), schema=contribution_schema(endowment))
        parsed = result.parsed if result.ok else None
        if parsed is None:  # the referee's failure is not the player's: the rule reads the reply
            move = self.read(seat, reply)
            problem = getattr(result, "error", None) or "no answer"
            note = f"{move.note}; " if move.note else ""
            return Move(seat, reply, move.value, move.valid, f"{note}referee unreadable ({problem})", "rule")
        if parsed.coins is None:
            return Move(seat, reply, None, False, f"no amount in 0..{endowment} (referee)", "referee")
        return Move(seat, reply, float(parsed.coins), True, "", "referee")

    def apply(self, round_: int, moves: dict[str, Move]) -> None:
        self.invested.append({seat: moves[seat].value for seat in self.seats})

    def ended(self, round_: int) -> str | None:
        return "rounds played" if round_ >= self.config.rounds else None

    async def outcome(self, end: str, referee: Any) -> Outcome:
        scores = payoffs(self.invested, self.config.endowment, self.config.multiplier)
        metrics = {s: {"invalid": sum(r[s] is None for r in self.invested),
                       "invested": sum(r[s] or 0.0 for r in self.invested)} for s in self.seats}
        return Outcome(scores, end, metrics)
