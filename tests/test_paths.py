"""Knowledge paths stay on topic (#10): measured against the supporting documents of real questions.

The floors are well under what bench/paths.py measured on the same splits (bench/README.md): a
regression guard for relevance and breadth, not a benchmark."""
import json

import numpy as np
import pytest

from judgeagent.entities import CONCEPT
from judgeagent.graph import walk
from judgeagent.graph.sample import BRIDGE_MARGIN, FIT_MARGIN, PathSampler
from judgeagent.graph.specificity import GENERIC

from .conftest import DATA


def _questions(dataset: str, graph) -> list[tuple[str, set[str]]]:
    docs = set(graph.doc_ids)
    out = []
    for line in (DATA / dataset / "small.questions.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        support = set(rec["supporting_doc_ids"]) & docs
        if support:
            out.append((rec["question"], support))
    return out


# The MultiHop-RAG case is slow by hand: it needs the whole small split's graph (`mhr_graph`, ~100 CPU s to build) for
# its 20 questions, and no other fast test takes that graph (#47).
@pytest.mark.parametrize("dataset, fixture", [pytest.param("multihop_rag", "mhr_graph", marks=pytest.mark.slow),
                                              ("hotpotqa", "hotpot_graph")])
def test_paths_reach_supporting_documents_across_documents(dataset, fixture, request, extractor, encoder):
    graph = request.getfixturevalue(fixture)
    sampler = PathSampler(graph, extractor, encoder)
    doc_of = dict(zip(graph.chunk_ids, graph.tables["chunks"].column("doc_id").to_pylist()))
    questions = _questions(dataset, graph)
    assert len(questions) >= 20
    touched, shares, n_docs, named, dense = [], [], [], [], []
    for question, support in questions:
        dense.append(any(doc_of[c] in support for c in sampler.dense(question, hops=3)))
        for seed in range(3):
            path = sampler.sample(question, hops=3, seed=seed)
            docs = [doc_of[c] for c in dict.fromkeys(path.chunk_ids)]
            touched.append(any(d in support for d in docs))
            shares.append(sum(d in support for d in docs) / len(docs))
            n_docs.append(len(set(docs)))
            if path.seed_kind == "named":
                named.append(touched[-1])
    # Measured (3 seeds): touching 1.00 on both, dense top-3 also 1.00; chunks from support 0.64 / 0.57
    # (the sampler before issue 29's pool of best walks: 0.52 / 0.56); 2.7 / 2.9 documents per path.
    assert np.mean(touched) >= 0.8 and np.mean(touched) >= 0.85 * np.mean(dense)
    assert len(named) >= 15 and np.mean(named) >= 0.8
    assert np.mean(shares) >= (0.58 if dataset == "multihop_rag" else 0.35)
    assert np.mean(n_docs) >= 2.5
    assert np.mean([n >= 2 for n in n_docs]) >= 0.85


def test_seeds_reproducible_and_varied(mhr_slice_graph, extractor, encoder):
    sampler = PathSampler(mhr_slice_graph, extractor, encoder)
    questions = [q for q, _ in _questions("multihop_rag", mhr_slice_graph)][:8]
    distinct = []
    for question in questions:
        paths = [sampler.sample(question, hops=3, seed=s) for s in range(5)]
        distinct.append(len({tuple(p.chunk_ids) for p in paths}))
        assert sampler.sample(question, hops=3, seed=3) == paths[3]
    fresh = PathSampler(mhr_slice_graph, extractor, encoder)  # no cached batches or vectors
    assert fresh.sample(questions[0], hops=3, seed=2) == sampler.sample(questions[0], hops=3, seed=2)
    assert np.mean(distinct) >= 3.5  # measured 5.0 of 5


def test_hops_follow_links_and_explanation_matches_the_path(hotpot_graph, extractor, encoder):
    g = hotpot_graph
    sampler = PathSampler(g, extractor, encoder)
    for question, _ in _questions("hotpotqa", g)[:10]:
        q_vec = encoder.encode([question])[0]
        best = float((g.chunk_vectors @ q_vec).max())
        labels = {m.surface: m.label for m in extractor.extract([question])[0]}
        # Linked through the question (issue 29): the nodes it names, and its best chunk's entities.
        through = {g.entity_row[m.name] for m in extractor.extract([question])[0] if m.name in g.entity_row}
        best_chunk = int((g.chunk_vectors @ q_vec).argmax())
        through |= {e for e in range(g.n_entities) if best_chunk in set(g.chunks_of(e).tolist())}
        for seed in range(3):
            path = sampler.sample(question, hops=3, seed=seed)
            for prev, nxt in zip(path.entity_ids, path.entity_ids[1:]):
                assert nxt in set(g.neighbours(prev).tolist()) | through
            for entity, chunk_id in zip(path.entity_ids, path.chunk_ids):
                assert g.chunk_row[chunk_id] in set(g.chunks_of(entity).tolist())
            expected = [float(g.chunk_vectors[g.chunk_row[c]] @ q_vec) for c in path.chunk_ids]
            assert path.similarities == pytest.approx(expected, abs=1e-3)
            # The seed: a mention of the question (or the question itself), whose chunk fits nearly as
            # well as the question's best chunk (a named mention, maybe a bridge entity, less nearly).
            if path.seed_kind == "question":
                assert path.seed == question
            else:
                assert (labels[path.seed] == CONCEPT) == (path.seed_kind == "concept")
                assert g.specificity[path.entity_ids[0]] >= GENERIC
            margin = BRIDGE_MARGIN if path.seed_kind == "named" else FIT_MARGIN
            assert path.similarities[0] >= best - margin - 1e-3
            assert path.to_dict()["similarities"] == path.similarities


def test_a_batch_seeds_from_its_questions(mhr_slice_graph, extractor, encoder):
    sampler = PathSampler(mhr_slice_graph, extractor, encoder)
    batch = [q for q, _ in _questions("multihop_rag", mhr_slice_graph)][:5]
    paths = [sampler.sample(batch, hops=3, seed=s) for s in range(12)]
    assert len({p.question for p in paths}) >= 3
    assert all(p.question in batch for p in paths)


def defined_options(steps: walk.Steps, w: walk.Walk, k: int) -> list[tuple[float, int, int]]:
    """`Steps.options` as its docstring defines it, one entity at a time in plain Python."""
    g, rel = steps.on.graph, steps.relevance.astype(np.float64)
    doc = steps.on.chunk_doc
    seen = {int(doc[c]) for c in w.chunks}
    current = w.entities[-1]
    options = sorted((set(g.neighbours(current).tolist()) | set(steps.linked.tolist())) - set(w.entities))
    fresh = [e for e in options if any(int(doc[c]) not in seen for c in g.chunks_of(e))]
    own = set(g.chunks_of(current).tolist())
    scored = []
    for e in fresh or options:
        chunks = g.chunks_of(e).tolist()
        values = [rel[c] - (walk.ON_PATH if c in w.chunks else 0.0) for c in chunks]
        best = int(np.argmax(values))  # the first of equals
        link = max([0.0] + [float(rel[c]) for c in chunks if c in own])  # never below 0
        if e in steps.linked:
            link = max(link, float(rel.max()))
        score = values[best] - walk.GENERIC_HOP * bool(steps.on.generic[e]) + walk.LINK_WEIGHT * link
        scored.append((score, e, chunks[best]))
    by_chunk: dict[int, tuple[float, int, int]] = {}
    for option in sorted(scored, key=lambda o: -o[0]):  # stable: equal scores keep the entity order
        by_chunk.setdefault(option[2], option)
    return list(by_chunk.values())[:k]


@pytest.mark.parametrize("dataset, fixture", [("multihop_rag", "mhr_slice_graph"), ("hotpotqa", "hotpot_graph")])
def test_a_pools_next_steps_are_those_of_their_definition(dataset, fixture, request, encoder):
    """The pool's next steps (graph/walk.py) are computed fast (each entity's best chunk once, rescored
    only near the walk's documents): they must be the steps of their definition, entity by entity."""
    g = request.getfixturevalue(fixture)
    for question, _ in _questions(dataset, g)[:2]:
        relevance = encoder.encode([question])[0] @ g.chunk_vectors.T
        best = g.entity_chunks.T.tocsr()[int(np.argmax(relevance))].indices
        steps = walk.Steps(walk.WalkIndex(g, g.specificity < GENERIC), relevance, np.unique(best[:3]),
                           ("chunk", "document"))
        own = g.chunks_of(int(best[0]))
        start = walk.Walk((int(best[0]),), (int(own[np.argmax(relevance[own])]),), 0.0)
        walks = walk.pool(steps, start, hops=3, k=5)
        second = sorted({walk.Walk(w.entities[:2], w.chunks[:2], 0.0) for w in walks}, key=lambda w: w.chunks)
        for w in [start, *second[:3], *walks[:3]]:
            fast, defined = steps.options(w, 25), defined_options(steps, w, 25)
            assert [(e, c) for _, e, c in fast] == [(e, c) for _, e, c in defined]
            assert [s for s, _, _ in fast] == pytest.approx([s for s, _, _ in defined], abs=1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_entitys_best_chunk_is_that_of_its_definition(hotpot_graph, dtype):
    """`walk.best_chunks` ranks the chunks once (an unstable sort, its runs of equals put in order after it): per
    entity, the best similarity and the first chunk of its row holding it, also where many chunks tie. float64:
    a walk towards named sources adds NAMED_SOURCE to some chunks."""
    g = hotpot_graph
    on = walk.WalkIndex(g, g.specificity < GENERIC)
    multi = np.flatnonzero(np.diff(g.entity_chunks.indptr) > 1)
    assert len(multi) > 20  # the case that needs the ranks: entities in several paragraphs
    rng = np.random.default_rng(7)
    for relevance in (rng.random(len(g.chunk_ids)), np.round(rng.random(len(g.chunk_ids)), 1)):  # 0.0 .. 1.0: ties
        relevance = relevance.astype(dtype)
        best, column = walk.best_chunks(on, relevance)
        for e in range(g.n_entities):
            chunks = g.chunks_of(e)
            first = int(chunks[np.argmax(relevance[chunks])])  # argmax: the first of equals
            assert (column[e], best[e]) == (first, float(relevance[first]))
        assert best.dtype == np.float64


def test_the_best_distinct_steps_are_those_of_a_full_sort():
    """`walk._best_distinct` sorts only a prefix of the scores, cut at a value read off a sample of them: the k best
    scores adding different chunks, best first, ties by position, as a full sort gives; with many ties and few
    chunks (the prefix widens), and lists long enough to be sampled."""
    rng = np.random.default_rng(3)
    for n, chunks, levels in [(30, 5, 4), (600, 40, 50), (3000, 400, 10**6), (3000, 12, 7), (20000, 900, 30)]:
        scores = rng.integers(0, levels, n) / levels
        adds = rng.integers(0, chunks, n)
        for k in (1, 5, 25):
            full = sorted(range(n), key=lambda i: (-scores[i], i))
            defined: list[int] = []
            for i in full:
                if adds[i] not in {adds[j] for j in defined} and len(defined) < k:
                    defined.append(i)
            assert list(walk._best_distinct(scores, adds, k)) == defined


def test_a_documents_title_names_the_entity_it_is_about(hotpot_graph):
    """A home document (ContextGraph.home): its title, cleaned as mention names are, without a qualifier in
    parentheses or after a comma and without a leading article, is an entity it mentions."""
    g = hotpot_graph
    about = {t: (g.entity_names[e] if e >= 0 else None)
             for t, e in zip(g.tables["documents"].column("title").to_pylist(), g.home.tolist())}
    assert about["Laie, Hawaii"] == "laie"
    assert about["The Jump"] == "jump"
    assert about["Monogram (company)"] == "monogram"
    assert about["Ed Roland"] == "ed roland"
    assert about["Ed Roland discography"] is None  # names no entity: "Ed Roland" is not the whole title
    # A longer form in the text: "Richard Leonard Kuklinski", "Nigella Lucy Lawson"
    assert about["Richard Kuklinski"] == "richard kuklinski" and "richard kuklinski" not in _names_in(g, "Richard Kuklinski")
    assert about["Nigella Lawson"] == "nigella lawson" and "nigella lawson" not in _names_in(g, "Nigella Lawson")
    assert about["Recovery of Aristotle"] is None
    assert g.entity_row["ed roland"] in g.home and g.entity_row["texas"] not in g.home


def test_only_an_unambiguous_name_has_a_home(tmp_path):
    """No home for a name two titles give, nor for a part before a comma that is one word of a longer name
    (issue 48: "Young, New South Wales" gave the "young" of a question about Neil Young a 10x seed weight)."""
    from judgeagent import build_graph

    docs = [("Young, New South Wales", "Young is a town in New South Wales, Australia. Young holds a cherry festival."),
            ("Neil Young", "Neil Young is a Canadian singer. Young recorded Harvest in 1972."),
            ("Scott Howell (footballer)", "Scott Howell is a Scottish footballer who played for Dundee."),
            ("Scott Howell (political consultant)", "Scott Howell is an American political consultant in Dallas."),
            ("Laie, Hawaii", "Laie is a town on Oahu. Laie has a temple.")]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"doc_id": str(i), "title": t, "text": x}) + "\n"
                              for i, (t, x) in enumerate(docs)))
    g = build_graph(corpus, tmp_path / "g")
    about = {t: (g.entity_names[e] if e >= 0 else None)
             for t, e in zip(g.tables["documents"].column("title").to_pylist(), g.home.tolist())}
    assert {"young", "neil young", "scott howell", "laie"} <= set(g.entity_row)
    assert about == {"Young, New South Wales": None, "Neil Young": "neil young", "Scott Howell (footballer)": None,
                     "Scott Howell (political consultant)": None, "Laie, Hawaii": "laie"}


