"""Summaries of a graph for people: counts, degree distribution, top entities, a path."""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from .model import ContextGraph
from .sample import KnowledgePath


def graph_info(graph: ContextGraph, top: int = 15) -> dict[str, Any]:
    from scipy.sparse.csgraph import connected_components

    degree = np.diff(graph.chunk_links.indptr)
    n_components, labels = connected_components(graph.chunk_links, directed=False)
    sizes = np.bincount(labels) if len(labels) else np.zeros(0, dtype=int)
    ents = graph.tables["entities"]
    n_chunks = ents.column("n_chunks").to_numpy()
    order = np.lexsort((np.arange(len(n_chunks)), -n_chunks))[:top]
    labels_col = ents.column("label").to_pylist()
    return {
        "path": str(graph.path) if graph.path else None,
        "graph_id": graph.manifest.get("graph_id"),
        "counts": graph.counts(),
        "embedding_model": graph.manifest["embedding"]["model"],
        "extractor": graph.manifest["extractor"],
        "indexes": {k: v["kind"] for k, v in graph.manifest["indexes"].items()},
        "index_recall_at_10": {k: v["recall_at_10"] for k, v in graph.manifest["indexes"].items()
                               if "recall_at_10" in v},
        "degree": _distribution(degree),
        "components": {"count": int(n_components), "largest": int(sizes.max()) if len(sizes) else 0},
        "top_entities": [
            {"name": graph.entity_names[i], "label": labels_col[i], "chunks": int(n_chunks[i]),
             "documents": int(len(graph.docs_of(i))), "degree": int(degree[i]),
             "specificity": round(float(graph.specificity[i]), 3)}
            for i in order
        ],
        "specificity": _specificity(graph, n_chunks, top),
        "home_documents": int((graph.home >= 0).sum()),
        "metadata_named_documents": len(set().union(*(rows.tolist() for rows in graph.named_in_meta.values()))),
        "metadata_dated_documents": len(set().union(*(rows.tolist() for rows in graph.dated_in_meta.values()))),
        "suspicious_entities": suspicious_entities(graph.entity_names, n_chunks),
    }


def _specificity(graph: ContextGraph, n_chunks: np.ndarray, top: int) -> dict[str, Any]:
    """How many entities are generic, and the most mentioned of them (what seeds and reports skip)."""
    from .specificity import GENERIC

    spec = graph.specificity
    generic = np.flatnonzero(spec < GENERIC)
    common = generic[np.lexsort((generic, -n_chunks[generic]))][:top]
    return {"generic_below": GENERIC, "generic": int(len(generic)), "entities": int(len(spec)),
            "stored": "specificity" in graph.tables["entities"].column_names,
            "median": round(float(np.median(spec)), 3) if len(spec) else None,
            "most_mentioned_generic": [{"name": graph.entity_names[i], "specificity": round(float(spec[i]), 3),
                                        "chunks": int(n_chunks[i])} for i in common]}


# A clean corpus gives names of words; markup, code, tables and run-together text give these.
_ODD = re.compile(r"[<>{}\[\]|\\=#@^~_*]|\s[-/]\s|^[^A-Za-z]*$")
LONG_NAME = 60


def suspicious_entities(names: list[str], n_chunks: np.ndarray, top: int = 20) -> list[dict[str, Any]]:
    """The most common entity names that look like a dirty corpus: odd characters, or very long."""
    odd = [(int(n_chunks[i]), name) for i, name in enumerate(names)
           if len(name) > LONG_NAME or (_ODD.search(name) and not name.replace(" ", "").isdigit())]
    odd.sort(key=lambda x: (-x[0], x[1]))
    return [{"name": name, "chunks": n, "why": "long" if len(name) > LONG_NAME else "odd characters"}
            for n, name in odd[:top]]


def _distribution(degree: np.ndarray) -> dict[str, Any]:
    if len(degree) == 0:
        return {"isolated": 0}
    buckets = [(0, 0), (1, 1), (2, 3), (4, 7), (8, 15), (16, 31), (32, 63), (64, 127), (128, None)]
    histogram = {}
    for lo, hi in buckets:
        mask = degree >= lo if hi is None else (degree >= lo) & (degree <= hi)
        key = f"{lo}+" if hi is None else (str(lo) if lo == hi else f"{lo}-{hi}")
        histogram[key] = int(mask.sum())
    return {
        "min": int(degree.min()), "median": float(np.median(degree)), "mean": round(float(degree.mean()), 2),
        "p90": float(np.percentile(degree, 90)), "max": int(degree.max()),
        "isolated": int((degree == 0).sum()), "histogram": histogram,
    }


