"""Cloze questions for the easy tier on real graphs and real knowledge paths: right by construction."""
from __future__ import annotations

import json

import numpy as np
import pyarrow.compute as pc
import pytest

from judgeagent import build_graph
from judgeagent.grading.answers import normalise_answer
from judgeagent.graph.sample import PathSampler
from judgeagent.protocols.judgeagent.checks import answer_in_question, copied_sentence
from judgeagent.protocols.judgeagent.cloze import BLANK, MIN_WORDS, Cloze, cloze_questions, split_sentences

from .conftest import DATA, DEMO

_PRONOUNS = ("It ", "Its ", "They ", "Their ", "This ", "These ", "He ", "She ")


def _questions(path) -> list[str]:
    return [json.loads(line)["question"] for line in path.read_text().splitlines() if line.strip()]


def _contains(text: str, phrase: str) -> bool:
    return f" {normalise_answer(phrase)} " in f" {normalise_answer(text)} "


def assert_valid(graph, c: Cloze, chunk_ids, entity_ids=()) -> None:
    """Every promise of a cloze, checked against the graph's tables rather than the generator's code."""
    assert c.chunk_id in chunk_ids
    assert c.question.count(BLANK) == 1
    for answer in (c.gold, *c.aliases):
        assert not _contains(c.question, answer), (answer, c.question)
        assert not answer_in_question(c.question, answer)  # what the interview's own checks would say
    keys = [normalise_answer(a) for a in (c.gold, *c.aliases)]
    assert all(keys) and len(set(keys)) == len(keys)
    text = graph.chunk_texts[graph.chunk_row[c.chunk_id]]
    assert not copied_sentence(c.question, c.gold, text)
    filled = c.question.replace(BLANK, c.gold)
    assert filled.endswith(c.sentence + '"') and c.sentence in text
    at = text.index(c.sentence)
    # A sentence opening with a pronoun comes after the one before it, as context.
    before = filled[:-len(c.sentence) - 1]
    if c.sentence.startswith(_PRONOUNS):
        assert before.endswith(" ")
    if before.endswith(" "):
        previous = [text[s:e] for s, e in split_sentences(text) if e <= at][-1]
        assert before.endswith(f'"{previous} ')
    # The blank sits exactly on a recorded mention of the entity (of a path entity when given).
    rows = graph.tables["mentions"].filter(pc.equal(graph.tables["mentions"]["chunk_id"], c.chunk_id)).to_pylist()
    hits = [r for r in rows if r["surface"] == c.gold == text[r["start"]:r["end"]]
            and at <= r["start"] and r["end"] <= at + len(c.sentence)
            and c.sentence[:r["start"] - at] + BLANK + c.sentence[r["end"] - at:] in c.question]
    assert hits, c
    assert any(graph.entity_names[r["entity_id"]] == c.entity for r in hits)
    if entity_ids:
        assert any(r["entity_id"] in set(entity_ids) for r in hits)
    rest = (c.sentence[:hits[0]["start"] - at] + " " + c.sentence[hits[0]["end"] - at:]).split()
    assert sum(any(ch.isalnum() for ch in w) for w in rest) >= MIN_WORDS


@pytest.fixture(scope="module")
def demo_paths(demo_graph, extractor, encoder):
    sampler = PathSampler(demo_graph, extractor, encoder)
    return [sampler.sample(q, hops=3, seed=s) for s, q in enumerate(_questions(DEMO / "questions.jsonl"))]


def test_demo_paths_give_valid_questions(demo_graph, demo_paths):
    made = 0
    for seed, path in enumerate(demo_paths):
        found = cloze_questions(demo_graph, path.chunk_ids, path.entity_ids, count=3, seed=seed)
        assert len(found) <= 3
        assert len({c.question for c in found}) == len(found)
        for c in found:
            assert_valid(demo_graph, c, path.chunk_ids, path.entity_ids)
        made += len(found)
    assert made >= 2 * len(demo_paths)  # most paths give questions: the generator is not vacuous


def test_same_seed_same_questions_other_seeds_vary(demo_graph, demo_paths):
    path = demo_paths[0]
    first = cloze_questions(demo_graph, path.chunk_ids, path.entity_ids, count=2, seed=5)
    assert first and first == cloze_questions(demo_graph, path.chunk_ids, path.entity_ids, count=2, seed=5)
    every = demo_graph.chunk_ids
    runs = {tuple(cloze_questions(demo_graph, every, count=3, seed=s)) for s in range(6)}
    assert len(runs) > 1


def test_count_is_respected(demo_graph):
    every = demo_graph.chunk_ids
    assert cloze_questions(demo_graph, every, count=0) == []
    assert len(cloze_questions(demo_graph, every, count=1)) == 1
    many = cloze_questions(demo_graph, every, count=40, seed=3)
    assert len(many) == 40 and len({c.question for c in many}) == 40
    # Distinct sentences and answers come first while there are enough of them.
    assert len({(c.chunk_id, c.sentence) for c in many}) == 40
    assert len({normalise_answer(c.gold) for c in many}) == 40
    for c in many:
        assert_valid(demo_graph, c, every)


