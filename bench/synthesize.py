"""How fast and how well does `synthesize` make a cloze set (no model)? Time per item, coverage, duplicates.

    .venv/bin/python bench/synthesize.py [--set multihop_rag/medium] [--n 300] [--seed 0] [--graph FOLDER]

Builds the split's graph once under .cache/synthesize (or takes --graph), then synthesises `--n` easy
items in one call and prints: items kept, paths tried, seconds per item (the whole call, graph loaded and
models warm: the encoder and spaCy are loaded by a first small call that is not timed), how many golds are
found in their source chunk (must be all), the highest question-to-question similarity kept (must be under
the duplicate bar), and documents covered: the share of the documents the sampled paths reached, and the
spread (documents covered over the most the set's item count could cover).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.shared_data import find_data, require

DATA = find_data()
CACHE = ROOT / ".cache" / "synthesize"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="multihop_rag/medium")
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--graph", type=Path, default=None)
    args = parser.parse_args()
    require(DATA / args.set.split("/")[0])

    from judgeagent import build_graph, load_graph
    from judgeagent.protocols.judgeagent.synthesis import SynthesisConfig, synthesize

    dataset, split = args.set.split("/")
    folder = args.graph or CACHE / f"{dataset}_{split}"
    graph = load_graph(folder) if (folder / "manifest.json").exists() else build_graph(
        DATA / dataset / f"{split}.docs.jsonl", folder)
    with tempfile.TemporaryDirectory() as tmp:
        synthesize(graph, Path(tmp) / "warm", SynthesisConfig(n=2, difficulties=("easy",), seed=args.seed + 1))
        started, cpu = time.perf_counter(), time.process_time()
        result = synthesize(graph, Path(tmp) / "set", SynthesisConfig(n=args.n, difficulties=("easy",), seed=args.seed))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        import json

        items = [json.loads(line) for line in (Path(tmp) / "set" / "items.jsonl").read_text().splitlines()]
    texts = dict(zip(graph.chunk_ids, graph.chunk_texts))
    in_chunk = sum(all(i["answer"] in texts[c] for c in i["source_chunk_ids"]) for i in items)
    from judgeagent.embedding import Encoder

    vectors = Encoder(graph.manifest["embedding"]["model"]).encode([i["question"] for i in items])
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0)
    card, cov = result.card, result.card["coverage"]
    print(f"{args.set}: graph {len(graph.doc_ids)} documents, {graph.n_entities} entities")
    print(f"items kept {card['items']} of {args.n} asked, {card['slots']} paths tried")
    print(f"time: {wall / max(1, len(items)) * 1000:.1f} ms per item wall, {cpu / max(1, len(items)) * 1000:.1f} ms CPU "
          f"({wall:.1f} s in all)")
    print(f"golds found in their source chunk: {in_chunk}/{len(items)}")
    print(f"highest question similarity kept: {similarity.max():.3f} (duplicate bar {card['config']['duplicate_similarity']})")
    print(f"documents covered: {cov['documents']} of {cov['reachable_documents']} reached by the paths "
          f"({cov['documents_share_of_reachable']:.1%}); spread {cov['spread']:.1%} "
          f"(covered / min(items, reached)); {cov['graph_documents']} documents in the graph")
    print(f"entities on the items' paths: {cov['entities']} of {cov['graph_entities']}")


if __name__ == "__main__":
    main()
