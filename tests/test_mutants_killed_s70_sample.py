"""Tests written at stop 70 against the survivors of the first mutation run of graph/sample.py (the knowledge-path
sampler: seeds, pools and the draw), each named by the behaviour it pins; the mutant it kills is in the comment above
it."""
from __future__ import annotations

import json
from collections import OrderedDict

import numpy as np
import pytest

from judgeagent import JudgeAgentError
from judgeagent.graph.sample import PathSampler, _drawn_seed, _remember, _Seed

from .conftest import DEMO


def _demo_questions() -> list[str]:
    return [json.loads(line)["question"] for line in (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()]


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
    question = next(q for q in _demo_questions() if "International Space Station" in q)
    odds = sampler.drawn_from(question, hops=2, seed=0)
    assert len(odds) == 5 and len(sampler.drawn_from(question, hops=2, seed=0, candidates=6)) == 6
    assert abs(sum(p for _, p in odds) - 1) < 1e-12
    taken = {tuple(sampler.sample(question, hops=2, seed=seed).chunk_ids) for seed in range(60)}
    assert taken == {tuple(chunks) for chunks, _ in odds}



def test_seed_options_give_each_figure_to_four_places_and_the_odds_by_hand(demo_graph, extractor, encoder):
    # sample.py:279 (the probability rounded to 5 places, not 4): the demo's Rosetta question has three seeds of equal
    # fit and no home among them, so their odds are their specificities squared over the sum (SEED_POWER 2)
    sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
    every = sampler.seed_options(_demo_questions())
    figures = [o[k] for options in every for o in options for k in ("fit", "specificity", "probability")]
    assert len(figures) > 60 and all(x == round(x, 4) for x in figures)
    options = every[3]
    assert [o["entity"] for o in options] == ["philae", "rosetta", "comet"] and len({o["fit"] for o in options}) == 1
    squared = demo_graph.specificity[[demo_graph.entity_row[o["entity"]] for o in options]].astype(np.float64) ** 2
    assert [o["probability"] for o in options] == [round(float(x), 4) for x in squared / squared.sum()]
    assert [o["probability"] for o in options] == [0.4238, 0.3138, 0.2623]


def test_drawn_from_takes_one_hop_and_refuses_none(demo_graph, extractor, encoder):
    # sample.py:290 (drawn_from's `hops < 1` -> `<= 1`): one hop is a path of the seed's start chunk alone, drawn
    # with certainty; no hop is refused as `sample` refuses it
    sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
    question = next(q for q in _demo_questions() if "International Space Station" in q)
    path = sampler.sample(question, hops=1, seed=0)
    assert sampler.drawn_from(question, hops=1, seed=0) == [(path.chunk_ids, 1.0)] and len(path.chunk_ids) == 1
    with pytest.raises(JudgeAgentError, match=r"^sampling a path needs hops >= 1$"):
        sampler.drawn_from(question, hops=0, seed=0)


def test_the_samplers_memories_keep_the_256_last_used():
    # sample.py:867 (_REMEMBERED 256 -> 257) and :877 (`popitem(last=False)` -> True, dropping the newest): a batch's
    # or text's memory holds 256 entries; a full one drops the least recently used, and what is read moves to the end
    store: OrderedDict[int, str] = OrderedDict()
    for key in range(256):
        assert _remember(store, key, lambda key=key: f"value {key}") == f"value {key}"
    assert _remember(store, 0, lambda: "made again") == "value 0"  # read: now the most recently used
    assert _remember(store, 256, lambda: "value 256") == "value 256"
    assert len(store) == 256 and 1 not in store and list(store)[-2:] == [0, 256]
    assert _remember(store, 1, lambda: "made again") == "made again"  # dropped, so made again


def test_dense_takes_each_questions_best_chunks_in_turns_by_hand(demo_graph, extractor, encoder):
    # sample.py:686 (dense's `hops=3` -> 4), :700 (`len(taken) < k and row >= 0` -> `or`: every chunk of every turn
    # taken), :735 (`vector`'s `[0]` -> `[1]`): dense's chunks are the questions' best by cosine similarity, taken in
    # turns in the order seed 0 draws, until `hops` of them; a text's vector is the encoder's
    sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
    one, two = _demo_questions()[:2]
    ranked = {q: [demo_graph.chunk_ids[c] for c in np.argsort(-(encoder.encode([q])[0] @ demo_graph.chunk_vectors.T))]
              for q in (one, two)}
    assert sampler.dense(one) == ranked[one][:3]
    first, second = [(one, two)[i] for i in np.random.default_rng(0).permutation(2)]
    taken: list[str] = []
    for rank in range(3):
        for q in (first, second):
            if len(taken) < 3 and ranked[q][rank] not in taken:
                taken.append(ranked[q][rank])
    assert sampler.dense([one, two], hops=3, seed=0) == taken and len(taken) == 3
    assert sampler.vector(one).tobytes() == encoder.encode([one])[0].tobytes()


def test_a_chunk_is_walked_towards_for_at_most_two_of_the_questions_mentions(demo_graph, extractor, encoder):
    # sample.py:63 (MENTIONED_CAP 2 -> 3): three specific entities of one demo document add 0.05 each to its chunks'
    # walk scores, but two at most: 0.1, not 0.15
    sampler = PathSampler(demo_graph, extractor, encoder, reader="thread")
    g, generic = demo_graph, sampler._generic
    doc = next(d for d in range(len(g.doc_ids)) if (~generic[g.entity_docs[:, d].nonzero()[0]]).sum() >= 3)
    entities = g.entity_docs[:, doc].nonzero()[0]
    linked = np.sort(entities[~generic[entities]][:3]).astype(np.int64)
    zeros = np.zeros(len(g.chunk_ids))
    added = sampler._toward(zeros, np.zeros(0, dtype=np.int64), linked)
    held = np.zeros(len(g.doc_ids))
    for e in linked:
        held[g.docs_of(int(e))] += 1
    assert np.allclose(added, 0.05 * np.minimum(held, 2)[sampler._walks_on.chunk_doc])
    assert added[sampler._walks_on.chunk_doc == doc] == pytest.approx(0.1)


class _Wider:
    """The real encoder, said to give vectors of another width."""

    def __init__(self, real):
        self._real = real
        self.dim = real.dim + 1

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_a_sampler_refuses_an_encoder_of_another_width_word_for_word(demo_graph, extractor, encoder):
    # sample.py:200 (' gives ' emptied from the message)
    with pytest.raises(JudgeAgentError) as raised:
        PathSampler(demo_graph, extractor, _Wider(encoder))
    width = demo_graph.entity_vectors.shape[1]
    assert str(raised.value) == (f"embedding model {encoder.name!r} gives {width + 1}-d vectors; the graph has "
                                 f"{width}-d ones")

