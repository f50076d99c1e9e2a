import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from judgeagent import JudgeAgentError, build_graph, sample_path
from judgeagent.graph.sample import FIT_MARGIN, PathSampler

QUESTIONS = [
    "What institution has the power to influence global financial markets with its interest rate decisions?",
    "Which company did Betashares agree to buy a superannuation business from?",
]


@pytest.fixture(scope="module")
def sampler(mhr_slice_graph, extractor, encoder):
    return PathSampler(mhr_slice_graph, extractor, encoder)


def test_same_seed_same_path_other_seeds_vary(sampler):
    a = sampler.sample(QUESTIONS, hops=3, seed=7)
    b = sampler.sample(QUESTIONS, hops=3, seed=7)
    assert a == b
    paths = {tuple(sampler.sample(QUESTIONS, hops=3, seed=s).chunk_ids) for s in range(8)}
    assert len(paths) > 1


def test_path_follows_links_and_chunks_belong_to_entities(sampler, mhr_slice_graph):
    g = mhr_slice_graph
    for seed in range(10):
        path = sampler.sample(QUESTIONS, hops=4, seed=seed)
        assert path.question in QUESTIONS
        assert len(set(path.entity_ids)) == len(path.entity_ids)  # never revisits
        assert len(path.entity_ids) == 4 or path.stopped_early
        for prev, nxt in zip(path.entity_ids, path.entity_ids[1:]):
            assert nxt in set(g.neighbours(prev).tolist())
        for entity, chunk_id in zip(path.entity_ids, path.chunk_ids):
            assert entity in g.tables["entities"].column("entity_id").to_pylist()
            assert chunk_id in g.tables["entities"].column("chunk_ids")[entity].as_py()
        assert path.text == "\n".join(dict.fromkeys(path.chunk_texts))
        assert path.entities == [g.entity_names[e] for e in path.entity_ids]


def test_path_starts_at_the_graph_node_of_its_seed_mention(sampler, mhr_slice_graph, extractor):
    question = "What did the Federal Reserve decide?"
    names = {m.surface: m.name for m in extractor.extract([question])[0]}
    for seed in range(4):
        path = sampler.sample(question, hops=1, seed=seed)
        assert path.seed_kind == "named" and path.entities == [names[path.seed]]


def test_question_without_entities_seeds_from_its_text(sampler):
    path = sampler.sample("What is it?", hops=2, seed=0)
    assert path.seed == "What is it?" and path.seed_kind == "question" and path.entity_ids


def test_stops_early_when_no_neighbour_is_left(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "Zanzibar."}\n{"doc_id": "b", "text": "Madagascar."}\n')
    graph = build_graph(corpus, tmp_path / "g")
    assert graph.counts()["entities"] == 2 and graph.counts()["chunk_links"] == 0
    path = sample_path(graph, "Tell me about Zanzibar.", hops=3, seed=0)
    assert path.entities == ["zanzibar"] and path.stopped_early
    assert "no unvisited neighbour" in path.stop_reason


def test_empty_graph_and_bad_arguments(tmp_path, mhr_slice_graph, sampler):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "It is 42."}\n')
    graph = build_graph(corpus)
    assert graph.counts()["entities"] == 0
    with pytest.raises(JudgeAgentError, match="no entities"):
        sample_path(graph, "anything")
    with pytest.raises(JudgeAgentError, match="hops >= 1"):
        sampler.sample(QUESTIONS, hops=0)


def test_mentions_read_ahead_give_the_same_paths(mhr_slice_graph, extractor, encoder):
    """The online stage runs spaCy on another thread (`read_ahead`) for the questions its rounds' paths will
    start from (`drawn`): the paths must be those the sampler draws when it extracts the mentions itself."""
    seeds = range(4)
    starts = {QUESTIONS[PathSampler.drawn(len(QUESTIONS), seed)] for seed in seeds}
    assert len(starts) == 2  # these seeds start from both questions
    ahead = PathSampler(mhr_slice_graph, extractor, encoder)
    ahead.read_ahead([*QUESTIONS, QUESTIONS[0]])
    ahead.extractor = _Refusing(extractor, "extract")  # sampling must use what was read ahead
    alone = PathSampler(mhr_slice_graph, extractor, encoder)
    for seed in seeds:
        path = ahead.sample(QUESTIONS, hops=3, seed=seed)
        assert path == alone.sample(QUESTIONS, hops=3, seed=seed)
        assert path.question == QUESTIONS[PathSampler.drawn(len(QUESTIONS), seed)]
    assert ahead.seed_options(QUESTIONS) == alone.seed_options(QUESTIONS)
    with pytest.raises(AssertionError, match="ran although"):  # read once, taken by its batch: another reads again
        ahead.sample(QUESTIONS[:1], hops=3, seed=0)


