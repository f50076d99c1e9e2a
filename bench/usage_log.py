"""What the run's usage log costs a model call: `UsageLedger.record` with the run's sink (a row appended to
usage.jsonl through `Run.append`) against the same records without one, interleaved in one process.

    .venv/bin/python bench/usage_log.py [--calls 5000] [--repeats 5]

Prints microseconds per call both ways (the best of the repeats, each a run of --calls records) and their
difference: the time a call spends on its row, to set beside the call itself (milliseconds to seconds at an
endpoint). Then reads the rows back as a resumed run does (`Run.read_log` and `UsageLedger.keep`).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judgeagent.models.base import Completion, Usage  # noqa: E402
from judgeagent.models.spec import Prices  # noqa: E402
from judgeagent.models.usage import UsageLedger  # noqa: E402
from judgeagent.runs import open_run  # noqa: E402


def _per_call(ledger: UsageLedger, calls: int) -> float:
    reply = Completion("echo: a b c", None, Usage(723, 67), "m")
    prices = Prices(input=2.5, output=10.0)
    start = time.perf_counter()
    for _ in range(calls):
        ledger.record("target", reply, prices, "m")
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, open_run(Path(tmp) / "run", {"config_id": "bench"}) as run:
        bare, logged = [], []
        for _ in range(args.repeats):  # interleaved: the machine's load falls on both alike
            bare.append(_per_call(UsageLedger(), args.calls))
            kept = UsageLedger()
            kept.keep([], lambda row: run.append("usage.jsonl", dict(row)))
            logged.append(_per_call(kept, args.calls))
        print(f"record, no log:   {1e6 * min(bare):.1f} us per call")
        print(f"record, logged:   {1e6 * min(logged):.1f} us per call ({min(logged) / min(bare):.1f}x)")
        print(f"a call's row:     {1e6 * (min(logged) - min(bare)):.1f} us")
        start = time.perf_counter()
        rows = run.read_log("usage.jsonl", "role")
        again = UsageLedger()
        again.keep(rows, lambda row: None)
        print(f"resume: {len(rows):,} rows read and kept in {1e3 * (time.perf_counter() - start):.0f} ms "
              f"({1e6 * (time.perf_counter() - start) / len(rows):.1f} us a row)")


if __name__ == "__main__":
    main()
