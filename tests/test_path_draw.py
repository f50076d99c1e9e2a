"""Which walk of a pool a path takes (#48, ninth pass): drawn by score at a point the seed spreads, the pool's document
floor held under the weights, and walks heading for the documents that hold the question's mentions."""
import json

import numpy as np

from judgeagent.graph import sample, walk
from judgeagent.graph.relevance import path_hits
from judgeagent.graph.sample import PathSampler

from .conftest import DATA

STRIDE = 1_000_003  # bench/paths.py's and paths-check's seed schedule: seed k of question i is k * STRIDE + i


def _walk(score: float, chunks: tuple[int, ...]) -> walk.Walk:
    return walk.Walk(tuple(range(len(chunks))), chunks, score)


def test_a_questions_seeds_take_different_walks_of_a_pool():
    """Five seeds of the benchmark's schedule, and a run's consecutive rounds, fall on five different walks of a pool
    of 25 equally weighted ones, for every question and pool turn; random points would repeat a walk in about a third
    of the questions (5 draws among 25)."""
    total = np.cumsum(np.ones(25))
    for i in range(200):
        offset = sample._pool_offset(("a question", i))
        assert len({sample._drawn_walk(total, k * STRIDE + i, offset) for k in range(5)}) == 5
        assert len({sample._drawn_walk(total, 1009 * i + r, offset) for r in range(5)}) == 5
    # the pools' turns spread seed 0 (whose point is 0) over every walk, not always a pool's best one
    assert len({sample._drawn_walk(total, 0, sample._pool_offset(("a question", i))) for i in range(200)}) >= 20
    # exact for any seed: no float rounding of seed / golden ratio for a large one
    assert sample._spread_point(2 ** 70 + 1) == sample._spread_point(1 + (2 ** 70 % 2 ** 64))
    assert len({round(sample._spread_point(2 ** 62 + k), 6) for k in range(5)}) == 5


def test_the_draw_favours_a_pools_best_walks():
    """A walk 0.3 below the best is drawn e times less often (DRAW_TEMPERATURE): over 10,000 seeds the drawn shares
    follow the weights."""
    pool = [_walk(s, (i, i + 100, i + 200)) for i, s in enumerate([2.0, 1.7, 1.4, 1.4])]
    chunk_doc = np.arange(400)  # a document per chunk: every walk spans 3, the floor holds
    total = sample._draw_weights(pool, chunk_doc, walk.DOC_FLOOR * 3)
    drawn = np.bincount([sample._drawn_walk(total, s, 0.25) for s in range(10_000)], minlength=4) / 10_000
    expected = np.exp((np.array([2.0, 1.7, 1.4, 1.4]) - 2.0) / sample.DRAW_TEMPERATURE)
    assert np.allclose(drawn, expected / expected.sum(), atol=0.01)


def test_the_weighted_draw_still_spans_the_documents_the_floor_asks():
    """A pool whose best walks stay in one document: the weights are tilted until the draw spans 2.5 documents per 3
    hops on average, and no further; a pool that spans enough under the weights keeps them."""
    chunk_doc = np.arange(20)
    chunk_doc[:3] = 0
    narrow = [_walk(3.0, (0, 1, 2))]  # one document
    wide = [_walk(2.0 - 0.01 * i, (3 + 3 * i, 4 + 3 * i, 5 + 3 * i)) for i in range(5)]  # three each, 1 below
    total = sample._draw_weights(narrow + wide, chunk_doc, 2.5)
    weights = np.diff(np.r_[0.0, total])
    docs = np.array([1, 3, 3, 3, 3, 3])
    assert abs(weights @ docs / weights.sum() - 2.5) < 1e-6  # untilted it would be 1.30
    assert weights[0] > weights[1:].max()  # tilted, not flattened: the best walk still weighs the most
    spread = sample._draw_weights(wide, chunk_doc, 2.5)
    assert np.allclose(np.diff(np.r_[0.0, spread]), np.exp(-0.01 * np.arange(5) / 0.3))
    # a pool that cannot reach the floor is held to its own average, not to all weight on its widest walk
    short = sample._draw_weights(narrow * 3 + [_walk(1.0, (3, 4, 4))], chunk_doc, 2.5)
    w = np.diff(np.r_[0.0, short])
    assert abs(w @ np.array([1, 1, 1, 2]) / w.sum() - 1.25) < 1e-6


