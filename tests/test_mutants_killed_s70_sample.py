"""Tests written at stop 70 against the survivors of the first mutation run of graph/sample.py (the knowledge-path
sampler: seeds, pools and the draw), each named by the behaviour it pins; the mutant it kills is in the comment above
it."""
from __future__ import annotations

import json

import numpy as np

from judgeagent.graph.sample import PathSampler, _drawn_seed, _Seed

from .conftest import DEMO


def test_a_seed_draw_by_hand_and_at_the_top_of_the_unit_interval():
    # sample.py:860 (`.clip(0, len(seeds) - 1)` -> `+ 1`): weights 0.1, 0.2, 0.3 split [0, 1) at 1/6 and 1/2; their
    # running total over the sum ends at 0.9999999999999999, below 1, so the largest draw under 1 that
    # `rng.random()` can give lies past it and is held to the last seed, not a position past the list
    seeds = [_Seed(0, name, "named", 0, 0.5, weight) for name, weight in (("a", 0.1), ("b", 0.2), ("c", 0.3))]
    assert [_drawn_seed(seeds, u) for u in (0.0, 0.16, 1 / 6 + 1e-9, 0.49, 0.5, 0.9)] == [0, 0, 1, 1, 2, 2]
    top = float(np.nextafter(1.0, 0.0))
    weights = np.array([0.1, 0.2, 0.3])
    assert np.cumsum(weights / weights.sum())[-1] <= top  # the case: the total falls short of 1
    assert _drawn_seed(seeds, top) == 2


def test_drawn_from_lists_the_walks_sample_takes_with_its_defaults(demo_graph, extractor, encoder):
    # sample.py:282 (`drawn_from`'s `candidates=5` -> 6): the demo's question about the International Space Station
    # has one seed; its 2-hop pool holds `candidates` walks (5 by default, 6 at 6), and `sample` over 60 seeds takes
    # exactly the walks `drawn_from` lists with the same (default) arguments
    sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
    question = next(q for q in (json.loads(line)["question"] for line in (DEMO / "questions.jsonl").read_text(
        encoding="utf-8").splitlines()) if "International Space Station" in q)
    odds = sampler.drawn_from(question, hops=2, seed=0)
    assert len(odds) == 5 and len(sampler.drawn_from(question, hops=2, seed=0, candidates=6)) == 6
    assert abs(sum(p for _, p in odds) - 1) < 1e-12
    taken = {tuple(sampler.sample(question, hops=2, seed=seed).chunk_ids) for seed in range(60)}
    assert taken == {tuple(chunks) for chunks, _ in odds}
