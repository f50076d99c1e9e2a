"""The sandbox's cost per submission: a trivial passing submission, run ~30 times each way, interleaved.

    .venv/bin/python bench/sandbox.py [--runs 30]

1. bubblewrap: two sandboxes (the code's and the test harness's), the default. Target: median < 0.3 s.
2. none: the same two processes without bubblewrap (-o sandbox=unsafe-no-isolation): what the walls cost.
3. walls of #26: the two-sandbox design before #42's walls (bwrap started by the evaluator's own uid, no seccomp
   filter, no memory or cpuacct cgroup, a writable / and /dev), read from git history (commit 23dc850).
   Target (#42): bubblewrap / walls of #26 at most 1.2.
4. old: the single-process sandbox with an audit hook that #26 replaced, read from git history (commit 3a3f34a).
Earlier designs are measured only when git and their commits are at hand.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OLD_COMMIT = "3a3f34a"
BEFORE_WALLS = "23dc850"
CODE = "def add(a, b):\n    return a + b\n"
TEST = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n"


def old_sandbox(commit: str = OLD_COMMIT) -> types.ModuleType | None:
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:judgeagent/protocols/dynaeval/sandbox.py"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    name = f"sandbox_{commit}"
    module = types.ModuleType(name)
    module.__dict__["__package__"] = "judgeagent.protocols.dynaeval"  # its relative imports: today's package
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, "old_sandbox.py", "exec"), module.__dict__)  # noqa: S102 (this repository's own code)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    from judgeagent.protocols.dynaeval import sandbox

    print(f"backend: {sandbox.require_bubblewrap()}; interpreter {sandbox.interpreter()}")
    ways: dict[str, Callable[[], object]] = {
        "bubblewrap": lambda: sandbox.run_tests(CODE, TEST, "add"),
        "none": lambda: sandbox.run_tests(CODE, TEST, "add", isolation="none"),
    }
    before = old_sandbox(BEFORE_WALLS)
    if before is not None:
        ways["walls of #26"] = lambda: before.run_tests(CODE, TEST, "add")
    old = old_sandbox()
    if old is not None:
        ways["old (in-process hook)"] = lambda: old.run_tests(CODE, TEST, "add")
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.runs):  # interleaved: a noisy moment on the shared machine hits every way alike
        for name, way in ways.items():
            start = time.perf_counter()
            result = way()
            times[name].append(time.perf_counter() - start)
            assert result.passed, (name, result)
    for name, values in times.items():
        values.sort()
        print(f"{name:24} median {statistics.median(values) * 1000:6.1f} ms  p90 "
              f"{values[int(0.9 * (len(values) - 1))] * 1000:6.1f} ms  (n {len(values)})")
    base = statistics.median(times["bubblewrap"])
    for name, values in times.items():
        if name != "bubblewrap":
            print(f"RATIO bubblewrap / {name}: {base / statistics.median(values):.2f}")
    print(f"target: bubblewrap median < 300 ms: {'met' if base < 0.3 else 'MISSED'}")
    if "walls of #26" in times:
        ratio = base / statistics.median(times["walls of #26"])
        print(f"target (#42): bubblewrap / walls of #26 <= 1.2: {'met' if ratio <= 1.2 else 'MISSED'} ({ratio:.2f})")


if __name__ == "__main__":
    main()
