"""Encoder cost per question by intra-op threads and questions per call (issue 31's table).

    .venv/bin/python bench/encoder_threads.py [--questions 200] [--model all-MiniLM-L6-v2]

The repository's `Encoder` on the first N MultiHop-RAG medium questions, encoded 1, 5 and N per call,
with the machine's default torch threads and inside `judgeagent.threads.one_thread()` (what the online
stage uses). Every cell encodes all N questions once; cells are interleaved (default, one thread) per
column so that a change in the machine's load moves both rows. Prints ms per question and the load average.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import find_data, require

DATA = find_data() / "multihop_rag"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    args = parser.parse_args()
    require(DATA / "medium.questions.jsonl")

    import torch

    from judgeagent.embedding import Encoder
    from judgeagent.threads import one_thread

    with open(DATA / "medium.questions.jsonl", encoding="utf-8") as f:
        questions = [json.loads(line)["question"] for line in f][: args.questions]
    encoder = Encoder(args.model)
    encoder.encode(questions[:8])  # warm-up: first-call allocations are not the encoder's steady cost
    n = len(questions)
    columns = (1, 5, n)
    rows = {f"default ({torch.get_num_threads()})": nullcontext, "1 (one_thread)": one_thread}
    found: dict[tuple[str, int], float] = {}
    print(f"{n} MultiHop-RAG medium questions, {sum(len(q.split()) for q in questions) / n:.0f} words on average, "
          f"encoder {args.model}; load average at start {_load()}")
    for per_call in columns:
        for row, limit in rows.items():
            start = time.perf_counter()
            for i in range(0, n, per_call):
                # The block around each call, as the online stage does (its cost is part of the figure);
                # the model itself, since `Encoder.encode` applies the discipline on its own.
                with limit():
                    encoder.model.encode(questions[i:i + per_call], batch_size=64, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
            found[(row, per_call)] = 1000 * (time.perf_counter() - start) / n
    print("| torch intra-op threads | " + " | ".join(f"{c} per call" for c in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for row in rows:
        print(f"| {row} | " + " | ".join(f"{found[(row, c)]:.1f} ms" for c in columns) + " |")
    for c in columns:
        print(f"RATIO default / one thread, {c} per call: {found[(list(rows)[0], c)] / found[(list(rows)[1], c)]:.2f}")
    print(f"load average at end {_load()}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
