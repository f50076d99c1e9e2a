"""Do a graph's knowledge paths stay on topic? Graph paths against dense top-k chunks, on questions whose
supporting documents are known: the measures of bench/paths.py, for any corpus and questions (#48)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..errors import JudgeAgentError
from ..files import json_kind, json_records, jsonl_records, read_text
from .model import ContextGraph
from .sample import PathSampler

SEED_STRIDE = 1_000_003
"""Seed k of question i is k * SEED_STRIDE + i (bench/paths.py's schedule): one random stream per question."""
SPREAD_DEPTH = 50
"""How deep `at_spread` reads the dense ranking first (all of it where that is not enough)."""


class SupportedQuestion(NamedTuple):
    question: str
    support: frozenset[str]
    """The ids of its supporting documents that the graph holds."""


class PathHits(NamedTuple):
    chunk_share: float
    """The share of the path's distinct chunks that come from a supporting document."""
    touched: bool
    """Whether any of them does."""
    n_docs: int
    """Distinct documents on the path."""


def path_hits(docs: Sequence[str], support: frozenset[str] | set[str]) -> PathHits:
    """`docs`: the document of each distinct chunk of a path, in path order."""
    hits = [d in support for d in docs]
    return PathHits(sum(hits) / len(hits), any(hits), len(set(docs)))


def dense_at_spread(ranked: Sequence[str], doc_of: Mapping[str, str], chunks: int, docs: int) -> list[str] | None:
    """Dense at a path's spread: the first chunks of a dense ranking, in rank order, that make `chunks` chunks
    over exactly `docs` documents (a chunk of a new document while fewer are taken; one of a taken document while
    the slots left still hold the documents still needed), so the ranking's first `docs` documents. None where those
    hold fewer than `chunks` of its chunks between them."""
    taken: list[str] = []
    held: set[str] = set()
    for chunk in ranked:
        if len(taken) == chunks:
            break
        new = doc_of[chunk] not in held
        if (len(held) < docs) if new else (chunks - len(taken) - 1 >= docs - len(held)):
            taken.append(chunk)
            held.add(doc_of[chunk])
    return taken if len(taken) == chunks and len(held) == docs else None


def at_spread(dense: PathSampler, question: str, paths: Sequence[Sequence[str]],
              doc_of: Mapping[str, str]) -> list[list[str] | None]:
    """Per graph path of `question`, dense at its spread (`dense_at_spread`: as many distinct chunks over as many
    documents), from `dense`'s ranking. A graph path keeps walk.DOC_FLOOR documents per hop where dense
    top-k need not: on questions with one supporting document (PubMedQA) a path over 3 documents can take at most a
    third of its chunks from it, whatever it picks. This asks whether the walk picks as well as the ranking does
    at the same spread."""
    n = len(dense.graph.chunk_ids)
    ranked = dense.dense([question], min(SPREAD_DEPTH, n), 0)
    out = []
    for path in paths:
        chunks = list(dict.fromkeys(path))
        want = (len(chunks), len({doc_of[c] for c in chunks}))
        found = dense_at_spread(ranked, doc_of, *want)
        if found is None and len(ranked) < n:
            ranked = dense.dense([question], n, 0)
            found = dense_at_spread(ranked, doc_of, *want)
        out.append(found)
    return out


def spread_hits(dense: PathSampler, question: str, support: frozenset[str] | set[str], paths: Sequence[Sequence[str]],
                doc_of: Mapping[str, str]) -> list[tuple[PathHits, PathHits, tuple[str, ...]]]:
    """Per graph path that dense can match at its spread (`at_spread`): the graph path's hits, dense's there, and
    dense's chunks."""
    def hits(chunks: Sequence[str]) -> PathHits:
        return path_hits([doc_of[c] for c in dict.fromkeys(chunks)], support)

    return [(hits(g), hits(m), tuple(m)) for g, m in zip(paths, at_spread(dense, question, paths, doc_of))
            if m is not None]


def read_supported_questions(file: Path, graph: ContextGraph, question_field: str = "question",
                             support_field: str = "supporting_doc_ids") -> tuple[list[SupportedQuestion], int]:
    """The questions of a JSON Lines or JSON file with their supporting documents in the graph, and how many
    were left out because none of theirs is in it."""
    if file.suffix.lower() not in (".jsonl", ".json"):
        raise JudgeAgentError(f"{file}: questions are read from a .jsonl or .json file; convert it to JSON lines")
    text = read_text(file)
    records = json_records(file, text) if file.suffix.lower() == ".json" else jsonl_records(file, text)
    graph_docs, kept, skipped = set(graph.doc_ids), [], 0
    for record, where in records:
        if not isinstance(record, dict):
            raise JudgeAgentError(f"{where}: a question should be a JSON object, got {json_kind(record)}")
        for name, option in ((question_field, "--question-field"), (support_field, "--support-field")):
            if name not in record:
                raise JudgeAgentError(f"{where}: no field '{name}' (fields: {', '.join(map(repr, record)) or 'none'});"
                                      f" name yours with {option}")
        question, support = record[question_field], record[support_field]
        if not isinstance(question, str) or not question.strip():
            got = "an empty string" if isinstance(question, str) else json_kind(question)
            raise JudgeAgentError(f"{where}: field '{question_field}' should be the question's text, got {got}")
        if not isinstance(support, list) or not all(isinstance(d, str) for d in support):
            got = json_kind(support) if not isinstance(support, list) else "a list holding " + json_kind(
                next(d for d in support if not isinstance(d, str)))
            raise JudgeAgentError(f"{where}: field '{support_field}' should be a list of document ids (strings), "
                                  f"got {got}")
        inside = frozenset(support) & graph_docs
        if inside:
            kept.append(SupportedQuestion(question, inside))
        else:
            skipped += 1
    if not kept and not skipped:
        raise JudgeAgentError(f"{file}: holds no questions; give one record per question with '{question_field}' "
                              f"and '{support_field}'")
    if not kept:
        example = graph.doc_ids[0] if graph.doc_ids else "none"
        raise JudgeAgentError(f"{file}: none of its {skipped} questions has a supporting document in the graph "
                              f"(the graph's doc_ids look like {example!r}); give questions about its corpus")
    return kept, skipped


@dataclass(frozen=True)
class WayFigures:
    chunk_share: float
    touch_share: float
    docs_per_path: float
    distinct_paths: float
    """Distinct paths over the seeds, per question."""


@dataclass(frozen=True)
class Ratio:
    value: float | None
    """Graph over dense; None where dense never reached a supporting document."""
    low: float | None
    """The interval's ends; None where every resample's shares were 0, `high` inf where a resample's dense share was
    0 and the graph's was not."""
    high: float | None


@dataclass(frozen=True)
class Miss:
    """A question whose graph paths take fewer chunks from its supporting documents than dense top-k: what to read
    to find why (the causes #48 lists were found by reading such paths)."""

    question: str
    support: list[str]
    graph_share: float
    """Its graph paths' chunk share, mean over the seeds."""
    dense_share: float
    seed: str
    """The first seed's path: the mention it started from, its kind, its entities and its chunks' documents."""
    seed_kind: str
    entities: list[str]
    path_docs: list[str]
    dense_docs: list[str]
    """Dense top-k's documents for the first seed, in rank order."""


@dataclass(frozen=True)
class PathsCheck:
    questions: int
    skipped: int
    seeds: int
    hops: int
    graph: WayFigures
    dense: WayFigures
    touch_ratio: Ratio
    chunk_ratio: Ratio
    level: float
    spread: WayFigures | None = None
    """Dense at each graph path's spread (`at_spread`), over the paths it matched."""
    spread_ratio: Ratio = Ratio(None, None, None)
    """Graph over dense at its spread, chunks from supporting documents, over the same paths."""
    unmatched: int = 0
    """Graph paths whose spread the dense ranking could not give (left out of `spread` and `spread_ratio`)."""
    misses: list[Miss] = field(default_factory=list)
    """The questions furthest below dense (chunks from support), the furthest first."""
    graph_by_hop: list[float] = field(default_factory=list)
    """Per hop, the share of graph paths whose chunk there is from a supporting document."""
    dense_by_rank: list[float] = field(default_factory=list)
    """Per rank, the same for dense top-k: where along a path the graph gains or loses against the ranking."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_paths(graph: ContextGraph, questions: Sequence[SupportedQuestion], *, seeds: int = 5, hops: int = 3,
                resamples: int = 2000, level: float = 0.95, skipped: int = 0, sampler: PathSampler | None = None,
                misses: int = 5) -> PathsCheck:
    """Each question's graph path and dense top-`hops` chunks for each scheduled seed (a batch of one question,
    as bench/paths.py measures); the ratios' intervals resample questions, the same ones for both ways. `misses`:
    how many of the questions furthest below dense to list, with their first paths."""
    sampler = sampler or PathSampler(graph)
    dense = PathSampler(graph, sampler.extractor, sampler.encoder)  # its own cache, as bench/paths.py
    doc_of = dict(zip(graph.chunk_ids, graph.chunk_doc_ids))
    per_way: dict[str, list[list[PathHits]]] = {"graph": [], "dense": [], "spread": [], "graph at spread": []}
    distinct: dict[str, list[int]] = {"graph": [], "dense": [], "spread": []}
    below: list[Miss] = []
    by_position: dict[str, list[list[bool]]] = {"graph": [], "dense": []}
    for i, (question, support) in enumerate(questions):
        scheduled = [k * SEED_STRIDE + i for k in range(seeds)]
        sampled = [sampler.sample([question], hops=hops, seed=s) for s in scheduled]
        graph_paths = [p.chunk_ids for p in sampled]
        dense_paths = [dense.dense([question], hops, s) for s in scheduled]
        for way, paths in (("graph", graph_paths), ("dense", dense_paths)):
            per_way[way].append([path_hits([doc_of[c] for c in dict.fromkeys(p)], support) for p in paths])
            distinct[way].append(len({tuple(p) for p in paths}))
            by_position[way] += [[doc_of[c] in support for c in p] for p in paths]
        shares = [float(np.mean([h.chunk_share for h in per_way[way][-1]])) for way in ("graph", "dense")]
        if shares[0] < shares[1] - 1e-9:  # a tie summed in another order is not a miss
            first = sampled[0]
            below.append(Miss(question, sorted(support), *shares, first.seed, first.seed_kind, first.entities,
                              [doc_of[c] for c in first.chunk_ids], [doc_of[c] for c in dense_paths[0]]))
        matched = spread_hits(dense, question, support, graph_paths, doc_of)
        if matched:
            per_way["graph at spread"].append([g for g, _, _ in matched])
            per_way["spread"].append([h for _, h, _ in matched])
            distinct["spread"].append(len({m for _, _, m in matched}))
    figures = {way: _figures(per_way[way], distinct[way]) for way in ("graph", "dense")}
    ratios = [_ratio([[getattr(h, field) for h in row] for row in per_way["graph"]],
                     [[getattr(h, field) for h in row] for row in per_way["dense"]], resamples, level)
              for field in ("touched", "chunk_share")]
    spread = per_way["spread"]
    return PathsCheck(
        len(questions), skipped, seeds, hops, figures["graph"], figures["dense"], *ratios, level,
        spread=_figures(spread, distinct["spread"]) if spread else None,
        spread_ratio=_ratio([[h.chunk_share for h in row] for row in per_way["graph at spread"]],
                            [[h.chunk_share for h in row] for row in spread], resamples, level)
        if spread else Ratio(None, None, None),
        unmatched=len(questions) * seeds - sum(map(len, spread)),
        misses=sorted(below, key=lambda m: m.graph_share - m.dense_share)[:misses],  # stable: file order in ties
        graph_by_hop=_by_position(by_position["graph"], hops), dense_by_rank=_by_position(by_position["dense"], hops))


def _by_position(paths: list[list[bool]], hops: int) -> list[float]:
    """Per position, the share of the paths long enough to have one whose chunk there is supporting."""
    return [float(np.mean([p[k] for p in paths if len(p) > k])) for k in range(hops)
            if any(len(p) > k for p in paths)]


def _figures(rows: list[list[PathHits]], distinct: list[int]) -> WayFigures:
    hits = [h for row in rows for h in row]
    return WayFigures(float(np.mean([h.chunk_share for h in hits])), float(np.mean([h.touched for h in hits])),
                      float(np.mean([h.n_docs for h in hits])), float(np.mean(distinct)))


def _ratio(graph: list[list[float]], dense: list[list[float]], resamples: int, level: float) -> Ratio:
    """Mean over every path, graph over dense (questions with fewer matched paths weigh less, as in bench/paths.py);
    a percentile interval over questions drawn with replacement, the same draw for both ways. A draw where dense's
    mean is 0 counts as an unbounded ratio, so the interval's top is not cut."""
    (gs, gn), (ds, dn) = ((np.array([sum(row) for row in rows], dtype=float), np.array([len(row) for row in rows]))
                          for rows in (graph, dense))
    if not dn.sum() or ds.sum() == 0:
        return Ratio(None, None, None)
    value = float((gs.sum() / gn.sum()) / (ds.sum() / dn.sum()))
    idx = np.random.default_rng(0).integers(0, len(gs), size=(resamples, len(gs)))
    gm, dm = gs[idx].sum(1) / gn[idx].sum(1), ds[idx].sum(1) / dn[idx].sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(dm > 0, gm / dm, np.where(gm > 0, np.inf, np.nan))
    ratios = ratios[~np.isnan(ratios)]  # both 0: no ratio to speak of
    if not len(ratios):
        return Ratio(value, None, None)
    # Linear interpolation toward an unbounded draw is undefined (inf - inf): then the nearest draw above.
    method = "higher" if np.isinf(ratios).any() else "linear"
    lo, hi = np.percentile(ratios, [(1 - level) / 2 * 100, (1 + level) / 2 * 100], method=method)
    return Ratio(value, float(lo), float(hi))


