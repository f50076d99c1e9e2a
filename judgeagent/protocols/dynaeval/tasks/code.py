"""Code generation and review (asymmetric, writer-editor; Section 2.4, Appendix A.8).

Problems come from `-o problems=FILE`: HumanEval's problems.jsonl, or MBPP's own mbpp.jsonl (the paper's
data; its test split, `tasks/mbpp.py`). `-o scoring=paper` (the default) plays the paper's game
(`PaperCodeGame` below: the reviewer comments, the programmer revises, the referee rates both 1-10, Pass@1
per round). `-o scoring=judgeagent` plays judgeagent's earlier game, described here:

The programmer writes a function for a problem; the reviewer fixes and polishes it, replying
with the complete revised code, or `over` when it has nothing to change; the programmer answers the
review with a revision or `over`. Consensus (an `over`) or the reviewer's last allowed turn ends the
game; the latest code given is the final code. The score is whether the final code passes the
problem's unit tests, run in the sandbox (`protocols/dynaeval/sandbox.py`: bubblewrap's OS isolation,
limits set from outside, a verdict from a harness the code cannot reach; the task refuses where bubblewrap
does not work, unless `-o sandbox=unsafe-no-isolation`); both seats share it (they cooperate), and the
model x role matrix tells writers and editors apart. The programmer's first draft is tested too, and
a referee model, when given, rates the final code's style 1-10.
"""
from __future__ import annotations

import asyncio
import random
import re
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ....errors import JudgeAgentError
from ....files import jsonl_records
from ....grading.verdict import one_line
from ..sandbox import Isolation, SandboxLimits, require_bubblewrap, run_tests
from . import mbpp
from .base import CodeProblem, Game, Metric, Move, Outcome, Stamp, Task, TestRun, read_source
from .rating import dialogue, rate_roles

PROGRAMMER, REVIEWER = "programmer", "reviewer"
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*\n(.*?)```", re.DOTALL)
_FIELDS = ("task_id", "prompt", "entry_point", "test")


class StyleRating(BaseModel):
    reasoning: str
    score: int = Field(ge=1, le=10)


class CodeReview(Task):
    name = "code"
    symmetric = False
    roles = (PROGRAMMER, REVIEWER)
    unit = "pass rate"
    epsilon = 0.1

    def headline_measures(self, config: Any) -> tuple[str, ...]:
        return (f"pass@1 round {config.review_rounds + 1}",) if config.scoring == "paper" else ()

    def unit_for(self, config: Any) -> str:
        return "referee score (1-10)" if config.scoring == "paper" else self.unit

    def check(self, config: Any, players: int, referee: bool) -> None:
        if not config.problems:
            raise JudgeAgentError("task code needs its problems: give -o problems=FILE (MBPP's mbpp.jsonl, or "
                                  "HumanEval's problems.jsonl format: task_id, prompt, entry_point, test)")
        if config.sandbox == "bubblewrap":
            require_bubblewrap()
        if config.scoring == "paper" and not referee:
            raise JudgeAgentError("task code with scoring=paper is scored by a referee model: give --role "
                                  "referee=MODEL (or -o scoring=judgeagent for the final code's pass/fail)")

    def isolation(self, config: Any) -> str:
        return require_bubblewrap() if config.sandbox == "bubblewrap" else "none (unsafe-no-isolation)"

    def load(self, config: Any) -> list[Any]:
        return self.load_stamped(config)[0]

    def load_stamped(self, config: Any) -> tuple[list[Any], Stamp | None]:
        file, text, stamp = read_source(config.problems, "problems")
        return parse_problems(file, text, config.items, config.seed), stamp

    def game(self, config: Any, seats: tuple[str, ...], item: Any, rng: Any) -> Game:
        if config.scoring == "paper":
            return PaperCodeGame(config, seats, item, rng)
        return CodeGame(config, seats, item, rng)


def parse_problems(file: Path, content: str, count: int, seed: int) -> list[CodeProblem]:
    """A seeded sample of `count` problems (all when fewer) from the file's `content`, every one checked for
    the four fields (or read as MBPP's record, whose test split is kept when the file holds it)."""
    problems: list[CodeProblem] = []
    found_mbpp: list[tuple[int | None, CodeProblem]] = []
    for record, source in jsonl_records(file, content):
        if mbpp.is_mbpp(record):
            task_id = record.get("task_id")
            found_mbpp.append((task_id if isinstance(task_id, int) else None, mbpp.problem(record, source)))
            continue
        missing = [k for k in _FIELDS if not isinstance(record, dict) or not record.get(k)]
        if missing:
            raise JudgeAgentError(f"{source}: a problem needs {', '.join(_FIELDS)}; missing {', '.join(missing)}")
        problems.append(CodeProblem(task_id=record["task_id"], prompt=record["prompt"],
                                    entry_point=record["entry_point"], test=record["test"]))
    problems += mbpp.test_split(found_mbpp) if found_mbpp else []
    if not problems:
        raise JudgeAgentError(f"problems file {file} has no problems")
    order = list(range(len(problems)))
    random.Random(seed).shuffle(order)
    return [problems[i] for i in order[:count]]


def extract_code(reply: str) -> str | None:
    """The code of a reply: its first fenced block that defines something, else the reply if it does."""
    for block in _FENCE.findall(reply):
        if "def " in block:
            return block.strip("\n")
    return reply.strip() if "def " in reply else None


def agrees(reply: str) -> bool:
    return reply.strip().strip(".!'\"`").lower() == "over"


def preamble(prompt: str, entry_point: str) -> str:
    """The problem's text before its function: the imports its signature uses and any helper the prompt
    defines (HumanEval/10's is_palindrome, HumanEval/32's poly, which the test calls too)."""
    cut = prompt.find(f"def {entry_point}")
    return prompt[:cut] if cut >= 0 else ""


