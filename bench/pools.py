"""What a path pool costs to build, and a digest of every pool: two versions of the sampler draw the same
paths when their digests match.

    .venv/bin/python bench/pools.py [--sets hotpotqa/medium multihop_rag/medium] [--code OTHER_CHECKOUT]
    .venv/bin/python bench/pools.py --paired OTHER_CHECKOUT [--graph DIR --questions FILE]

For every question of a split (a batch of one question) and each of its seed candidates, the pool of walks
its paths are drawn from (`PathSampler.sample(start=...)`, 3 hops, seed i for question i) is built once;
printed: the pools' count, the median and mean CPU ms per pool (the question's spaCy mentions and vectors
are computed before the clock starts), and a digest of all pools (their walks' entities, chunks and
scores, in order). `--code` imports `judgeagent` from another checkout (for example `git worktree add
/tmp/before main`) on the same graphs (this checkout's .cache/paths, see bench/paths.py): run once
with it and once without, and compare the digests and times.

`--paired OTHER_CHECKOUT` measures both in one process instead (a shared machine's load moves between two
runs): the other checkout's graph/walk.py is loaded beside this one's, and for each question the pools of all
its seed candidates (and its entities' best chunks) are built by one then the other, in alternating order;
printed: each one's median CPU ms per question, the median of the per-question ratios (this / other), both
digests and for how many questions the two gave the same pools to the last bit of every score (the digest
rounds scores to 6 places); each module reads its own `WalkIndex`. `--graph DIR --questions FILE` measures a stored graph (for example MultiHop-RAG full, built
with `judgeagent build-graph`) on the first 100 questions of a questions file instead of the sets. `--data DIR`:
where the splits are (by default found as the tests find them: $JUDGEAGENT_DATA, ../shared/data, /work/shared/data).
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


def paired(other: Path, graph: Any, questions: list[str], hops: int = 3) -> dict[str, Any]:
    """Pools of this checkout's walk module and `other`'s, question by question in alternating order."""
    import importlib.util

    import judgeagent.graph.sample as sampling
    from judgeagent.graph import walk as this

    name = "judgeagent.graph.walk_other"
    spec = importlib.util.spec_from_file_location(name, other / "judgeagent" / "graph" / "walk.py")
    that = importlib.util.module_from_spec(spec)
    sys.modules[name] = that  # dataclasses look their module up
    spec.loader.exec_module(that)
    sampler = sampling.PathSampler(graph)
    for q in questions:
        sampler.seed_options([q])
    # Each module reads its own WalkIndex (what they derive from the graph may differ), both built before timing.
    ons = {"this": this.WalkIndex(graph, sampler._generic), "other": that.WalkIndex(graph, sampler._generic)}
    for side, module in (("this", this), ("other", that)):
        sampling.walk, sampler.__dict__["_walks_on"] = module, ons[side]
        sampler._pools.clear()
        sampler._bests.clear()
        sampler.sample([questions[0]], hops=hops, seed=0)  # warm-up
    cpu: dict[str, list[float]] = {"this": [], "other": []}
    digest = {"this": hashlib.sha1(), "other": hashlib.sha1()}
    pools: dict[str, list[Any]] = {}
    exact = 0
    try:
        for i, q in enumerate(questions):
            for side, module in ((("this", this), ("other", that)) if i % 2 == 0 else (("other", that), ("this", this))):
                sampling.walk, sampler.__dict__["_walks_on"] = module, ons[side]
                sampler._pools.clear()
                sampler._bests.clear()
                c0 = time.process_time()
                for p in range(max(1, len(sampler.seed_options([q])[0]))):
                    sampler.sample([q], hops=hops, seed=i, start=p)
                cpu[side].append((time.process_time() - c0) * 1000)
                for pool in sampler._pools.values():
                    digest[side].update(json.dumps([[list(w.entities), list(w.chunks), round(w.score, 6)]
                                                    for w in pool]).encode())
                pools[side] = [[(w.entities, w.chunks, w.score) for w in pool] for pool in sampler._pools.values()]
            exact += pools["this"] == pools["other"]  # scores to the last bit, not rounded as in the digest
    finally:
        sampling.walk, sampler.__dict__["_walks_on"] = this, ons["this"]
    return {"this_ms": statistics.median(cpu["this"]), "other_ms": statistics.median(cpu["other"]),
            "ratio": statistics.median(t / o for t, o in zip(cpu["this"], cpu["other"])),
            "this_digest": digest["this"].hexdigest()[:16], "other_digest": digest["other"].hexdigest()[:16],
            "exact": exact}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["hotpotqa/medium", "multihop_rag/medium"])
    parser.add_argument("--code", type=Path, help="import judgeagent from this checkout instead")
    parser.add_argument("--paired", type=Path, help="compare with this checkout's graph/walk.py in one process")
    parser.add_argument("--graph", type=Path, help="a stored graph to measure instead of --sets (with --questions)")
    parser.add_argument("--questions", type=Path, help="a questions file (.jsonl with a question field)")
    parser.add_argument("--data", type=Path, default=paths.DATA,
                        help=f"the folder holding DATASET/SPLIT.questions.jsonl (default {paths.DATA})")
    args = parser.parse_args()
    if not args.graph:
        paths.set_folders(args.data, paths.CACHE)
    if args.paired:
        from judgeagent import load_graph

        runs = ([(str(args.graph), load_graph(args.graph), _first_questions(args.questions, 100))] if args.graph else
                [(spec, g, [q for q, _ in paths.questions_for(*spec.split("/"), g)])
                 for spec in args.sets for g in [paths.graph_for(*spec.split("/"))]])
        for label, graph, questions in runs:
            r = paired(args.paired, graph, questions)
            print(f"{label}: {len(questions)} questions, CPU ms per question (all its pools) median: this "
                  f"{r['this_ms']:.2f}, {args.paired} {r['other_ms']:.2f}; RATIO this / other {r['ratio']:.3f}; "
                  f"digests {r['this_digest']} / {r['other_digest']} "
                  f"({'same pools' if r['this_digest'] == r['other_digest'] else 'POOLS DIFFER'}; equal to the last bit for "
                  f"{r['exact']} of {len(questions)} questions)", flush=True)
        return
    if args.code:
        sys.path.insert(0, str(args.code.resolve()))
    import judgeagent

    print(f"judgeagent from {Path(judgeagent.__file__).parent}")
    for spec in args.sets:
        r = measure(*spec.split("/"))
        print(f"{r['set']}: {r['pools']} pools, CPU ms per pool median {r['median_cpu_ms']:.1f} "
              f"mean {r['mean_cpu_ms']:.1f}; digest of all pools {r['digest']}", flush=True)


def _first_questions(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["question"] for line, _ in zip(f, range(n))]


if __name__ == "__main__":
    main()
