"""Scaling the offline stage: local vs Ray engine, coordinator memory vs corpus size, the static model.

.venv/bin/python bench/scale.py --split medium            # everything (long on 2 shared cores)
.venv/bin/python bench/scale.py --split small --parts engines static
.venv/bin/python bench/scale.py --split small --parts spacy        # spaCy in 1 vs 2 processes
.venv/bin/python bench/scale.py --parts paths --paths-split medium  # path chunks from support: MiniLM vs static

Each figure is a ratio or a peak measured within this one run. Builds run in child processes so that
each one's peak RSS is its own (the coordinator's: Ray workers are separate processes).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared/data beside the checkout, or beside the main checkout of a git worktree (bench/shared_data.py).
sys.path.insert(0, str(ROOT))
from bench.shared_data import find_data, require

DATA = find_data()
SETS = ("multihop_rag", "hotpotqa", "pubmedqa", "quality")

_CHILD = """
import json, resource, sys, tempfile, time
from pathlib import Path
from judgeagent import GraphConfig, build_graph
from judgeagent.config import RayConfig
corpus, engine, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = time.perf_counter()
with tempfile.TemporaryDirectory() as out:  # written, as a user's build is (the ray engine streams to it)
    g = build_graph(corpus, Path(out) / "g", GraphConfig(), engine=RayConfig(workers=workers) if engine == "ray" else None)
    counts = g.counts()
