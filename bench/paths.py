"""Do knowledge paths stay on topic? Graph paths, random chunks and dense top-k against supporting documents.

    .venv/bin/python bench/paths.py [--sets multihop_rag/small hotpotqa/small hotpotqa/medium]
        [--seeds 0 1 2 3 4] [--hops 3] [--json out.json] [--embedding-models all-MiniLM-L6-v2 static]
        [--schedules 20]

For every question of a split (a batch of one question, as the issue measured it) and every seed,
three ways to pick the H chunks an extension round writes its questions from (seed k of question i is
k * 1_000_003 + i, a schedule: with the same seeds for every question, one random stream picked the
same candidate position for all of them, issue 29):
- graph: `PathSampler.sample` (Algorithm 4 as this library implements it);
- random: H chunks drawn at random from the whole knowledge base (`--no-graph`, the paper's ablation);
- dense: the top H chunks for the question by embedding similarity (`--path dense`), no graph walk.
Printed per split and way: the share of path chunks that come from the question's supporting documents,
the share of paths that touch at least one, distinct documents per path, distinct paths over the seeds
(per question), and the median time to pick a path: "cold" is the first seed of each question (spaCy
and the encoder run on it), "all" every seed (later seeds reuse the question's entities and vectors,
as the rounds of a run do); "cold cpu" is the process's CPU time for the cold picks, steadier than the
wall clock on a shared machine; "later" every seed but the first. For graph paths, the same figures split
by the kind of the seed mention, and per candidate position: each question's path started from each of
its seed candidates in turn (`sample(start=...)`, first seed), with the share of draws that picked it.
The RATIO lines are the issue's targets, graph over dense top-3 measured in this run. The "expected" RATIO line weighs
the walks of each drawn path's pool by the draw's odds (`PathSampler.drawn_from`): the chunk share over the draw's
points, without their noise (about 0.02 of the ratio). The "at the graph's spread" RATIO line sets each graph path
beside dense's top chunks over as many documents (`relevance.at_spread`): a path keeps 2.5 documents where dense top-3
need not, and on questions with one supporting document that alone caps its share. On your own corpus and
questions: `judgeagent paths-check GRAPH QUESTIONS` prints the graph and dense figures and the ratios with
bootstrap intervals, by position, and the questions furthest below dense (judgeagent/graph/relevance.py, whose
per-path measure this script uses).
The "graph in a run" lines count the rounds of a JudgeAgent run whose path repeats an earlier round's of its batch,
with the run's own round seeds, before and after evaluate's retries (`run_paths`): with the run's defaults, and with
one-question batches of as many rounds as seeds.
`--schedules J` also repeats the graph way over J schedules, seed k * 1_000_003 + i + j * 100_003 for j < J (j = 0 is
the run above), and prints each figure's mean, its standard error over the schedules and the lowest: on a split of
25 questions one schedule's distinct paths move by about 0.1 between schedules (HotpotQA small), as much as a change
under test moves them.
Graphs are built once under .cache/paths and reused, one per embedding model (`--embedding-models`:
the graph's vectors, its question encoder and the dense baseline all use that model).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from bench.shared_data import find_data  # the shared splits: $JUDGEAGENT_DATA, or beside the checkout

DATA = find_data()
"""Where the splits are (`--data`; bench/pools.py's too)."""
CACHE = ROOT / ".cache" / "paths"
"""Where built graphs are kept (`--cache`): a graph whose build changed needs a folder of its own."""
DEFAULT_MODEL = "all-MiniLM-L6-v2"
SEED_STRIDE = 1_000_003  # judgeagent.graph.relevance.SEED_STRIDE: the same schedule as paths-check
SCHEDULE_SHIFT = 100_003
"""`--schedules`: schedule j adds j * SCHEDULE_SHIFT to every seed of schedule 0 (a prime, far from the stride)."""


def set_folders(data: Path, cache: Path) -> None:
    """Read the splits from `data` and keep graphs under `cache` (`--data`, `--cache`)."""
    global DATA, CACHE
    if not data.is_dir():
        sys.exit(f"--data {data}: no such folder; give the folder holding DATASET/SPLIT.docs.jsonl")
    DATA, CACHE = data, cache


def graph_for(dataset: str, split: str, model: str = DEFAULT_MODEL) -> Any:
    from judgeagent import GraphConfig, build_graph, load_graph

    # The default model's graphs keep their old folder, so caches from earlier runs stay valid.
    suffix = "" if model == DEFAULT_MODEL else "_" + "".join(c if c.isalnum() else "-" for c in model)
    folder = CACHE / f"{dataset}_{split}{suffix}"
    if (folder / "manifest.json").exists():
        return load_graph(folder)
    return build_graph(DATA / dataset / f"{split}.docs.jsonl", folder, GraphConfig(embedding_model=model))


def questions_for(dataset: str, split: str, graph: Any) -> list[tuple[str, set[str]]]:
    """(question, supporting doc ids) for every question whose supporting documents are in the graph."""
    docs = set(graph.doc_ids)
    out = []
    with open(DATA / dataset / f"{split}.questions.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            support = set(rec.get("supporting_doc_ids") or []) & docs
            if support:
                out.append((rec["question"], support))
    return out


@dataclass
class Tally:
    """Per-path figures of one way of picking chunks."""

    chunk_share: list[float] = field(default_factory=list)
    touched: list[bool] = field(default_factory=list)
    n_docs: list[int] = field(default_factory=list)
    cold_ms: list[float] = field(default_factory=list)
    all_ms: list[float] = field(default_factory=list)
    cold_cpu_ms: list[float] = field(default_factory=list)
    distinct: list[float] = field(default_factory=list)
    by_kind: dict[str, list[tuple[float, bool]]] = field(default_factory=dict)
    later_ms: list[float] = field(default_factory=list)
    expected_share: list[float] = field(default_factory=list)
    """Graph paths: each path's pool's chunk share weighed by the draw's odds (`PathSampler.drawn_from`)."""
    seeds: int = 1
    """Seeds per question: a position's expected draws are its probability summed over questions, times this."""
    by_position: dict[int, list[tuple[float, bool]]] = field(default_factory=dict)
    drawn: dict[int, int] = field(default_factory=dict)
    expected: dict[int, float] = field(default_factory=dict)

    def add(self, docs: list[str], support: set[str], ms: float, cpu_ms: float, cold: bool,
            kind: str | None = None) -> None:
        from judgeagent.graph.relevance import path_hits

        share, touched, n_docs = path_hits(docs, support)
        self.chunk_share.append(share)
        self.touched.append(touched)
        self.n_docs.append(n_docs)
        self.all_ms.append(ms)
        if cold:
            self.cold_ms.append(ms)
            self.cold_cpu_ms.append(cpu_ms)
        else:
            self.later_ms.append(ms)
        if kind is not None:
            self.by_kind.setdefault(kind, []).append((share, touched))

    def figures(self) -> dict[str, Any]:
        return {
            "paths": len(self.touched),
            "chunk_share": statistics.fmean(self.chunk_share),
            "touch_share": statistics.fmean(self.touched),
            "docs_per_path": statistics.fmean(self.n_docs),
            "distinct_paths": statistics.fmean(self.distinct),
            "median_cold_ms": statistics.median(self.cold_ms),
            "median_all_ms": statistics.median(self.all_ms),
            "median_cold_cpu_ms": statistics.median(self.cold_cpu_ms),
            "median_later_ms": statistics.median(self.later_ms) if self.later_ms else None,
            "expected_chunk_share": statistics.fmean(self.expected_share) if self.expected_share else None,
            "by_position": {p: {"paths": len(v), "chunk_share": statistics.fmean(s for s, _ in v),
                                "touch_share": statistics.fmean(t for _, t in v), "drawn": self.drawn.get(p, 0),
                                "expected_draws": round(self.expected.get(p, 0.0) * self.seeds, 1)}
                            for p, v in sorted(self.by_position.items())},
            "by_seed_kind": {k: {"paths": len(v), "chunk_share": statistics.fmean(s for s, _ in v),
                                 "touch_share": statistics.fmean(t for _, t in v)}
                             for k, v in sorted(self.by_kind.items())},
        }


def ways(graph: Any, hops: int) -> tuple[dict[str, Callable[[str, int], tuple[list[str], Any]]], Any]:
    """Each way: (question, seed) -> (chunk ids of the path, None or a call giving the seed mention's
    kind, made after the clock stops); and the graph way's sampler."""
    from judgeagent.graph.sample import PathSampler, random_chunks

    sampler = PathSampler(graph)
    alone = PathSampler(graph, sampler.extractor, sampler.encoder)  # its own cache: dense pays to encode

    def graph_path(question: str, seed: int) -> tuple[list[str], Any]:
        path = sampler.sample([question], hops=hops, seed=seed)
        return path.chunk_ids, lambda: (path.seed_kind, path.seed)

    return {
        "graph": graph_path,
        "random": lambda q, seed: (random_chunks(graph, hops, seed), None),
        "dense": lambda q, seed: (alone.dense([q], hops, seed), None),
    }, sampler


def expected_share(sampler: Any, question: str, support: set[str], seed: int, hops: int, doc_of: dict[str, str]) -> float:
    """The chunk share a graph path at `seed` has in expectation over the draw's points: its pool's walks' shares
    weighed by their odds (the same seed candidate; the points' noise, about 0.02 of the ratio, left out)."""
    from judgeagent.graph.relevance import path_hits

    return sum(p * path_hits([doc_of[c] for c in dict.fromkeys(chunks)], support).chunk_share
               for chunks, p in sampler.drawn_from([question], hops=hops, seed=seed))


def positions(sampler: Any, question: str, support: set[str], seed: int, hops: int, doc_of: dict[str, str],
              tally: Tally) -> list[str]:
    """The path from each seed candidate of the question in turn, tallied per position; the candidates'
    mentions (to find which position a drawn path took)."""
    options = sampler.seed_options([question])[0]
    for p, option in enumerate(options):
        path = sampler.sample([question], hops=hops, seed=seed, start=p)
        hits = [doc_of[c] in support for c in dict.fromkeys(path.chunk_ids)]
        tally.by_position.setdefault(p, []).append((sum(hits) / len(hits), any(hits)))
        tally.expected[p] = tally.expected.get(p, 0.0) + option["probability"]
    return [o["mention"] for o in options]


def measure(dataset: str, split: str, seeds: list[int], hops: int, model: str = DEFAULT_MODEL,
            schedules: int = 1) -> dict[str, Any]:
    graph = graph_for(dataset, split, model)
    questions = questions_for(dataset, split, graph)
    doc_of = dict(zip(graph.chunk_ids, graph.tables["chunks"].column("doc_id").to_pylist()))
    tallies = {name: Tally(seeds=len(seeds)) for name in ("graph", "random", "dense")}
    picks, sampler = ways(graph, hops)
    graph_paths: dict[int, list[list[str]]] = {}
    for name, pick in picks.items():
        pick(questions[0][0], 0)  # warm-up: models loaded, BLAS and FAISS paths touched
        for i, (question, support) in enumerate(questions):
            seen, mentions = set(), []
            for n, seed in enumerate(seeds):
                scheduled = seed * SEED_STRIDE + i
                t0, c0 = time.perf_counter(), time.process_time()
                chunk_ids, kind_of = pick(question, scheduled)
                ms, cpu_ms = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
                kind, mention = kind_of() if kind_of else (None, None)
                tallies[name].add([doc_of[c] for c in dict.fromkeys(chunk_ids)], support, ms, cpu_ms, n == 0, kind)
                seen.add(tuple(chunk_ids))
                if name == "graph":
                    graph_paths.setdefault(i, []).append(chunk_ids)
                    tallies[name].expected_share.append(expected_share(sampler, question, support, scheduled, hops,
                                                                       doc_of))
                    if n == 0:  # after the first path: the question's entities and vectors are remembered
                        mentions = positions(sampler, question, support, scheduled, hops, doc_of, tallies[name])
                    if mention in mentions:
                        tallies[name].drawn[mentions.index(mention)] = tallies[name].drawn.get(mentions.index(mention), 0) + 1
            tallies[name].distinct.append(len(seen))
    result = {"set": f"{dataset}/{split}", "model": model, "questions": len(questions), "documents": len(graph.doc_ids),
              "chunks": len(graph.chunk_ids), "entities": graph.n_entities,
              "ways": {name: t.figures() for name, t in tallies.items()}}
    result["spread"] = spread_figures(graph, sampler, questions, graph_paths, doc_of)
    if schedules > 1:
        result["schedules"] = over_schedules(picks["graph"], questions, doc_of, seeds, schedules)
    from judgeagent.limits import MAX_ROUNDS

    result["runs"] = [run_repeats(sampler, [q for q, _ in questions], hops, size, rounds)
                      for size, rounds in ((None, None), (1, min(len(seeds), MAX_ROUNDS)))]
    return result


def spread_figures(graph: Any, sampler: Any, questions: list[tuple[str, set[str]]],
                   graph_paths: dict[int, list[list[str]]], doc_of: dict[str, str]) -> dict[str, Any]:
    """The graph paths' chunk share beside dense's at each path's spread (`relevance.spread_hits`: dense's top
    chunks over as many documents as the path), over the paths dense can match."""
    from judgeagent.graph.relevance import spread_hits
    from judgeagent.graph.sample import PathSampler

    dense = PathSampler(graph, sampler.extractor, sampler.encoder)
    matched = [m for i, (question, support) in enumerate(questions)
               for m in spread_hits(dense, question, support, graph_paths[i], doc_of)]
    counts = {"paths": len(matched), "unmatched": sum(map(len, graph_paths.values())) - len(matched)}
    if not matched:
        return {**counts, "graph_chunk_share": None, "chunk_share": None, "docs_per_path": None}
    return {**counts, "graph_chunk_share": statistics.fmean(g.chunk_share for g, _, _ in matched),
            "chunk_share": statistics.fmean(d.chunk_share for _, d, _ in matched),
            "docs_per_path": statistics.fmean(d.n_docs for _, d, _ in matched)}


def run_repeats(sampler: Any, questions: list[str], hops: int, batch_size: int | None,
                rounds: int | None) -> dict[str, Any]:
    """How often a JudgeAgent run's rounds repeat a path an earlier round of their batch walked (`run_paths`): the
    first path each round draws, and the path it keeps after evaluate's retries with other seeds."""
    from judgeagent.protocols.judgeagent.config import EvalConfig

    defaults = EvalConfig()
    config = EvalConfig(batch_size=batch_size or defaults.batch_size, rounds=rounds or defaults.rounds)
    first = kept = total = 0
    for rounds_of_batch in run_paths(sampler, questions, hops, config):
        used = set()
        for first_path, kept_path in rounds_of_batch:
            first += first_path in used
            kept += kept_path in used
            total += 1
            used.add(kept_path)
    return {"batch_size": config.batch_size, "rounds": config.rounds, "round_paths": total,
            "first_repeats": first, "kept_repeats": kept}


def run_paths(sampler: Any, questions: list[str], hops: int, config: Any) -> list[list[tuple[tuple[str, ...], ...]]]:
    """Per batch of `config.batch_size` questions, per round: the chunk ids of the path the round draws first and
    of the one it keeps, with the run's round seeds and retries (batch.py's `_path`: a path an earlier round of
    the batch walked is drawn again with another seed, up to `_NEW_PATH_TRIES` draws)."""
    from judgeagent.protocols.judgeagent.batch import _NEW_PATH_TRIES, _round_seed

    batches = []
    for b, at in enumerate(range(0, len(questions), config.batch_size)):
        batch, used, rounds = questions[at:at + config.batch_size], set(), []
        for r in range(1, config.rounds + 1):
            seeds = (_round_seed(config, b, r, attempt) for attempt in range(_NEW_PATH_TRIES))
            path = first = tuple(sampler.sample(batch, hops=hops, seed=next(seeds)).chunk_ids)
            for seed in seeds:
                if path not in used:
                    break
                path = tuple(sampler.sample(batch, hops=hops, seed=seed).chunk_ids)
            rounds.append((first, path))
            used.add(path)
        batches.append(rounds)
    return batches


def over_schedules(pick: Callable[[str, int], tuple[list[str], Any]], questions: list[tuple[str, set[str]]],
                   doc_of: dict[str, str], seeds: list[int], schedules: int) -> dict[str, Any]:
    """The graph way's distinct paths per question, documents per path and chunks from support, for each of
    `schedules` schedules (`SCHEDULE_SHIFT`): each figure's mean, standard error over the schedules and lowest."""
    from judgeagent.graph.relevance import path_hits

    per: dict[str, list[float]] = {"distinct_paths": [], "docs_per_path": [], "chunk_share": []}
    for j in range(schedules):
        distinct, docs, share = [], [], []
        for i, (question, support) in enumerate(questions):
            seen = set()
            for seed in seeds:
                chunk_ids, _ = pick(question, seed * SEED_STRIDE + i + j * SCHEDULE_SHIFT)
                seen.add(tuple(chunk_ids))
                hits = path_hits([doc_of[c] for c in dict.fromkeys(chunk_ids)], support)
                share.append(hits.chunk_share)
                docs.append(hits.n_docs)
            distinct.append(len(seen))
        for name, values in zip(per, (distinct, docs, share)):
            per[name].append(statistics.fmean(values))
    return {"schedules": schedules, **{name: {"mean": statistics.fmean(v),
                                              "se": statistics.stdev(v) / len(v) ** 0.5 if len(v) > 1 else 0.0,
                                              "lowest": min(v)} for name, v in per.items()}}


def _over(a: float | None, b: float | None) -> str:
    """a / b to 3 places; "n/a" where dense never reached support (b is 0) or the figure was not measured."""
    return "n/a" if a is None or not b else f"{a / b:.3f}"


def _ms(v: float | None) -> str:
    return "n/a (one seed: no later path)" if v is None else f"{v:.1f} ms"


def render(result: dict[str, Any], seeds: int, hops: int) -> str:
    lines = [(f"{result['set']} ({result['model']}): {result['questions']} questions x {seeds} seeds, {hops} hops; "
              f"{result['documents']} documents, {result['chunks']} chunks, {result['entities']} entities"),
             (f"  {'way':<7} {'chunks from support':>19} {'paths touching':>14} {'docs/path':>9} "
              f"{'distinct/q':>10} {'median ms: cold':>15} {'cold cpu':>8} {'all':>6}")]
    for name, f in result["ways"].items():
        lines.append(f"  {name:<7} {f['chunk_share']:>19.3f} {f['touch_share']:>14.3f} {f['docs_per_path']:>9.2f} "
                     f"{f['distinct_paths']:>10.2f} {f['median_cold_ms']:>15.1f} {f['median_cold_cpu_ms']:>8.1f} "
                     f"{f['median_all_ms']:>6.1f}")
    g, d = result["ways"]["graph"], result["ways"]["dense"]
    lines.append(f"  RATIO graph / dense, paths touching a supporting document: {_over(g['touch_share'], d['touch_share'])}"
                 " (target >= 1)")
    lines.append(f"  RATIO graph / dense, chunks from supporting documents: {_over(g['chunk_share'], d['chunk_share'])}"
                 " (target >= 1.0, issue 48)")
    lines.append(f"  RATIO graph / dense, chunks from supporting documents expected over the draw's points: "
                 f"{_over(g['expected_chunk_share'], d['chunk_share'])} (the drawn paths' pools under their odds)")
    lines.append(f"  graph: {g['docs_per_path']:.2f} documents per path (target >= 2.5), {g['distinct_paths']:.2f} "
                 f"distinct paths over {seeds} seeds, median {_ms(g['median_later_ms'])} per later path "
                 f"(target < 10 ms; dense {_ms(d['median_later_ms'])})")
    spread = result.get("spread")
    if spread and spread["paths"]:
        lines.append(f"  RATIO graph / dense at the graph's spread (dense's top chunks over as many documents as each "
                     f"path), chunks from supporting documents: {_over(spread['graph_chunk_share'], spread['chunk_share'])} "
                     f"({spread['graph_chunk_share']:.3f} / {spread['chunk_share']:.3f} over {spread['paths']} paths, "
                     f"{spread['docs_per_path']:.2f} documents; {spread['unmatched']} unmatched)")
    for run in result.get("runs", []):
        lines.append(f"  graph in a run, batches of {run['batch_size']} and {run['rounds']} rounds: {run['first_repeats']} of "
                     f"{run['round_paths']} rounds' first paths repeat an earlier round's of the batch, "
                     f"{run['kept_repeats']} after evaluate's retries with other seeds")
    if "schedules" in result:
        o = result["schedules"]
        lines.append(f"  graph over {o['schedules']} schedules (seed k * {SEED_STRIDE:_} + i + j * {SCHEDULE_SHIFT:_}): "
                     + ", ".join(f"{label} {o[key]['mean']:.3f} (se {o[key]['se']:.3f}, lowest {o[key]['lowest']:.3f})"
                                 for label, key in (("distinct paths", "distinct_paths"),
                                                    ("documents per path", "docs_per_path"),
                                                    ("chunks from support", "chunk_share")))
                     + f"; RATIO to dense {_over(o['chunk_share']['mean'], d['chunk_share'])}")
    for kind, k in g["by_seed_kind"].items():
        lines.append(f"  graph paths seeded by {kind}: {k['paths']} paths, chunks from support "
                     f"{k['chunk_share']:.3f}, touching {k['touch_share']:.3f}")
    for p, k in g["by_position"].items():
        lines.append(f"  seed candidate {p + 1}: {k['paths']} paths from it, chunks from support {k['chunk_share']:.3f}, "
                     f"touching {k['touch_share']:.3f}; drawn {k['drawn']} times (expected {k['expected_draws']})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["multihop_rag/small", "hotpotqa/small", "hotpotqa/medium"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--hops", type=int, default=3)
    parser.add_argument("--schedules", type=int, default=1,
                        help="also repeat the graph way over this many schedules of seeds: mean, standard error, lowest")
    parser.add_argument("--json", type=Path, help="Also write the figures here.")
    parser.add_argument("--embedding-models", nargs="+", default=[DEFAULT_MODEL],
                        help="build each set's graph with each of these (a name, `static` or a folder)")
    parser.add_argument("--data", type=Path, default=DATA,
                        help=f"the folder holding DATASET/SPLIT.docs.jsonl and .questions.jsonl (default {DATA})")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help=f"where graphs are built once and reused (default {CACHE})")
    args = parser.parse_args()
    set_folders(args.data, args.cache)
    results = []
    for spec in args.sets:
        dataset, split = spec.split("/")
        for model in args.embedding_models:
            results.append(measure(dataset, split, args.seeds, args.hops, model, args.schedules))
            print(render(results[-1], len(args.seeds), args.hops), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