def runnable(code: str, prompt: str, entry_point: str) -> str:
    """The code with the problem's preamble above it; the code may redefine what the preamble defines."""
    return f"{preamble(prompt, entry_point)}\n{code}"


class CodeGame(Game):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.versions: list[tuple[str, str]] = []
        self.last: dict[str, str] = {}
        self.agreed = False

    def rule(self, seat: str) -> str:
        if seat == PROGRAMMER:
            return ("You will play the role of a programmer, and you need to solve programming problems and provide "
                    "complete and executable solutions. Remember, you only need to give pure Python code without any "
                    "extra explanation. When a reviewer's revision needs no change, reply only 'over'.")
        return ("You will play the role of a code reviewer. You review the code provided by the programmer for "
                "correctness, clarity and efficiency, fix and polish it, and reply with the complete revised Python "
                "code. If the code needs no change, reply only 'over' without any other output.")

    def acting(self, round_: int) -> list[str]:
        return [PROGRAMMER if round_ % 2 else REVIEWER]

    def prompt(self, seat: str, round_: int) -> str:
        question = self.item["prompt"]
        if round_ == 1:
            return f"Question:\n{question}"
        if seat == REVIEWER:
            return f"Question:\n{question}\nProgrammer:\n{self.last.get(PROGRAMMER, '')}"
        return (f"Reviewer:\n{self.last.get(REVIEWER, '')}\nPlease give a revised solution based on the review, as pure "
                "Python code, or reply only 'over' if you accept the reviewer's code.")

    def read(self, seat: str, reply: str) -> Move:
        if agrees(reply) and self.versions:
            return Move(seat, reply, None, True, "agrees")
        code = extract_code(reply)
        if code is None:
            return Move(seat, reply, None, seat == REVIEWER, "no code" if seat == PROGRAMMER else "comments only")
        return Move(seat, reply, code, True)

    def apply(self, round_: int, moves: dict[str, Move]) -> None:
        for seat, move in moves.items():
            self.last[seat] = move.reply
            if move.value is not None:
                self.versions.append((seat, move.value))
            self.agreed = self.agreed or move.note == "agrees"

    def ended(self, round_: int) -> str | None:
        if self.agreed:
            return "consensus"
        if round_ == 1 and not self.versions:
            return "no code"
        return "round limit" if round_ >= 2 * self.config.review_rounds else None

    async def outcome(self, end: str, referee: Any) -> Outcome:
        limits = SandboxLimits(timeout_s=self.config.timeout_s, memory_mb=self.config.memory_mb)
        final = self.versions[-1][1] if self.versions else ""
        draft = next((code for seat, code in self.versions if seat == PROGRAMMER), "")
        final_run = await self._test(final, limits)
        draft_run = final_run if draft == final else await self._test(draft, limits)
        passed = 1.0 if final_run["status"] == "passed" else 0.0
        shared: dict[str, Metric] = {"final": final_run, "draft": draft_run, "versions": len(self.versions)}
        if referee is not None:
            shared["style"] = await self._style(referee, final)
        return Outcome({seat: passed for seat in self.seats}, end, {seat: dict(shared) for seat in self.seats})

    async def _test(self, code: str, limits: SandboxLimits) -> TestRun:
        if not code:
            return TestRun(status="no code", detail="", seconds=0.0)
        p = self.item
        isolation: Isolation = "bubblewrap" if self.config.sandbox == "bubblewrap" else "none"
        cancel = threading.Event()
        try:
            context = p.get("context", preamble(p["prompt"], p["entry_point"]))  # MBPP: its test_setup_code
            result = await asyncio.to_thread(run_tests, runnable(code, p["prompt"], p["entry_point"]), p["test"],
                                             p["entry_point"], limits, context=context,
                                             isolation=isolation, cancel=cancel)
        except asyncio.CancelledError:
            cancel.set()  # Ctrl-C or a stopped run: the thread kills its sandboxes now, not at the time limit
            raise
        return TestRun(status=result.status, detail=one_line(result.detail, 160), seconds=round(result.seconds, 3))

    async def _style(self, referee: Any, code: str) -> int | None:
        messages = [{"role": "system", "content": "You are a professional developer rating code style."},
                    {"role": "user", "content": (
                        "Rate the style of this solution (clarity, naming, structure, idiomatic Python) from 1 to 10, "
                        f"whatever its correctness.\nProblem:\n{self.item['prompt']}\nSolution:\n{code or '(none)'}\n"
                        'Reply in JSON: {"reasoning": <why>, "score": <1-10>}')}]
        result = await referee.complete(messages, schema=StyleRating)
        return result.parsed.score if isinstance(result.parsed, StyleRating) else None


# --- the paper's game (scoring=paper) -------------------------------------------------------------------

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
        runs: dict[str, TestRun] = {}
        for code in standing:  # each distinct code once
            if code not in runs:
                runs[code] = await self._test(code, limits)
        shared: dict[str, Metric] = {f"pass@1 round {k}": 1.0 if runs[code]["status"] == "passed" else 0.0
                                  for k, code in enumerate(standing, 1)}
        shared |= {"draft": runs[standing[0]], "final": runs[standing[-1]], "versions": len(self.versions)}
        conversation = dialogue([("Question", self.item["prompt"]), *self.turns])
        rated = await rate_roles(referee, PAPER_JUDGE, conversation, ("Programmer", "Reviewer"))
        scores = {seat: (None if rated[seat.capitalize()] is None else float(rated[seat.capitalize()]))
                  for seat in self.seats}
        return Outcome(scores, end, {seat: dict(shared) for seat in self.seats})
