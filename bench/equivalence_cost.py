"""Where a learned-equivalence pair's CPU time goes, and whether batching its MiniLM cosine keeps the bytes (#46/#47).

    .venv/bin/python bench/equivalence_cost.py [--file /tmp/evouna/TQ.json] [--half heldout] [--limit N] [--reps 3]

On the EVOUNA pairs that the rules leave undecided (the only ones `Equivalence.decide` sees), prints the CPU time
(process time, best of `--reps`) of the step's Python features alone and of the whole `decide`, and compares the
cosine feature computed one pair per encode (what a run does) with the same pairs encoded 8, 32 or all at a time:
`np.array_equal` and how many differ. Batching may be adopted only if they are equal (verdicts must not move).
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.verdicts import load_evouna, other_golds, verdicts  # noqa: E402
from judgeagent.config import CheckerConfig  # noqa: E402
from judgeagent.grading.answers import AnswerChecker  # noqa: E402
from judgeagent.grading.equivalence import features_many, load  # noqa: E402


def cpu(f: Callable[[], object], reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        start = time.process_time()
        f()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=Path("/tmp/evouna/TQ.json"))
    parser.add_argument("--half", default="heldout")
    parser.add_argument("--limit", type=int, default=0, help="At most this many undecided pairs (0: all).")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    triples = load_evouna(args.file, args.half)
    others = other_golds([g for _, item in {r["qid"]: i for r, i in triples}.items() for g in item.golds])
    alone = asyncio.run(verdicts(AnswerChecker(CheckerConfig(), None, others), triples))
    rows = [(item.question, list(item.golds), row["answer"]) for (row, item), v in zip(triples, alone)
            if v.method == "undecided"]
    rows = rows[:args.limit] if args.limit else rows
    print(f"{len(triples)} pairs, {len(rows)} reach the learned step")
    step, note = load()
    assert step is not None, note
    print(f"first call (loads MiniLM): {cpu(lambda: step.probability('warm-up', ['a'], 'b'), 1):.2f} s CPU")
    features = cpu(lambda: [features_many([r], cosine=False) for r in rows], args.reps)
    whole = cpu(lambda: [step.decide(*r) for r in rows], args.reps)
    print(f"per pair, CPU: Python features {1000 * features / len(rows):.2f} ms, whole decide "
          f"{1000 * whole / len(rows):.2f} ms (the cosine: {100 * (whole - features) / whole:.0f}%)")
    single = np.array([features_many([r])[0, -1] for r in rows])
    for size in (8, 32, len(rows)):
        batched = np.concatenate([features_many(rows[i:i + size])[:, -1] for i in range(0, len(rows), size)])
        diff = np.abs(single - batched)
        print(f"cosines {size} pairs an encode vs one: array_equal {np.array_equal(single, batched)}, "
              f"{int((diff > 0).sum())} of {len(rows)} differ, max |diff| {diff.max():.2e}")
    together = cpu(lambda: features_many(rows), 1)
    print(f"all {len(rows)} pairs in one features_many: {1000 * together / len(rows):.2f} ms a pair, CPU")


if __name__ == "__main__":
    main()
