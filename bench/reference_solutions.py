"""Every reference solution of HumanEval (164) and MBPP's test split (500) through the code task's sandbox, as
the code task runs them (its default limits, its preamble and setup code): all must pass.

    .venv/bin/python bench/reference_solutions.py [--threads 2] [--only mbpp|humaneval]

Prints the count that passed per set, each failure with its status and detail, and exits 1 when any failed.
Reads ../shared/data (JUDGEAGENT_DATA overrides), as the tests do.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import find_data, require

DATA = find_data()


def humaneval() -> list[dict]:
    from judgeagent.protocols.dynaeval.tasks.code import preamble

    problems = [json.loads(line) for line in (DATA / "humaneval" / "problems.jsonl").read_text().splitlines()]
    return [{"task_id": p["task_id"], "code": p["prompt"] + p["canonical_solution"], "test": p["test"],
             "entry_point": p["entry_point"], "context": preamble(p["prompt"], p["entry_point"])} for p in problems]


def mbpp() -> list[dict]:
    from judgeagent.protocols.dynaeval.tasks import mbpp as m

    records = [json.loads(line) for line in (DATA / "papers" / "mbpp" / "mbpp.jsonl").read_text().splitlines()]
    chosen = [r for r in records if r["task_id"] in m.TEST_SPLIT]
    return [{**m.problem(r, "mbpp.jsonl"), "code": r["code"]} for r in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", choices=("humaneval", "mbpp"))
    args = parser.parse_args()
    require(*[DATA / f for f, name in (("humaneval/problems.jsonl", "humaneval"), ("papers/mbpp/mbpp.jsonl", "mbpp"))
              if args.only in (None, name)])
    from judgeagent.protocols.dynaeval.config import DynaEvalConfig
    from judgeagent.protocols.dynaeval.sandbox import SandboxLimits, require_bubblewrap, run_tests

    fields = DynaEvalConfig.model_fields
    limits = SandboxLimits(timeout_s=fields["timeout_s"].default, memory_mb=fields["memory_mb"].default)
    print(f"backend: {require_bubblewrap()}; limits: {limits}")
    sets = {"humaneval": humaneval, "mbpp": mbpp}
    failed = 0
    for name, load in sets.items():
        if args.only and name != args.only:
            continue
        problems = load()
        start = time.perf_counter()
        with ThreadPoolExecutor(args.threads) as pool:
            results = list(pool.map(lambda p: run_tests(p["code"], p["test"], p["entry_point"], limits,
                                                        context=p["context"]), problems))
        bad = [(p["task_id"], r) for p, r in zip(problems, results) if not r.passed]
        failed += len(bad)
        print(f"{name}: {len(problems) - len(bad)}/{len(problems)} reference solutions pass "
              f"({time.perf_counter() - start:.0f} s, {args.threads} threads)")
        for task_id, r in bad:
            print(f"  {task_id}: {r.status}: {r.detail}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