def _names_in(g, title: str) -> set[str]:
    d = g.tables["documents"].column("title").to_pylist().index(title)
    m = g.doc_entities
    return {g.entity_names[e] for e in m.indices[m.indptr[d]:m.indptr[d + 1]]}


def test_a_question_naming_a_documents_title_seeds_from_it(hotpot_graph, extractor, encoder):
    """HOME_SEED on HotpotQA small: every question with a seed candidate that a title names has one first,
    and the path from it starts in that home document (not in "Ed Roland discography", more like the
    question), nearly always a supporting one (bench/paths.py measures what it does to relevance)."""
    g = hotpot_graph
    sampler = PathSampler(g, extractor, encoder)
    doc_of = dict(zip(g.chunk_ids, g.tables["chunks"].column("doc_id").to_pylist()))
    doc_row = {d: i for i, d in enumerate(g.doc_ids)}
    found = supporting = elsewhere = 0
    for question, support in _questions("hotpotqa", g):
        options = sampler.seed_options([question])[0]
        if not any(g.entity_row[o["entity"]] in g.home for o in options):
            continue
        found += 1
        first = g.entity_row[options[0]["entity"]]
        assert first in g.home, question
        start = doc_of[sampler.sample([question], seed=0, start=0).chunk_ids[0]]
        assert g.home[doc_row[start]] == first, question
        own = g.chunks_of(first)
        best = own[np.argmax(g.chunk_vectors[own] @ encoder.encode([question])[0])]
        elsewhere += g.home[doc_row[doc_of[g.chunk_ids[best]]]] != first
        supporting += start in support
    assert found >= 10
    assert supporting >= 0.9 * found
    assert elsewhere >= 1  # a question whose entity has a chunk more like it outside its home document


