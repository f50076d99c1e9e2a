"""What a path pool costs to build, and a digest of every pool: two versions of the sampler draw the same
paths when their digests match.

    .venv/bin/python bench/pools.py [--sets hotpotqa/medium multihop_rag/medium] [--code OTHER_CHECKOUT]

For every question of a split (a batch of one question) and each of its seed candidates, the pool of walks
its paths are drawn from (`PathSampler.sample(start=...)`, 3 hops, seed i for question i) is built once;
printed: the pools' count, the median and mean CPU ms per pool (the question's spaCy mentions and vectors
are computed before the clock starts), and a digest of all pools (their walks' entities, chunks and
scores, in order). `--code` imports `judgeagent` from another checkout (for example `git worktree add
/tmp/before main`) on the same graphs (this checkout's .cache/paths, see bench/paths.py): run once
with it and once without, and compare the digests and times.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paths  # noqa: E402  (bench/paths.py: graphs and questions)


def measure(dataset: str, split: str, hops: int = 3) -> dict[str, Any]:
    from judgeagent.graph.sample import PathSampler

    graph = paths.graph_for(dataset, split)
    questions = [q for q, _ in paths.questions_for(dataset, split, graph)]
    sampler = PathSampler(graph)
    for q in questions:  # mentions and vectors first: the clock times the pools only
        sampler.seed_options([q])
    sampler.sample([questions[0]], hops=hops, seed=0)  # warm-up
    sampler._pools.clear()
    digest, cpu_ms = hashlib.sha1(), []
    for i, q in enumerate(questions):
        for p in range(max(1, len(sampler.seed_options([q])[0]))):
            c0 = time.process_time()
            sampler.sample([q], hops=hops, seed=i, start=p)
            cpu_ms.append((time.process_time() - c0) * 1000)
        for pool in sampler._pools.values():
            walks = [[list(w.entities), list(w.chunks), round(w.score, 6)] for w in pool]
            digest.update(json.dumps(walks).encode())
        sampler._pools.clear()
    return {"set": f"{dataset}/{split}", "pools": len(cpu_ms), "median_cpu_ms": statistics.median(cpu_ms),
            "mean_cpu_ms": statistics.fmean(cpu_ms), "digest": digest.hexdigest()[:16]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["hotpotqa/medium", "multihop_rag/medium"])
    parser.add_argument("--code", type=Path, help="import judgeagent from this checkout instead")
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(args.code.resolve()))
    import judgeagent

    print(f"judgeagent from {Path(judgeagent.__file__).parent}")
    for spec in args.sets:
        r = measure(*spec.split("/"))
        print(f"{r['set']}: {r['pools']} pools, CPU ms per pool median {r['median_cpu_ms']:.1f} "
              f"mean {r['mean_cpu_ms']:.1f}; digest of all pools {r['digest']}", flush=True)


if __name__ == "__main__":
    main()