def test_walks_head_for_the_documents_that_hold_the_questions_mentions(mhr_slice_graph, extractor, encoder):
    """MENTIONED_DOC: a chunk's walk score rises by 0.05 for each of the question's mentions with a node that its
    document holds, at most two; the similarities a path records stay the question's own."""
    g = mhr_slice_graph
    sampler = PathSampler(g, extractor, encoder, reader="thread")
    lines = (DATA / "multihop_rag" / "small.questions.jsonl").read_text().splitlines()
    questions = [json.loads(x)["question"] for x in lines]
    question, linked = next((q, sampler._linked(m)) for q, m in zip(questions, extractor.extract(questions))
                            if len(sampler._linked(m)) >= 3)
    similarity = encoder.encode([question])[0] @ g.chunk_vectors.T
    added = sampler._toward(similarity, np.zeros(0, dtype=np.int64), linked) - similarity
    held = np.zeros(len(g.doc_ids))
    for e in linked:
        held[g.docs_of(int(e))] += 1
    chunk_doc = sampler._walks_on.chunk_doc
    assert np.allclose(added, 0.05 * np.minimum(held, 2)[chunk_doc], atol=1e-6)
    assert {0.0, 0.05, 0.1} <= set(np.round(added, 4).tolist())
    path = sampler.sample(question, hops=3, seed=1)
    assert path.similarities == [round(float(similarity[g.chunk_row[c]]), 4) for c in path.chunk_ids]


def test_drawn_paths_take_more_from_supporting_documents_than_their_pools_average(hotpot_graph, extractor, encoder):
    """On HotpotQA small's real questions, each path of 5 scheduled seeds against the pool it was drawn from: the paths
    take more of their chunks from supporting documents than a uniform draw of the same pools would on average, and
    vary as much across seeds."""
    g = hotpot_graph
    sampler = PathSampler(g, extractor, encoder, reader="thread")

    def share(chunks: list[str], support: set[str]) -> float:
        return path_hits([g.doc_of[c] for c in dict.fromkeys(chunks)], support).chunk_share

    drawn, uniform, distinct = [], [], []
    for i, line in enumerate((DATA / "hotpotqa" / "small.questions.jsonl").read_text().splitlines()):
        rec = json.loads(line)
        question, support = rec["question"], set(rec["supporting_doc_ids"])
        paths = [sampler.sample(question, hops=3, seed=k * STRIDE + i) for k in range(5)]
        distinct.append(len({tuple(p.chunk_ids) for p in paths}))
        for k, p in enumerate(paths):
            pool = sampler.drawn_from(question, hops=3, seed=k * STRIDE + i)  # the walks p was drawn from
            drawn.append(share(p.chunk_ids, support))
            uniform.append(np.mean([share(chunks, support) for chunks, _ in pool]))
    assert np.mean(drawn) >= np.mean(uniform) + 0.03
    assert np.mean(distinct) >= 3.5


def test_the_odds_a_path_is_drawn_with_are_those_its_draws_follow(hotpot_graph, extractor, encoder):
    """PathSampler.drawn_from: the walks a path is drawn from and their odds, summing to 1; over 2,000 seeds from
    one seed candidate (its pool fixed) each walk is drawn as often as its odds say, and every path is one of them;
    with the seed candidate drawn too, each seed's path is among the walks drawn_from gives for that seed."""
    g = hotpot_graph
    sampler = PathSampler(g, extractor, encoder, reader="thread")
    questions = [json.loads(line)["question"] for line in (DATA / "hotpotqa" / "small.questions.jsonl").read_text().splitlines()]
    question = max(questions[:10], key=lambda q: len(sampler.drawn_from(q, hops=3, seed=0, start=0)))  # small pools abound
    odds = sampler.drawn_from(question, hops=3, seed=0, start=0)
    assert abs(sum(p for _, p in odds) - 1) < 1e-12
    assert len(odds) > 5 and max(p for _, p in odds) > 2 * min(p for _, p in odds)  # weighted, not uniform
    counts = {tuple(chunks): 0 for chunks, _ in odds}
    for seed in range(2000):
        counts[tuple(sampler.sample(question, hops=3, seed=seed, start=0).chunk_ids)] += 1  # KeyError: not in the pool
    assert sum(abs(counts[tuple(chunks)] / 2000 - p) for chunks, p in odds) / 2 < 0.02  # total variation distance
    for seed in range(20):
        path = sampler.sample(question, hops=3, seed=seed)
        assert path.chunk_ids in [chunks for chunks, p in sampler.drawn_from(question, hops=3, seed=seed) if p > 0]
