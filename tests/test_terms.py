"""Issue 48 (g): a question whose mentions give no seed still gets seeds, from its words rare in general English
found by their letters in the graph's entity names (graph/terms.py)."""
from __future__ import annotations

from judgeagent.graph.terms import TermIndex, rare_terms


class _NoMentions:
    """spaCy's small model missing every term of a question (it tags rare technical nouns as verbs and
    adjectives): the extractor interface, finding nothing."""

    def extract(self, texts, progress=None):
        return [[] for _ in texts]

    def describe(self):
        return {"extractor": "none"}


def test_rare_words_are_terms_and_match_entity_names_by_their_stem():
    assert rare_terms("Do stents after laparoscopic cholecystectomy help the patients of this study?") == [
        "stents", "laparoscopic", "cholecystectomy"]  # rarest first (all rare: text order); not "patients", "study"
    index = TermIndex(["laparoscopic cholecystectomies", "stent", "coronary stents", "antibody", "stenosis"])
    assert index.holding("stents").tolist() == [1, 2] and index.holding("cholecystectomy").tolist() == [0]
    assert index.holding("antibiotic").tolist() == [] and index.holding("stenosis").tolist() == [4]


def test_a_question_without_usable_mentions_seeds_from_its_rare_terms(demo_graph, encoder):
    from judgeagent.graph.sample import PathSampler

    sampler = PathSampler(demo_graph, _NoMentions(), encoder)
    options = sampler.seed_options(["Which cosmodrome launched the first satellites?"])[0]
    assert options and options[0]["mention"] == "cosmodrome" and "cosmodrome" in options[0]["entity"], options
    path = sampler.sample(["Which cosmodrome launched the first satellites?"], seed=0)
    assert path.seed_kind == "concept" and path.seed == "cosmodrome" and len(path.chunk_ids) == 3
    assert sampler.seed_options(["What happened then, and where?"]) == [[]]  # no rare word: the best chunk seeds
    assert sampler.sample(["What happened then, and where?"], seed=0).seed_kind == "question"


def test_the_term_index_is_built_beside_the_sampler_not_by_a_question(demo_graph, encoder, monkeypatch):
    """Issue 50: the index costs 143 ms on MultiHop-RAG full's 73,173 names; it is built on its own thread when the
    sampler is made, so the first question without a seed does not pay for it."""
    import threading
    import time

    from judgeagent.graph import terms
    from judgeagent.graph.sample import PathSampler

    built, real = [], terms.TermIndex.__init__

    def noted(self, names):
        real(self, names)
        built.append(threading.current_thread().name)

    monkeypatch.setattr(terms.TermIndex, "__init__", noted)
    sampler = PathSampler(demo_graph, _NoMentions(), encoder)
    deadline = time.monotonic() + 10
    while not built and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sampler.sample(["Which cosmodrome launched the first satellites?"], seed=0).seed == "cosmodrome"
    assert built == ["judgeagent-term-index"]
