"""How far can similarity alone take a path? The best three-chunk sets by similarity to the question, at each
number of documents per path: the frontier that issue 29's chunk-share target is measured against.

    .venv/bin/python bench/frontier.py [--sets hotpotqa/medium multihop_rag/medium] [--top 24] [--pool 25]

For every question of a split: the 3-chunk sets drawn from its `--top` most similar chunks, ranked by their
summed similarity plus a bonus per distinct document in the set; the `--pool` best sets are the paths a
uniform draw would pick from (as many as the sampler's pool). No graph: whatever walk picks its chunks
by similarity to the question, at the same number of documents per path and as many equally likely paths,
does not beat this. Printed per bonus: the share of the sets' chunks from supporting documents, the share
of sets touching one, documents per set; and dense top-3 (one set) for the ratio. Graphs come from
bench/paths.py's cache (.cache/paths).
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paths  # noqa: E402  (bench/paths.py: graphs and questions)

BONUSES = (0.0, 0.01, 0.02, 0.03, 0.05, 0.1, 1.0)


def measure(dataset: str, split: str, top: int, pool: int) -> list[str]:
    from judgeagent.embedding import Encoder

    graph = paths.graph_for(dataset, split)
    questions = paths.questions_for(dataset, split, graph)
    doc_rows = {d: i for i, d in enumerate(graph.doc_ids)}
    chunk_doc = np.array([doc_rows[d] for d in graph.tables["chunks"].column("doc_id").to_pylist()])
    vectors = Encoder(graph.manifest["embedding"]["model"]).encode([q for q, _ in questions])
    sets = np.array(list(itertools.combinations(range(top), 3)))
    figures = {b: ([], [], []) for b in BONUSES}
    dense = ([], [])
    for (question, support), vector in zip(questions, vectors):
        similarity = graph.chunk_vectors @ vector
        best = np.lexsort((np.arange(len(similarity)), -similarity))[:top]
        supporting = np.array([graph.doc_ids[chunk_doc[c]] in support for c in best])
        summed = similarity[best][sets].sum(axis=1)
        docs = chunk_doc[best][sets]
        n_docs = 1 + (docs[:, 1] != docs[:, 0]) + ((docs[:, 2] != docs[:, 0]) & (docs[:, 2] != docs[:, 1]))
        share = supporting[sets].mean(axis=1)
        for b, (shares, touching, per_path) in figures.items():
            chosen = np.lexsort((np.arange(len(sets)), -(summed + b * n_docs)))[:pool]
            shares.append(share[chosen].mean())
            touching.append((share[chosen] > 0).mean())
            per_path.append(n_docs[chosen].mean())
        dense[0].append(supporting[:3].mean())
        dense[1].append(supporting[:3].any())
    d_share, d_touch = statistics.fmean(dense[0]), statistics.fmean(dense[1])
    lines = [f"{dataset}/{split}: {len(questions)} questions; the {pool} best 3-chunk sets of each question's top {top} chunks",
             f"  dense top-3: chunks from support {d_share:.3f}, touching {d_touch:.3f}"]
    for b, (shares, touching, per_path) in figures.items():
        s = statistics.fmean(shares)
        lines.append(f"  bonus {b:<4} per document: {statistics.fmean(per_path):.2f} documents per path, chunks from "
                     f"support {s:.3f} ({s / d_share:.3f} of dense), touching {statistics.fmean(touching):.3f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["hotpotqa/medium", "multihop_rag/medium"])
    parser.add_argument("--top", type=int, default=24)
    parser.add_argument("--pool", type=int, default=25)
    args = parser.parse_args()
    for spec in args.sets:
        print("\n".join(measure(*spec.split("/"), args.top, args.pool)), flush=True)


if __name__ == "__main__":
    main()
