"""Does specificity tell a question's useful entity mentions from generic ones? (issue 29)

    .venv/bin/python bench/specificity.py [--sets hotpotqa/medium multihop_rag/medium]

For every question of a split (graphs from bench/paths.py's cache), the entity mentions spaCy finds in
it that have a node in the graph. A mention "hits" when its node is in one of the question's supporting
documents: a path seeded there starts on the evidence. Printed per split: hit rate and count per
specificity band and per kind (named / concept), and for the GENERIC cut the share of mentions it
removes and their hit rate against the rest's. Figures only; the rule is in judgeagent/graph/specificity.py.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BANDS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


def measure(spec: str) -> list[str]:
    import numpy as np

    from bench.paths import graph_for, questions_for
    from judgeagent.entities import CONCEPT, SpacyExtractor
    from judgeagent.graph.specificity import GENERIC

    dataset, split = spec.split("/")
    graph = graph_for(dataset, split)
    questions = questions_for(dataset, split, graph)
    extractor = SpacyExtractor()
    found = extractor.extract([q for q, _ in questions])
    doc_row = {d: i for i, d in enumerate(graph.doc_ids)}
    rows = []  # (specificity, named, hit)
    for (_, support), mentions in zip(questions, found):
        wanted = {doc_row[d] for d in support}
        for name, label in {m.name: m.label for m in mentions}.items():
            e = graph.entity_row.get(name)
            if e is not None:
                rows.append((float(graph.specificity[e]), label != CONCEPT, bool(set(graph.docs_of(e).tolist()) & wanted)))
    s, named, hit = (np.array(c) for c in zip(*rows))
    out = [f"{spec}: {len(questions)} questions, {len(rows)} mentions with a node; hit = node in a supporting document"]
    for lo, hi in zip(BANDS, BANDS[1:]):
        m = (s >= lo) & (s < hi)
        if m.any():
            out.append(f"  specificity {lo:.1f}-{min(hi, 1):.1f}: {m.sum():>4} mentions, hit {hit[m].mean():.3f}"
                       f"  (named {int((m & named).sum())}, concepts {int((m & ~named).sum())})")
    for kind, m in (("named", named), ("concept", ~named)):
        out.append(f"  {kind:<8} {m.sum():>4} mentions, hit {hit[m].mean():.3f}")
    gen = s < GENERIC
    out.append(f"  generic (< {GENERIC}): {gen.mean():.3f} of mentions, hit {hit[gen].mean() if gen.any() else float('nan'):.3f}"
               f" vs {hit[~gen].mean():.3f} for the rest; concepts kept {int((~gen & ~named).sum())} hit "
               f"{hit[~gen & ~named].mean():.3f}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["hotpotqa/medium", "multihop_rag/medium"])
    args = parser.parse_args()
    for spec in args.sets:
        print("\n".join(measure(spec)), flush=True)


if __name__ == "__main__":
    main()