class _Refusing:
    """The real model's identity, but no work: a sampler holding it must read everything from the store."""

    def __init__(self, real, method):
        self._real, self._method = real, method

    def __getattr__(self, name):
        if name == self._method:
            raise AssertionError(f"{self._method} ran although the store holds its result")
        return getattr(self._real, name)


def test_vectors_and_mentions_are_kept_across_runs(tmp_path, mhr_slice_graph, extractor, encoder):
    """Next week's run on the same questions (or a resumed one) reads the questions' vectors and mentions
    from the cache folder: the same paths, and neither spaCy nor the encoder runs again."""
    from judgeagent.features import FeatureStore

    store = FeatureStore(tmp_path)
    first = PathSampler(mhr_slice_graph, extractor, encoder, store=store)
    paths = [first.sample(QUESTIONS, hops=3, seed=s) for s in range(2)]
    assert len(store) >= 2 and (tmp_path / "features.sqlite").is_file()
    store.close()
    again = PathSampler(mhr_slice_graph, _Refusing(extractor, "extract"), _Refusing(encoder, "encode"),
                        store=FeatureStore(tmp_path))
    assert [again.sample(QUESTIONS, hops=3, seed=s) for s in range(2)] == paths
    # Mentions are kept per text (spaCy reads a text alike in any list): a resumed run reads other groups.
    assert again.extract([QUESTIONS[1], QUESTIONS[0]]) == first.extract([QUESTIONS[1], QUESTIONS[0]])
    # Other texts' vectors are not in the store: they are computed (here refused), never answered from another list.
    with pytest.raises(AssertionError, match="ran although"):
        again.sample([QUESTIONS[0], "Which bank raised its interest rates?"], hops=3, seed=0)


def test_a_texts_vector_alone_is_kept_across_runs(tmp_path, mhr_slice_graph, extractor, encoder):
    """Calibration's near misses encode each gold alone: the next run reads those bytes from the store."""
    from judgeagent.features import FeatureStore

    first = PathSampler(mhr_slice_graph, extractor, encoder, store=FeatureStore(tmp_path))
    vector = first.vector("the Federal Reserve")
    first.store.close()
    assert np.array_equal(vector, encoder.encode(["the Federal Reserve"])[0])
    again = PathSampler(mhr_slice_graph, extractor, _Refusing(encoder, "encode"), store=FeatureStore(tmp_path))
    assert np.array_equal(again.vector("the Federal Reserve"), vector)
    with pytest.raises(AssertionError, match="ran although"):
        again.vector("the Bank of England")
    again.store.close()


def test_changed_weights_under_the_same_name_are_not_served_stored_vectors(tmp_path, mhr_slice_graph, extractor, encoder):
    """A local model folder retrained in place keeps its name: the store keys vectors on what the weights make of
    a fixed text too, so the changed model computes its own vectors instead of reading the old model's."""
    import torch

    from judgeagent.embedding import Encoder
    from judgeagent.features import FeatureStore

    first = PathSampler(mhr_slice_graph, extractor, encoder, store=FeatureStore(tmp_path))
    first.sample(QUESTIONS, hops=3, seed=0)
    first.store.close()
    changed = Encoder()
    with torch.no_grad():
        next(changed.model.parameters()).mul_(1.01)
    assert changed.fingerprint != encoder.fingerprint
    again = PathSampler(mhr_slice_graph, extractor, changed, store=FeatureStore(tmp_path))
    vectors = again._fresh(list(QUESTIONS))  # the list the first sampler stored
    again.store.close()
    assert np.array_equal(vectors, changed.encode(list(QUESTIONS)))
    assert not np.array_equal(vectors, encoder.encode(list(QUESTIONS)))


