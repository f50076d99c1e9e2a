"""The paper's Code G&R game (Section 2.4, Appendix A.8, Figure 4, Table 2), `-o scoring=paper`.

The programmer writes code for the question; the reviewer comments on its correctness, clarity and
efficiency (comments, not code), or says `over` when the programmer does well in all three; the programmer
revises from the comments. The reviewer's `over` (consensus) or the programmer's revision after the last of
`review_rounds` reviews ends the game. The referee then reads the whole dialogue and rates the programmer and
the reviewer 1-10 each with the paper's judge prompt: each seat scores its own rating (Table 2's s_P, s_R).
Every programmer turn's code is tested in the sandbox: `pass@1 round k` is whether the code standing after
the programmer's k-th turn passes (a turn without code keeps the code before it; after consensus the
accepted code stands), the per-round Pass@K of Figure 4 with one sample per round (K = 1).
"""
from __future__ import annotations

from typing import Any

from ..sandbox import SandboxLimits
from .base import Move, Outcome
from .code import PROGRAMMER, REVIEWER, CodeGame, agrees, extract_code
from .rating import dialogue, rate_roles

PAPER_JUDGE = ("You will play the role of a professional developer, and you will rate both a programmer and a reviewer "
               "based on their conversation. The main criteria are: 1. Whether the code provided by the programmer "
               "meets the requirements of the problem. 2. Whether the programmer has improved the code according to "
               "the reviewer's suggestions. 3. Whether the reviewer has given reasonable and actionable feedback for "
               "improvement. Please note: 1. Points are given on a scale of 1-10. 2. You need to give not only a "
               "final grade, but also a specific basis for the grade. 3. Please reply using the following format: "
               '{"Programmer": {"evaluation": <explain>, "score": <score>}, "Reviewer": {"evaluation": <explain>, '
               '"score": <score>}}')
"""Appendix A.8's judge prompt for Code G&R, word for word."""


class PaperCodeGame(CodeGame):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.turns: list[tuple[str, str]] = []
        self.code_by_turn: list[str] = []
        """The code standing after each programmer turn ("" before any)."""

    def rule(self, seat: str) -> str:
        if seat == PROGRAMMER:
            return ("You will play the role of a programmer, and you need to solve various programming problems "
                    "provided by users, and provide complete and executable solutions. Remember, you only need to "
                    "give pure Python code without any extra explanation.")
        return ("You will play the role of a code reviewer. You need to review the code provided by the programmer and "
                "give your feedback. You must comment on the nature of the code in three aspects: Code correctness, "
                "Code clarity, and Efficiency.")

    def prompt(self, seat: str, round_: int) -> str:
        if seat == PROGRAMMER:
            if round_ == 1:
                return f"Question: {self.item['prompt']}"
            return (f"Reviewer: {self.last.get(REVIEWER, '')}\nPlease give a revised solution based on the following "
                    "review comments. Remember, you only need to give pure Python code without any extra explanation.")
        code = self.last.get(PROGRAMMER, "")
        if round_ == 2:
            return f"Question: {self.item['prompt']}\nProgrammer: {code}"
        return ("Please continue to submit review comments according to the improved procedure. If you think the "
                f"programmer performs well in three aspects, please just output 'over' without any other output.\n"
                f"Programmer: {code}")

    def read(self, seat: str, reply: str) -> Move:
        if seat == REVIEWER:
            if agrees(reply):
                return Move(seat, reply, None, True, "agrees")
            return Move(seat, reply, None, bool(reply.strip()), "comments" if reply.strip() else "empty")
        code = extract_code(reply)
        return Move(seat, reply, code, code is not None, "" if code is not None else "no code")

    def apply(self, round_: int, moves: dict[str, Move]) -> None:
        for seat, move in moves.items():
            self.turns.append((seat.capitalize(), move.reply))
            if seat == PROGRAMMER:
                self.code_by_turn.append(move.value or (self.code_by_turn[-1] if self.code_by_turn else ""))
        super().apply(round_, moves)

    def ended(self, round_: int) -> str | None:
        if self.agreed:
            return "consensus"
        if round_ == 1 and not self.versions:
            return "no code"
        return "round limit" if round_ >= 2 * self.config.review_rounds + 1 else None

    async def outcome(self, end: str, referee: Any) -> Outcome:
        limits = SandboxLimits(timeout_s=self.config.timeout_s, memory_mb=self.config.memory_mb)
        turns = self.config.review_rounds + 1
        standing = (self.code_by_turn + [self.code_by_turn[-1] if self.code_by_turn else ""] * turns)[:turns]
        runs: dict[str, dict[str, Any]] = {}
        for code in standing:  # each distinct code once
            if code not in runs:
                runs[code] = await self._test(code, limits)
        shared: dict[str, Any] = {f"pass@1 round {k}": 1.0 if runs[code]["status"] == "passed" else 0.0
                                  for k, code in enumerate(standing, 1)}
        shared |= {"draft": runs[standing[0]], "final": runs[standing[-1]], "versions": len(self.versions)}
        conversation = dialogue([("Question", self.item["prompt"]), *self.turns])
        rated = await rate_roles(referee, PAPER_JUDGE, conversation, ("Programmer", "Reviewer"))
        scores = {seat: (None if rated[seat.capitalize()] is None else float(rated[seat.capitalize()]))
                  for seat in self.seats}
        return Outcome(scores, end, {seat: dict(shared) for seat in self.seats})
