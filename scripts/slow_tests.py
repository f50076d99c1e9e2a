"""Write tests/slow.txt, the tests `make test-fast` leaves out, from a timed run of the whole suite.

    .venv/bin/python -m pytest -q --durations=0 -p no:randomly > /tmp/durations.txt
    .venv/bin/python scripts/slow_tests.py /tmp/durations.txt [--seconds 8]

A test is slow when its setup, call and teardown together took `--seconds` or more (setup counts: the first test
to use a session graph pays for building it, and `make test-fast` would too). Measure on a quiet machine.
"""
from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(setup|call|teardown)\s+(\S+)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("durations", type=Path, help="pytest's output with --durations=0")
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    spent: dict[str, float] = defaultdict(float)
    for line in args.durations.read_text().splitlines():
        match = LINE.match(line)
        if match:
            spent[match.group(3)] += float(match.group(1))
    slow = sorted(node for node, seconds in spent.items() if seconds >= args.seconds)
    (ROOT / "tests" / "slow.txt").write_text("".join(f"{node}\n" for node in slow))
    total = sum(spent.values())
    fast = sum(s for node, s in spent.items() if node not in slow)
    print(f"{len(slow)} of {len(spent)} tests at {args.seconds:g} s or more: {total - fast:.0f} s of {total:.0f} s "
          f"measured; the rest take {fast:.0f} s")


if __name__ == "__main__":
    main()
