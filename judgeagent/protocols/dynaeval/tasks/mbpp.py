"""MBPP problems (Austin et al. 2021) in the code task's form, read from MBPP's own `mbpp.jsonl`.

The paper plays Code G&R on MBPP's test set (task_ids 11-510, the split of Austin et al.). A problem is
shown as MBPP is usually prompted: the description and its three asserts, which name the function (the
paper's Figure 11 shows the description alone, but its Pass@K needs the name the tests call). The asserts
become the test's `check(candidate)`, run by the sandbox's harness with the function's name bound to the
candidate; `test_setup_code` is trusted problem code, run on the harness's side.
"""
from __future__ import annotations

import re
from typing import Any

from ....errors import JudgeAgentError
from .base import CodeProblem

TEST_SPLIT = range(11, 511)
"""MBPP's test task_ids (its paper's split: 1-10 few-shot, 11-510 test, 511-600 validation, 601-974 train)."""
_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", re.MULTILINE)
_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")


def is_mbpp(record: Any) -> bool:
    return isinstance(record, dict) and "text" in record and "test_list" in record


def entry_point(code: str, tests: list[str]) -> str | None:
    """The function the asserts call: the first called name the reference code defines."""
    defined = set(_DEF.findall(code))
    called = [name for test in tests for name in _CALL.findall(test)]
    return next((name for name in called if name in defined), None)


def problem(record: dict[str, Any], where: str) -> CodeProblem:
    """One MBPP record as the code task's problem (task_id, prompt, entry_point, test, context)."""
    tests = record.get("test_list")
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) for t in tests):
        raise JudgeAgentError(f"{where}: an MBPP problem needs test_list, a list of assert statements")
    name = entry_point(str(record.get("code") or ""), tests)
    if name is None:
        raise JudgeAgentError(f"{where}: cannot tell which function the MBPP asserts test (no function of `code` "
                              "is called in test_list)")
    prompt = f"{record['text'].strip()}\nYour code should pass these tests:\n\n" + "\n".join(tests)
    # The name bound inside `check`: MBPP/56's function is itself called `check`, which the harness's test
    # function would otherwise shadow (the asserts would call the test, recursing).
    check = f"def check(candidate):\n    {name} = candidate\n" + "".join(f"    {t.strip()}\n" for t in tests)
    return CodeProblem(task_id=f"MBPP/{record.get('task_id')}", prompt=prompt, entry_point=name, test=check,
                       context=str(record.get("test_setup_code") or ""))


def test_split(problems: list[tuple[int | None, CodeProblem]]) -> list[CodeProblem]:
    """MBPP's test split when the file holds it (the whole MBPP file), else every problem (a user's subset)."""
    chosen = [p for task_id, p in problems if task_id in TEST_SPLIT]
    return chosen or [p for _, p in problems]