# slow by hand: it needs the whole small split's graph (`mhr_graph`, ~100 CPU s to build), which no fast test takes (#47)
@pytest.mark.slow
def test_a_documents_metadata_names_its_publisher(mhr_graph, hotpot_graph):
    """ContextGraph.named_in_meta: a publisher named in `meta.source` maps to exactly its articles, also by
    its part before a qualifier ("The Independent - Life and Style") and without a leading article."""
    g = mhr_graph
    rows = {d: i for i, d in enumerate(g.doc_ids)}
    by_source: dict[str, set[int]] = {}
    for line in (DATA / "multihop_rag" / "small.docs.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        by_source.setdefault(rec["meta"]["source"], set()).add(rows[rec["doc_id"]])
    named = g.named_in_meta
    assert set(named["techcrunch"].tolist()) == by_source["TechCrunch"] and len(by_source["TechCrunch"]) > 10
    assert set(named["verge"].tolist()) == set(named["the verge"].tolist()) == by_source["The Verge"]
    assert set(named["independent"].tolist()) == by_source["The Independent - Life and Style"]
    assert set(named["cnbc"].tolist()) == by_source["Cnbc | World Business News Leader"]
    assert not any(k.startswith("demon") for k in hotpot_graph.named_in_meta)  # lists of sentences: no names


def test_a_question_naming_a_publisher_walks_to_its_articles(mhr_slice_graph, extractor, encoder, monkeypatch):
    """NAMED_SOURCE on MultiHop-RAG small (the slice graph), whose questions name the publishers of their articles: paths take
    more chunks from supporting documents than walks by similarity alone, and record plain similarities."""
    from judgeagent.graph import sample

    doc_of = dict(zip(mhr_slice_graph.chunk_ids, mhr_slice_graph.tables["chunks"].column("doc_id").to_pylist()))
    questions = _questions("multihop_rag", mhr_slice_graph)

    def share(bonus: float) -> float:
        monkeypatch.setattr(sample, "NAMED_SOURCE", bonus)
        sampler = PathSampler(mhr_slice_graph, extractor, encoder)
        shares = []
        for i, (question, support) in enumerate(questions):
            for k in range(5):  # bench/paths.py's seed schedule
                path = sampler.sample(question, hops=3, seed=k * 1_000_003 + i)
                docs = [doc_of[c] for c in dict.fromkeys(path.chunk_ids)]
                shares.append(sum(d in support for d in docs) / len(docs))
        path = sampler.sample(questions[0][0], hops=3, seed=0)
        vectors = mhr_slice_graph.chunk_vectors[[mhr_slice_graph.chunk_ids.index(c) for c in path.chunk_ids]]
        assert path.similarities == pytest.approx((vectors @ encoder.encode([path.question])[0]).tolist(), abs=1e-3)
        return float(np.mean(shares))

    # Measured: 0.68 against 0.62 (issue 48, tenth pass, the bench's 5 scheduled seeds; until then seeds 0, 1, 2 and a
    # margin of 0.015, which a draw a tenth uniform met by 0.0148 only).
    assert share(0.1) >= share(0.0) + 0.03


def test_a_pool_spans_documents():
    """walk._spread: the best walks, the worst of those spanning fewest documents swapped for the best left
    out that span more, until they span the floor on average; in rank order; unchanged when nothing spans more."""
    chunk_doc = np.array([0, 0, 0, 1, 2, 3])
    ranked = [walk.Walk((i,), chunks, -i) for i, chunks in
              enumerate([(0, 1, 2), (0, 1, 3), (0, 3, 4), (1, 2, 5), (0, 1, 4), (0, 3, 4, 5), (2, 3, 5)])]
    # documents: 1, 2, 3, 2, 2, 4, 3
    kept = walk._spread(ranked, 4, chunk_doc, 2.5)
    assert [w.entities[0] for w in kept] == [1, 2, 3, 5]  # walk 0 (one document) out, walk 5 in: 11 / 4
    assert [w.entities[0] for w in walk._spread(ranked, 4, chunk_doc, 0.0)] == [0, 1, 2, 3]
    assert [w.entities[0] for w in walk._spread(ranked[:4], 4, chunk_doc, 2.5)] == [0, 1, 2, 3]
    assert [w.entities[0] for w in walk._spread(ranked, 4, chunk_doc, 3.0)] == [1, 2, 5, 6]


def test_a_pool_leaves_out_walks_far_below_its_best(hotpot_graph, encoder, monkeypatch):
    """POOL_MARGIN on HotpotQA small (60 paragraphs: a seed has few good walks): no pool walk scores more
    than the margin below the pool's best, and some pools are cut short of 25 that would be full without it."""
    g = hotpot_graph
    on = walk.WalkIndex(g, g.specificity < GENERIC)

    def pool(relevance: np.ndarray, start: walk.Walk, margin: float) -> list[walk.Walk]:
        monkeypatch.setattr(walk, "POOL_MARGIN", margin)
        return walk.pool(walk.Steps(on, relevance, np.zeros(0, dtype=np.int64), ("chunk", "document")),
                         start, hops=3, k=5)

    cut = 0
    for question, _ in _questions("hotpotqa", g)[:8]:
        relevance = encoder.encode([question])[0] @ g.chunk_vectors.T
        entity = int(g.entity_chunks.T.tocsr()[int(np.argmax(relevance))].indices[0])
        own = g.chunks_of(entity)
        start = walk.Walk((entity,), (int(own[np.argmax(relevance[own])]),), 0.0)
        kept, every = pool(relevance, start, 1.0), pool(relevance, start, np.inf)
        assert max(w.score for w in kept) - min(w.score for w in kept) <= 1.0 + 1e-9
        cut += len(kept) < len(every) == 25
    assert cut >= 1