def test_a_question_links_the_things_it_names(tmp_path):
    """Two documents with no entity in common: a question naming both links them (issue 29: a comparison
    question's second paragraph was out of a walk's reach), so the path reaches the other instead of
    stopping (a question naming one of them still stops: the test above)."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "Zanzibar."}\n{"doc_id": "b", "text": "Madagascar."}\n')
    graph = build_graph(corpus, tmp_path / "g")
    for seed in range(3):
        path = sample_path(graph, "Is Zanzibar bigger than Madagascar?", hops=3, seed=seed)
        assert sorted(path.entities) == ["madagascar", "zanzibar"]
        assert path.stopped_early  # two entities, three hops asked: nothing else is linked


def test_a_far_seed_can_reach_the_questions_best_chunk(tmp_path, extractor, encoder):
    """A seed whose chunk is well below the question's best chunk (a bridge entity) is linked to the
    entities of that chunk through the question (issue 29), though no document links them."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "Zanzibar is an island. Its farms grow cloves, nutmeg and cinnamon for export."}\n'
                      '{"doc_id": "b", "text": "Each year the great wildebeest migration crosses the Mara River, '
                      'where crocodiles wait."}\n'
                      '{"doc_id": "c", "text": "Kilimanjaro is the highest mountain in Africa."}\n')
    graph = build_graph(corpus, tmp_path / "g")
    sampler = PathSampler(graph, extractor, encoder)
    question = "Which animals does a traveller from Zanzibar see crossing a river each year?"
    options = sampler.seed_options(question)[0]
    position = [o["entity"] for o in options].index("zanzibar")
    fits = encoder.encode([question])[0] @ graph.chunk_vectors.T
    assert options[position]["fit"] < fits.max() - FIT_MARGIN  # the rule's case: a far seed
    best = graph.chunk_ids[int(fits.argmax())]
    linked = {graph.chunk_ids[c] for e in graph.neighbours(graph.entity_row["zanzibar"]) for c in graph.chunks_of(e)}
    assert best not in linked  # no link in the graph reaches it
    path = sampler.sample(question, hops=2, seed=0, start=position)
    assert path.entities[0] == "zanzibar" and path.chunk_ids[1] == best and not path.stopped_early


def test_a_near_seed_can_reach_the_questions_best_chunk_too(tmp_path, extractor, encoder):
    """A seed whose chunk is within FIT_MARGIN of the question's best chunk, but not it, is linked to that
    chunk's entities as a far one is (issue 48): before, only a far seed was, and this walk stayed in its
    own document ("zanzibar" -> "mainland cross")."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "Zanzibar is an island where ferries from the mainland cross the sea '
                      'each morning."}\n'
                      '{"doc_id": "b", "text": "Each year the great wildebeest migration crosses the Mara River, '
                      'where crocodiles wait."}\n'
                      '{"doc_id": "c", "text": "Kilimanjaro is the highest mountain in Africa."}\n')
    graph = build_graph(corpus, tmp_path / "g")
    sampler = PathSampler(graph, extractor, encoder)
    question = "Which animals cross a river each year, seen by a traveller from Zanzibar?"
    options = sampler.seed_options(question)[0]
    position = [o["entity"] for o in options].index("zanzibar")
    fits = encoder.encode([question])[0] @ graph.chunk_vectors.T
    best = graph.chunk_ids[int(fits.argmax())]
    assert fits.max() - FIT_MARGIN <= options[position]["fit"] < fits.max()  # the case: near, not the best
    path = sampler.sample(question, hops=2, seed=0, start=position)
    assert path.entities[0] == "zanzibar" and path.chunk_ids[1] == best


def test_a_stand_in_is_chosen_by_its_name_before_its_fit(tmp_path, extractor, encoder):
    """A mention the graph has no node for starts from an entity named with its words when one of those named
    most like it is, not from the one whose chunk fits the question best (issue 48); by fit only when none is."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "a", "text": "The Zorblax Institute trains pilots in Quebec."}\n'
                      '{"doc_id": "b", "text": "Pilots of the Quebec air service fly water bombers over forest fires."}\n')
    graph = build_graph(corpus, tmp_path / "g")
    sampler = PathSampler(graph, extractor, encoder)
    row, names = graph.entity_row, graph.entity_names
    near = [row["quebec"], row["zorblax institute"], row["forest fire"]]
    mention = next(m for m in extractor.extract(["Who trains at the Zorblax academy?"])[0] if "zorblax" in m.name)
    assert mention.name not in row
    assert [names[e] for e in sampler._stand_ins(mention, near)] == ["zorblax institute"]
    other = next(m for m in extractor.extract(["Which planes do wardens use?"])[0] if m.name == "plane")
    assert other.name not in row and sampler._stand_ins(other, near) == near  # no name shares a word: all