def test_no_entities_blanks_any_mention_of_the_chunks(demo_graph):
    """The `--no-graph` ablation: random chunks, no path entities."""
    for seed in range(5):
        rows = np.random.default_rng(seed).choice(len(demo_graph.chunk_ids), size=3, replace=False)
        chunks = [demo_graph.chunk_ids[i] for i in sorted(rows.tolist())]
        found = cloze_questions(demo_graph, chunks, [], count=3, seed=seed)
        assert len(found) == 3
        for c in found:
            assert_valid(demo_graph, c, chunks)


def test_avoid_skips_questions_already_asked(demo_graph, demo_paths):
    path = demo_paths[1]
    first = cloze_questions(demo_graph, path.chunk_ids, path.entity_ids, count=1, seed=0)[0]
    shouted = first.question.upper().replace('"', "")  # compared after normalise_answer
    again = cloze_questions(demo_graph, path.chunk_ids, path.entity_ids, count=3, seed=0, avoid=[shouted])
    assert again and first.question not in [c.question for c in again]


def test_nothing_to_blank_gives_an_empty_list(demo_graph):
    assert cloze_questions(demo_graph, [], count=3) == []
    assert cloze_questions(demo_graph, ["no-such-chunk#0"], count=3) == []
    assert cloze_questions(demo_graph, demo_graph.chunk_ids[:1], [10**6], count=3) == []


def test_sentence_splitter_keeps_abbreviations_and_decimals():
    text = ('Dr. Smith met the U.S. Navy in St. Louis on Jan. 5 and paid $3.5 million. It rained. '
            'J. R. R. Tolkien wrote e.g. this! Did he?\n\nA new paragraph "Quoted." Then more')
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "Dr. Smith met the U.S. Navy in St. Louis on Jan. 5 and paid $3.5 million.", "It rained.",
        "J. R. R. Tolkien wrote e.g. this!", "Did he?", 'A new paragraph "Quoted."', "Then more"]


TINY = [
    {"doc_id": "t1", "title": "The Gannet Point Lighthouse", "text": (
        "It was designed by the Scottish engineer Thomas Whitcombe for the Northern Lighthouse Board. "
        "Whitcombe visited Lisbon. "
        "The lighthouse on Gannet Point first shone in March 1871 after four years of building work. "
        "Margaret Holloway kept the light burning through the great storm of 1894 without any help. "
        "She later moved to Edinburgh, where she opened a school for young navigators and their families.")},
    {"doc_id": "t2", "title": "Harbour Trade in Port Elspeth", "text": (
        "They came from every corner of the North Sea. "
        "Merchants from Bergen sold dried cod to traders in Port Elspeth every summer for two centuries. "
        "Fishermen from Stavanger landed more herring than Stavanger itself could ever eat in one winter. "
        "Port Elspeth bankers financed the fishing fleets of Bergen and of the Orkney Islands.")},
]


@pytest.fixture(scope="module")
def tiny_graph(tmp_path_factory, extractor):
    folder = tmp_path_factory.mktemp("cloze")
    corpus = folder / "tiny.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in TINY))
    return build_graph(corpus, folder / "graph", extractor=extractor)


def _mentioned(graph, surface: str) -> bool:
    return surface in graph.tables["mentions"]["surface"].to_pylist()


def test_pronoun_led_short_and_self_revealing_sentences_are_skipped(tiny_graph):
    g = tiny_graph
    # Each skip below must be a real decision: the sentences do hold recorded mentions.
    assert all(_mentioned(g, s) for s in ("Thomas Whitcombe", "North Sea", "Lisbon", "Stavanger", "Edinburgh"))
    found = cloze_questions(g, g.chunk_ids, count=50)
    assert len(found) >= 8
    for c in found:
        assert_valid(g, c, g.chunk_ids)
    sentences = {c.sentence for c in found}
    assert not any(s.startswith(("It was designed", "They came")) for s in sentences)  # no previous sentence
    assert "Whitcombe visited Lisbon." not in sentences  # 2 words besides the blank
    assert not any(c.gold == "Stavanger" for c in found)  # its sentence names Stavanger twice
    # A pronoun-led sentence with a sentence before it is asked with that sentence as context.
    she = next(c for c in found if c.gold == "Edinburgh")
    assert "Margaret Holloway kept the light burning" in she.question
    # The title is the context, except where it would give the answer away.
    assert all('In "The Gannet Point Lighthouse"' not in c.question for c in found if "Gannet" in c.gold)
    assert any('In "Harbour Trade in Port Elspeth"' in c.question for c in found)


def test_many_news_paths_keep_every_promise(mhr_slice_graph, extractor, encoder):
    sampler = PathSampler(mhr_slice_graph, extractor, encoder)
    questions = _questions(DATA / "multihop_rag" / "small.questions.jsonl")
    made = 0
    for seed, question in enumerate(questions):
        path = sampler.sample(question, hops=3, seed=seed)
        for ids in (path.entity_ids, []):
            found = cloze_questions(mhr_slice_graph, path.chunk_ids, ids, count=3, seed=seed)
            assert len(found) <= 3
            for c in found:
                assert_valid(mhr_slice_graph, c, path.chunk_ids, ids)
            made += len(found)
    assert made >= 2 * len(questions)
