"""The referee and the message pool: the paper's synchronous interaction algorithm (Appendix A.3).

The referee broadcasts each seat its rule, then round by round selects who acts, delivers each of them
the messages the rule lets it see (its own earlier moves and the referee's messages addressed to it),
collects the round's replies together (every selected player answers the same state: the views are
taken before any reply is asked for, and the pool hides a round's moves until it closes), reads them
into the task's standard form (by rule, or by asking the referee model where the task does), decides
the end, and scores. Players' moves go to the referee only; what another seat learns of them is what
the referee's next message says. Seats are anonymous names.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...models.base import ChatModel
from ...models.dialogue import Dialogue
from .rows import MoveRow
from .tasks.base import Game, Move, Outcome

REFEREE = "referee"

Recorder = Callable[[int, str, str, str, Move], None]
"""(round, seat, prompt, reply, move) -> None: called for each move, in seat order."""


@dataclass
class Played:
    outcome: Outcome
    rounds: int
    moves: list[MoveRow]
    pool: Dialogue


async def play(game: Game, players: dict[str, ChatModel], *, referee: ChatModel | None = None,
               record: Recorder | None = None, settings: dict[str, Any] | None = None, max_rounds: int = 1000
               ) -> Played:
    """Run `game` with `players` (seat -> model) to its end; `referee` is an optional model for ratings and,
    in tasks that use it so, for reading replies."""
    pool = Dialogue((REFEREE, *game.seats))
    for seat in game.seats:
        pool.say(REFEREE, game.rule(seat), to=[seat], stage="rule")
    moves: list[MoveRow] = []
    end, round_ = None, 0
    while end is None and round_ < max_rounds:
        round_ += 1
        acting = game.acting(round_)
        for seat in acting:
            pool.say(REFEREE, game.prompt(seat, round_), to=[seat], stage="prompt", at=round_)
        pool.begin_round(round_)  # the round's moves stay hidden from the others until it closes
        views = {seat: pool.view(seat) for seat in acting}  # taken before anyone answers: one state for all
        results = await asyncio.gather(*(players[seat].complete(views[seat], **(settings or {})) for seat in acting))
        replies = [result.text if result.ok else "" for result in results]
        # The referee reads the round's replies into the task's standard form (a model call for tasks
        # that ask their referee to reformat, e.g. public goods), all of them together.
        interpreted = await asyncio.gather(*(game.interpret(seat, reply, referee)
                                             for seat, reply in zip(acting, replies)))
        read: dict[str, Move] = {}
        for seat, reply, move in zip(acting, replies, interpreted):
            read[seat] = move
            pool.say(seat, reply, to=[REFEREE], stage="move", valid=move.valid)
            moves.append({"round": round_, "seat": seat, "value": move.value, "valid": move.valid, "note": move.note,
                          "parsed_by": move.parsed_by})
            if record:
                record(round_, seat, views[seat][-1]["content"], reply, move)
        pool.end_round()
        game.apply(round_, read)
        end = game.ended(round_)
    outcome = await game.outcome(end or "round limit", referee)
    return Played(outcome, round_, moves, pool)


def transcript(pool: Dialogue) -> str:
    """The game as the referee saw it: every message, rules left out (they are the task's text)."""
    return "\n".join(f"{t.speaker}" + (f" -> {', '.join(sorted(t.to))}" if t.to else "") + f": {t.content}"
                     for t in pool.turns if t.meta.get("stage") != "rule")