print(json.dumps({"seconds": time.perf_counter() - t, "timings": dict(g.timings), "counts": counts,
                  "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def build(corpus: Path, engine: str = "local", workers: int = 1) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(corpus), engine, str(workers)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    if out.returncode:
        raise SystemExit(f"build of {corpus} ({engine}) failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def engines(corpus: Path) -> None:
    local = build(corpus)
    chunks = local["counts"]["chunks"]
    print(f"{corpus.name}: {local['counts']}")
    print(f"local engine: {local['seconds']:.1f} s = {chunks / local['seconds']:.1f} chunks/s")
    for workers in (1, 2):
        ray = build(corpus, "ray", workers)
        start = ray["timings"].get("starting ray", 0.0)
        print(f"ray, {workers} worker(s): {ray['seconds']:.1f} s ({start:.1f} s starting the cluster); "
              f"RATIO ray/local throughput {local['seconds'] / ray['seconds']:.3f} "
              f"(without cluster start {local['seconds'] / (ray['seconds'] - start):.3f}); "
              f"coordinator peak RSS {ray['peak_rss_gib']:.2f} GiB")


def memory(split: str, scales: tuple[int, ...] = (1, 2, 4), which: tuple[str, ...] = ("local", "ray")) -> None:
    """Peak RSS against corpus size. The four shared corpora (`split` of each) are concatenated; 4x is
    all of it, 2x and 1x its first half and quarter by bytes (whole records). Each size is built by the
    local engine (one process: models and all) and by the ray engine with 2 workers, whose peak is the
    coordinator's alone (the models live in the actors)."""
    records = [line for name in SETS for line in (DATA / name / f"{split}.docs.jsonl").read_bytes().splitlines(True)]
    total = sum(map(len, records))
    with tempfile.TemporaryDirectory() as tmp:
        for scale in scales:
            size, kept, n_bytes = total * scale // 4, [], 0  # 4x is the whole concatenation
            for line in records:
                if n_bytes >= size:
                    break
                kept.append(line)
                n_bytes += len(line)
            corpus = Path(tmp) / f"x{scale}.jsonl"
            corpus.write_bytes(b"".join(kept))
            for engine in which:
                r = build(corpus, engine, 2 if engine == "ray" else 1)
                who = "local build" if engine == "local" else "ray coordinator"
                print(f"{scale}x ({len(kept)} docs, {corpus.stat().st_size / 2**20:.1f} MiB, "
                      f"{r['counts']['chunks']} chunks, {r['counts']['entities']} entities): {who} peak RSS "
                      f"{r['peak_rss_gib']:.2f} GiB, {r['seconds']:.0f} s", flush=True)


def static(corpus: Path, sample: int = 1000, graph_path: Path | None = None) -> None:
    """Embedding speed on the graph's chunks, and entity-match recall@1 (a surface form finds its entity)."""
    import numpy as np

    from judgeagent import GraphConfig, build_graph, load_graph
    from judgeagent.embedding import Encoder, build_index

    graph = load_graph(graph_path) if graph_path else build_graph(corpus, None, GraphConfig())
    ents = graph.tables["entities"]
    pairs = [(row, s) for row, forms in enumerate(ents.column("surface_forms").to_pylist())
             for s in forms if s.casefold() != graph.entity_names[row]]
    pairs = [pairs[i] for i in np.random.default_rng(0).choice(len(pairs), min(sample, len(pairs)), replace=False)]
    times, recalls = {}, {}
    for name in ("all-MiniLM-L6-v2", "static"):
        encoder = Encoder(name)
        encoder.encode(graph.chunk_texts[:64])  # warm up
        t = time.perf_counter()
        encoder.encode(graph.chunk_texts)
        times[name] = time.perf_counter() - t
        index, _ = build_index(encoder.encode(graph.entity_names))
        _, found = index.search(encoder.encode([s for _, s in pairs]), 1)
        recalls[name] = float(np.mean(found[:, 0] == np.array([r for r, _ in pairs])))
        print(f"{name}: {len(graph.chunk_texts)} chunks in {times[name]:.2f} s "
              f"({len(graph.chunk_texts) / times[name]:.0f} chunks/s); entity-match recall@1 {recalls[name]:.3f} "
              f"on {len(pairs)} surface forms")
    print(f"RATIO static / MiniLM embedding speed: {times['all-MiniLM-L6-v2'] / times['static']:.1f}x; "
          f"recall@1 {recalls['static']:.3f} vs {recalls['all-MiniLM-L6-v2']:.3f}")


def static_paths(split: str, seeds: tuple[int, ...] = (0, 1, 2, 3, 4), hops: int = 3) -> None:
    """What the static model costs the online stage: the share of path chunks from a question's supporting
    documents on MultiHop-RAG `split`, with the graph built (and questions encoded) by each model. The
    figures are bench/paths.py's; graphs are cached under .cache/paths."""
    from paths import measure  # bench/paths.py: this script's folder is on sys.path

    shares = {}
    for model in ("all-MiniLM-L6-v2", "static"):
        r = measure("multihop_rag", split, list(seeds), hops, model)
        g, d = r["ways"]["graph"], r["ways"]["dense"]
        shares[model] = g["chunk_share"]
        print(f"{model}: multihop_rag/{split}, {r['questions']} questions x {len(seeds)} seeds, {hops} hops: "
              f"graph paths: chunks from support {g['chunk_share']:.3f}, touching {g['touch_share']:.3f}, "
              f"median cold {g['median_cold_ms']:.0f} ms; dense top-{hops}: {d['chunk_share']:.3f} / "
              f"{d['touch_share']:.3f}", flush=True)
    print(f"RATIO static / MiniLM share of path chunks from supporting documents: "
          f"{shares['static'] / shares['all-MiniLM-L6-v2']:.3f}")


def spacy_processes(corpus: Path) -> None:
    """Local-engine extraction seconds with spaCy in 1 and 2 processes, on the same chunks, in this run."""
    from judgeagent import EntityConfig
    from judgeagent.chunking import iter_chunks
    from judgeagent.config import ChunkConfig
    from judgeagent.corpus import read_corpus
    from judgeagent.entities import SpacyExtractor

    docs = read_corpus(corpus).documents
    texts = [c.text for doc_chunks in iter_chunks(docs, ChunkConfig()) for c in doc_chunks]
    seconds, found = {}, {}
    for n in (1, 2):
        extractor = SpacyExtractor(EntityConfig(spacy_processes=n))  # loading is not timed ...
        t = time.perf_counter()
        found[n] = extractor.extract(texts)  # ... the second process's start is
        seconds[n] = time.perf_counter() - t
        print(f"spaCy in {n} process(es): {len(texts)} chunks in {seconds[n]:.1f} s ({len(texts) / seconds[n]:.0f} chunks/s)")
    print(f"RATIO 1-process / 2-process extraction time: {seconds[1] / seconds[2]:.2f}x; "
          f"same mentions: {found[1] == found[2]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="medium", help="small, medium or full (full is slow on 2 cores)")
    parser.add_argument("--parts", nargs="+", default=["engines", "memory", "static", "paths", "spacy"])
    parser.add_argument("--paths-split", default="medium",
                        help="for `paths`: the MultiHop-RAG split whose questions the path share is measured on")
    parser.add_argument("--graph", type=Path, help="for `static`: a graph already built from the same corpus")
    parser.add_argument("--engines", nargs="+", default=["local", "ray"], help="for `memory`: which engines")
    parser.add_argument("--scales", nargs="+", type=int, default=[1, 2, 4],
                        help="for `memory`: which sizes (of the largest, 4x = all four corpora)")
    args = parser.parse_args()
    corpus = DATA / "multihop_rag" / f"{args.split}.docs.jsonl"
    require(corpus)
    if "engines" in args.parts:
        engines(corpus)
    if "memory" in args.parts:
        memory(args.split, tuple(args.scales), tuple(args.engines))
    if "static" in args.parts:
        static(corpus, graph_path=args.graph)
    if "paths" in args.parts:
        static_paths(args.paths_split)
    if "spacy" in args.parts:
        spacy_processes(corpus)


if __name__ == "__main__":
    main()