def render_info(info: dict[str, Any]) -> str:
    c, d = info["counts"], info["degree"]
    lines = [
        f"graph {info['path']} (id {info['graph_id']})",
        f"  documents {c['documents']:,}  chunks {c['chunks']:,}  entities {c['entities']:,}  "
        f"mentions {c['mentions']:,}  chunk links {c['chunk_links']:,}",
        f"  embedding {info['embedding_model']}  extractor {info['extractor'].get('pipeline')}  "
        f"indexes {info['indexes']}"
        + (f"  recall@10 vs exact {info['index_recall_at_10']}" if info.get("index_recall_at_10") else ""),
        f"  components {info['components']['count']:,} (largest {info['components']['largest']:,} entities)",
    ]
    if "histogram" in d:
        lines.append(f"  degree (chunk links): min {d['min']}  median {d['median']:g}  mean {d['mean']}  "
                     f"p90 {d['p90']:g}  max {d['max']}  isolated {d['isolated']}")
        width = max(d["histogram"].values()) or 1
        for key, n in d["histogram"].items():
            lines.append(f"    {key:>7} {n:>8,} {'#' * round(30 * n / width)}")
    lines.append("  top entities (by chunks):")
    for e in info["top_entities"]:
        lines.append(f"    {e['name'][:40]:<40} {e['label']:<9} chunks {e['chunks']:>5}  "
                     f"docs {e['documents']:>4}  degree {e['degree']:>6}  specificity {e['specificity']:.2f}")
    sp = info.get("specificity")
    if sp:
        how = "" if sp["stored"] else " (computed: a format-1 graph; rebuild to store it)"
        lines.append(f"  specificity: median {sp['median']}, {sp['generic']:,} of {sp['entities']:,} entities generic "
                     f"(below {sp['generic_below']}: no seeds, cloze blanks or knowledge-gap rows){how}")
        if sp["most_mentioned_generic"]:
            lines.append("    most mentioned generic: " + ", ".join(
                f"{e['name']} ({e['specificity']:.2f})" for e in sp["most_mentioned_generic"]))
    if "home_documents" in info:
        homes = info["home_documents"]
        lines.append(f"  home documents: {homes:,} of {c['documents']:,} have a title naming an entity they "
                     "mention, or a longer form of it (a question naming such an entity seeds its paths from it "
                     "first, and they start in its home document)")
    if "metadata_named_documents" in info:
        lines.append(f"  metadata names: {info['metadata_named_documents']:,} of {c['documents']:,} documents have a "
                     "short metadata value that sets them apart, a publisher, an author, a topic (a question naming "
                     "it walks towards them)")
    if info.get("metadata_dated_documents"):
        lines.append(f"  metadata days: {info['metadata_dated_documents']:,} of {c['documents']:,} documents have a date in "
                     "their metadata, a day of publication (a question naming the day walks towards them)")
    odd = info.get("suspicious_entities") or []
    if odd:
        lines.append(f"  suspicious entity names ({len(odd)} most common; markup or odd text in the corpus?):")
        lines += [f"    {e['name'][:60]:<60} chunks {e['chunks']:>5}  {e['why']}" for e in odd]
    return "\n".join(lines)


def render_build_summary(graph: ContextGraph) -> str:
    c, m = graph.counts(), graph.manifest
    stages = graph.timings or m["timings"]
    timings = "  ".join(f"{k} {v:.1f}s" for k, v in stages.items())
    return "\n".join([
        f"built graph {graph.path} (id {m.get('graph_id')})",
        f"  documents {c['documents']:,}  chunks {c['chunks']:,}  entities {c['entities']:,}  "
        f"mentions {c['mentions']:,}  chunk links {c['chunk_links']:,}",
        f"  indexes: entities {m['indexes']['entities']['kind']}, chunks {m['indexes']['chunks']['kind']}",
        f"  seconds: {timings}  (total {sum(stages.values()):.1f}s)",
    ])


def render_path(path: KnowledgePath) -> str:
    kind = {"named": "a named entity", "concept": "a concept", "question": "no mention: the whole question"}
    lines = [f"question: {path.question}", f"seed mention: {path.seed!r} ({kind.get(path.seed_kind, path.seed_kind)})",
             f"path ({len(path.entities)}/{path.hops} hops): {' -> '.join(path.entities)}"]
    if path.stopped_early:
        lines.append(f"stopped early: {path.stop_reason}")
    shown: set[str] = set()
    similarities = path.similarities or [None] * len(path.chunk_ids)
    for entity, chunk_id, text, sim in zip(path.entities, path.chunk_ids, path.chunk_texts, similarities):
        why = "" if sim is None else f"  (similarity to the question {sim:.2f})"
        lines.append(f"\n[{entity}] {chunk_id}{why}")
        lines.append("  (the chunk above)" if chunk_id in shown else "  " + " ".join(text.split()))
        shown.add(chunk_id)
    return "\n".join(lines)