class _Slow:
    """The real encoder, slowed so that two threads overlap on one batch; counts its texts."""

    def __init__(self, real):
        self._real, self.texts = real, []

    def encode(self, texts, *args, **kwargs):
        self.texts.extend(texts)
        time.sleep(0.3)
        return self._real.encode(texts, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_a_batch_encoded_ahead_on_another_thread_is_encoded_once_with_the_same_paths(mhr_slice_graph, extractor, encoder):
    """The online stage's reader encodes batches the sampler's thread has not reached (`encode_ahead`, issue 31): a
    sample of a batch being encoded waits for it instead of encoding it again, and the paths are those of a
    sampler that encodes itself."""
    slow = _Slow(encoder)
    ahead = PathSampler(mhr_slice_graph, extractor, slow)
    with ThreadPoolExecutor(1) as reader:
        preparing = reader.submit(ahead.encode_ahead, QUESTIONS)
        time.sleep(0.1)  # the reader is inside its encode
        path = ahead.sample(QUESTIONS, hops=3, seed=0)
        preparing.result()
    assert [slow.texts.count(q) for q in QUESTIONS] == [1, 1]  # one encode of the batch, by the reader
    encoded = len(slow.texts)  # and the mentions the graph has no node for
    alone = PathSampler(mhr_slice_graph, extractor, encoder)
    assert path == alone.sample(QUESTIONS, hops=3, seed=0)
    assert ahead.relevance(QUESTIONS, path.chunk_ids) == alone.relevance(QUESTIONS, path.chunk_ids)
    assert len(slow.texts) == encoded  # the record's relevance reads the batch's vectors too


def test_a_batch_whose_encode_ahead_failed_is_encoded_by_its_sample(mhr_slice_graph, extractor, encoder):
    failing = _Slow(encoder)
    failing.encode = lambda texts, *a, **k: (_ for _ in ()).throw(MemoryError("out of memory"))
    sampler = PathSampler(mhr_slice_graph, extractor, failing)
    with pytest.raises(MemoryError):
        sampler.encode_ahead(QUESTIONS)
    sampler.encoder = encoder
    assert sampler.sample(QUESTIONS, hops=3, seed=0) == PathSampler(mhr_slice_graph, extractor, encoder).sample(
        QUESTIONS, hops=3, seed=0)


class _WaitsForRanking:
    """The real encoder; its encode of a question's mentions (a list without the question) waits, up to 5 s, for the
    sampling thread to have ranked the entities' chunks for the question, and notes whether it had."""

    waits_for = "_bests"  # the sampler's attribute that is empty until the sampling thread has made it

    def __init__(self, real, question):
        self._real, self._question, self.ranked_first = real, question, []
        self.sampler = None

    def encode(self, texts, *args, **kwargs):
        if self._question not in texts:
            deadline = time.monotonic() + 5
            while not getattr(self.sampler, self.waits_for) and time.monotonic() < deadline:
                time.sleep(0.01)
            self.ranked_first.append(bool(getattr(self.sampler, self.waits_for)))
        return self._real.encode(texts, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_a_first_path_ranks_its_chunks_while_its_mentions_are_encoded(mhr_slice_graph, extractor, encoder):
    """Issue 50: on a first path the reading thread runs spaCy then encodes the mentions the graph has no node for,
    while the sampling thread encodes the question; the entities' best chunks (which need only the question's
    vector and spaCy's mentions) are ranked by the sampling thread before the mentions' encode ends, and the path
    is the one a sampler reading on one thread draws."""
    waiting = _WaitsForRanking(encoder, QUESTIONS[0])
    sampler = waiting.sampler = PathSampler(mhr_slice_graph, extractor, waiting)
    path = sampler.sample([QUESTIONS[0]], hops=3, seed=0)
    assert waiting.ranked_first == [True]  # one encode of mentions, after the ranking
    alone = PathSampler(mhr_slice_graph, extractor, encoder)
    alone.read_ahead([QUESTIONS[0]])  # read before: no reading thread
    assert path == alone.sample([QUESTIONS[0]], hops=3, seed=0)


class _WaitsForPool(_WaitsForRanking):
    """As `_WaitsForRanking`, waiting for a pool made by the sampling thread instead."""

    waits_for = "_pools"


def test_a_first_path_makes_its_pool_while_its_mentions_are_encoded(mhr_slice_graph, extractor, encoder):
    """Issue 50: while the reading thread encodes the mentions without a node, the sampling thread makes the pool
    of the seed the path will draw from the seeds with a node (`_seed`'s draw with the path's seed); the path
    then draws from that pool (no pool made after the reading) and is the one a sampler reading on one thread
    draws. QUESTIONS[1] has a seed with a node ("Betashares") and one without ("superannuation business")."""
    question = QUESTIONS[1]
    alone = PathSampler(mhr_slice_graph, extractor, encoder)
    alone.read_ahead([question])
    drawn = {s: alone.sample([question], hops=3, seed=s) for s in range(8)}
    seed = next(s for s, p in drawn.items() if p.seed == "Betashares")
    waiting = _WaitsForPool(encoder, question)
    sampler = waiting.sampler = PathSampler(mhr_slice_graph, extractor, waiting)
    made_after = []
    pool_of = sampler._pool_of
    sampler._pool_of = lambda *a, **k: made_after.append(a[2].entity) or pool_of(*a, **k)
    path = sampler.sample([question], hops=3, seed=seed)
    assert waiting.ranked_first == [True] and made_after == []  # the pool made before the mentions' encode
    assert path == drawn[seed]
