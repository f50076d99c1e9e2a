import pytest

from judgeagent import EntityConfig
from judgeagent.entities import CONCEPT, SpacyExtractor

TEXT = ("The Federal Reserve raised interest rates in Los Angeles on Tuesday, and Bank of America said "
        "it expected 3 percent growth. Their analysts praised the Fed's decision.")


def test_named_entities_and_noun_chunks_are_normalised(extractor):
    (mentions,) = extractor.extract([TEXT])
    by_name = {m.name: m for m in mentions}
    assert by_name["federal reserve"].surface == "Federal Reserve"  # determiner stripped, case folded
    assert by_name["federal reserve"].label == "ORG"
    assert by_name["interest rate"].surface == "interest rates"  # common-noun head lemmatised
    assert by_name["interest rate"].label == CONCEPT
    assert "los angeles" in by_name  # a proper noun is not lemmatised
    assert "bank of america" in by_name
    for m in mentions:  # offsets point at the surface form
        assert TEXT[m.start:m.end] == m.surface


def test_pronouns_numbers_and_dates_are_not_entities(extractor):
    (mentions,) = extractor.extract([TEXT])
    names = {m.name for m in mentions}
    assert not names & {"it", "their", "tuesday", "3 percent", "3"}
    assert not any(m.label in {"DATE", "PERCENT", "CARDINAL"} for m in mentions)


def test_same_concept_different_surfaces_is_one_node(extractor):
    a, b = extractor.extract(["The European Space Agency launched it.", "European Space Agency engineers met."])
    assert {m.name for m in a} & {m.name for m in b} == {"european space agency"}


def test_named_entities_only_option():
    (mentions,) = SpacyExtractor(EntityConfig(noun_chunks=False)).extract([TEXT])
    assert mentions and all(m.label != CONCEPT for m in mentions)


def test_unknown_spacy_pipeline_is_a_clear_error():
    from judgeagent import JudgeAgentError

    with pytest.raises(JudgeAgentError, match="unknown spaCy pipeline 'xx_nothing'"):
        SpacyExtractor(EntityConfig(spacy_model="xx_nothing"))


def test_markup_and_spaced_hyphens_do_not_reach_entity_names(extractor):
    text = ("<AbstractText>Wind from the south - south - west drove the prediction.<AbstractText> "
            "Texas A&amp;M University published the <b>Mars Climate Orbiter</b> report.")
    (mentions,) = extractor.extract([text])
    names = {m.name for m in mentions}
    assert not [n for n in names if "<" in n or ">" in n or "&amp;" in n or " - " in n], names
    assert "south-south-west" in names or any("south-south-west" in n for n in names), names
    assert any("mars climate orbiter" in n for n in names), names


def test_suspicious_entity_names_are_listed():
    import numpy as np

    from judgeagent.graph.info import suspicious_entities

    names = ["carl sagan", "prediction.<abstracttext", "x" * 80, "a | b table", "voyager 1"]
    odd = suspicious_entities(names, np.array([9, 5, 1, 3, 7]))
    assert [e["name"] for e in odd] == ["prediction.<abstracttext", "a | b table", "x" * 80]


def test_spacy_in_two_processes_gives_the_same_entities_and_mentions(extractor, tmp_path):
    from judgeagent.chunking import iter_chunks
    from judgeagent.config import ChunkConfig
    from judgeagent.corpus import read_corpus
    from judgeagent.graph.link import link
    from tests.conftest import DATA

    corpus = tmp_path / "docs.jsonl"  # a third of MultiHop-RAG small keeps two spaCy loads affordable
    corpus.write_text("\n".join((DATA / "multihop_rag" / "small.docs.jsonl").read_text().splitlines()[:20]) + "\n")
    docs = read_corpus(corpus).documents
    chunks = [c for doc_chunks in iter_chunks(docs, ChunkConfig()) for c in doc_chunks]
    two = SpacyExtractor(EntityConfig(spacy_processes=2))
    assert len(chunks) > 2 * two.config.batch_size  # enough batches for both processes to get work
    texts = [c.text for c in chunks]
    one_tables, two_tables = link(docs, chunks, extractor.extract(texts)), link(docs, chunks, two.extract(texts))
    for table in ("entities", "mentions", "edges"):
        assert two_tables[table].num_rows > 0
        assert two_tables[table].equals(one_tables[table]), table


def test_named_entities_only_loads_no_parser_and_finds_the_same_entities(extractor):
    ents_only = SpacyExtractor(EntityConfig(noun_chunks=False))
    assert "parser" not in ents_only.nlp.pipe_names and "parser" in extractor.nlp.pipe_names
    (full,) = extractor.extract([TEXT])
    assert ents_only.extract([TEXT]) == [[m for m in full if m.label != CONCEPT]]


def test_spacy_processes_are_not_part_of_the_stored_graph_config():
    from judgeagent import GraphConfig

    two = GraphConfig(entities=EntityConfig(spacy_processes=2))
    assert two.model_dump(mode="json") == GraphConfig().model_dump(mode="json")


def test_lazy_lemma_gives_the_mentions_of_the_pipelines_lemmatizer(extractor):
    # The lemmatizer pipe is off; a common-noun head is lemmatised on demand by the pipe's own rule (issue 50).
    assert "lemmatizer" not in extractor.nlp.pipe_names
    texts = [TEXT, "How many children and mice did the analyses of the women's teeth find?",
             "Which indices of the stock markets fell after the crises?", "I'd say the geese's feet were cold."]
    full = SpacyExtractor(EntityConfig())
    full.nlp.enable_pipe("lemmatizer")
    full._lemma = None
    expected = full.extract(texts)
    assert extractor.extract(texts) == expected
    assert {"mouse", "analysis", "index", "crisis", "stock market"} <= {m.name for ms in expected for m in ms}