def render_check(result: PathsCheck) -> str:
    left = f" ({result.skipped} left out: none of their supporting documents is in the graph)" if result.skipped else ""
    lines = [f"{result.questions} questions{left}, {result.seeds} seeds, {result.hops} hops",
             f"  {'way':<6} {'chunks from support':>19} {'paths touching':>14} {'docs/path':>9} {'distinct/q':>10}"]
    for way, f in (("graph", result.graph), ("dense", result.dense), ("spread", result.spread)):
        if f is not None:
            lines.append(f"  {way:<6} {f.chunk_share:>19.3f} {f.touch_share:>14.3f} {f.docs_per_path:>9.2f} "
                         f"{f.distinct_paths:>10.2f}")
    never, unmatched = "dense never reached one", "the ranking could not match any graph path"
    for what, ratio, none in ((f"top-{result.hops}, paths touching a supporting document", result.touch_ratio, never),
                              (f"top-{result.hops}, chunks from supporting documents", result.chunk_ratio, never),
                              ("at the graph's spread, chunks from supporting documents", result.spread_ratio,
                               never if result.spread else unmatched)):
        lines.append(f"  RATIO graph / dense {what}: {_ratio_text(ratio, result.level, none)}")
    left = f", {result.unmatched} graph paths left out: the ranking could not match them" if result.unmatched else ""
    lines.append(f"  (spread: dense's top chunks over as many documents as each graph path, in rank order{left})")
    lines.append(f"  by position, chunk from support: graph hop {' / '.join(f'{v:.3f}' for v in result.graph_by_hop)}"
                 f"; dense rank {' / '.join(f'{v:.3f}' for v in result.dense_by_rank)}")
    if result.misses:
        lines.append(f"Furthest below dense top-{result.hops} (chunks from support, mean over the seeds; the first "
                     "seed's paths, * a supporting document):")
    for n, m in enumerate(result.misses, 1):
        lines += [f"{n:>2}. graph {m.graph_share:.3f}, dense {m.dense_share:.3f}: {m.question}",
                  f"    graph: from {m.seed!r} ({m.seed_kind}) through {' > '.join(m.entities)}; documents "
                  f"{_starred(m.path_docs, m.support)}",
                  f"    dense: documents {_starred(m.dense_docs, m.support)}; support {_starred(m.support, m.support)}"]
    return "\n".join(lines)


def _ratio_text(ratio: Ratio, level: float, none: str) -> str:
    if ratio.value is None:
        return f"n/a ({none})"
    if ratio.low is None:
        return f"{ratio.value:.3f} (no interval: every resample's shares were 0)"
    return f"{ratio.value:.3f} ({level:.0%} interval {ratio.low:.3f}-{ratio.high:.3f})"


def _starred(docs: list[str], support: list[str]) -> str:
    return ", ".join(d + "*" * (d in support) for d in docs)
