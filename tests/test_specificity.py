"""Entity specificity (issue 29): stored with the graph, computed for old graphs, and what it keeps out of
seeds, cloze blanks and knowledge-gap rows on the demo corpus."""
from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq

from judgeagent import load_graph
from judgeagent.graph.specificity import GENERIC, name_rarity


def test_word_rarity_comes_from_general_english_frequencies():
    assert name_rarity("way") == 0.0 and name_rarity("first time") == 0.0  # the rarest word decides
    assert 0 < name_rarity("land") < 0.5 < name_rarity("crater") < 1.0
    assert name_rarity("heliopause") == 1.0 and name_rarity("ion engine") > 0.5  # not in the list: rare


def test_a_format_1_graph_loads_with_its_specificity_computed(demo_graph, tmp_path):
    from judgeagent import save_graph
    from judgeagent.graph.info import graph_info, render_info
    from judgeagent.graph.store import seal

    stored = demo_graph.specificity
    assert demo_graph.manifest["format_version"] == 2 and stored.dtype == np.float32
    assert stored.min() >= 0 and stored.max() <= 1
    old = save_graph(demo_graph, tmp_path / "v1")
    ents = pq.read_table(old / "entities.parquet")
    pq.write_table(ents.drop_columns(["specificity"]), old / "entities.parquet")
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["format_version"] = 1
    (old / "manifest.json").unlink()
    seal(old, manifest)
    loaded = load_graph(old)
    assert "specificity" not in loaded.tables["entities"].column_names
    np.testing.assert_array_equal(loaded.specificity, stored)
    text = render_info(graph_info(loaded))
    assert "computed: a format-1 graph" in text
    generic = [e["name"] for e in graph_info(loaded)["specificity"]["most_mentioned_generic"]]
    assert "way" in generic and all(stored[demo_graph.entity_row[n]] < GENERIC for n in generic)


def test_demo_seeds_cloze_golds_and_gap_rows_are_specific(demo_graph, extractor, encoder):
    """The demo corpus (issue 29: its report's top gap was "land", a cloze gold "land", a path hop "way"):
    every seed candidate, cloze gold and knowledge-gap row is at or above GENERIC, named with its kind and
    document titles, while generic entities are there to be left out."""
    from judgeagent.graph.sample import PathSampler
    from judgeagent.protocols.judgeagent.cloze import cloze_questions
    from judgeagent.protocols.judgeagent.records import QuestionRecord
    from judgeagent.protocols.judgeagent.report.gaps import graph_names, knowledge_gaps
    from tests.conftest import DEMO

    spec, row = demo_graph.specificity, demo_graph.entity_row
    assert all(spec[row[w]] < GENERIC for w in ("way", "land", "body"))
    questions = [json.loads(line)["question"] for line in (DEMO / "questions.jsonl").read_text().splitlines()]
    sampler = PathSampler(demo_graph, extractor, encoder)
    options = sampler.seed_options(questions)
    seeds = [o["entity"] for per_question in options for o in per_question]
    assert len(seeds) >= len(questions)
    assert all(spec[row[e]] >= GENERIC for e in seeds), seeds
    assert all(abs(sum(o["probability"] for o in q) - 1) < 1e-3 for q in options if q)

    golds = cloze_questions(demo_graph, demo_graph.chunk_ids, count=200, seed=0)
    assert len(golds) >= 20
    assert all(spec[row[c.entity]] >= GENERIC for c in golds), [c.entity for c in golds if spec[row[c.entity]] < GENERIC]
    in_chunks = set(demo_graph.tables["mentions"].column("entity_id").to_pylist())
    assert any(spec[e] < GENERIC for e in in_chunks)  # the filter had generic mentions to leave out

    paths = [sampler.sample([q], seed=s) for q in questions for s in range(2)]
    records = [QuestionRecord.from_dict({"record_id": f"r{k}", "stage": "extension", "correct": False,
                                         "path": p.to_dict(), "entities": ["way", "land"]})
               for k, p in enumerate(paths)]
    names = graph_names({"graph": {"path": str(demo_graph.path), "graph_id": demo_graph.manifest["graph_id"]}})
    gaps = knowledge_gaps(records, names)
    assert len(gaps) == 15 and all(spec[row[g.name]] >= GENERIC for g in gaps)
    assert all(g.kind and g.documents for g in gaps)
    titles = set(demo_graph.tables["documents"].column("title").to_pylist())
    assert {t for g in gaps for t in g.documents.split(" (+")[0].split("; ")} <= titles
    assert {g.name for g in knowledge_gaps(records, None)[:2]} == {"land", "way"}  # without the graph: bare names


def test_section_labels_of_structured_abstracts_link_nothing(extractor):
    """Issue 48 (b): "RESULTS:", "METHODS:" head most PubMedQA abstracts; capitalised, they passed as names
    and linked unrelated documents. Counted where they stand (first on a line, before a colon) in most of
    the documents that mention them, they are labels: specificity 0, while the abstracts' names stay."""
    from judgeagent.chunking import iter_chunks
    from judgeagent.corpus import read_corpus
    from judgeagent.graph.link import Linker, is_section_label, link
    from judgeagent.graph.specificity import specificity
    from tests.conftest import DATA

    docs = read_corpus(DATA / "pubmedqa" / "small.docs.jsonl").documents[:20]
    chunks = [c for doc_chunks in iter_chunks(docs) for c in doc_chunks]
    linker = Linker()
    tables = link(docs, chunks, extractor.extract([c.text for c in chunks]), linker)
    ents, n = tables["entities"], len(docs)
    row = {name: i for i, name in enumerate(ents.column("name").to_pylist())}
    before = specificity(ents, tables["mentions"], n)
    after = specificity(ents, tables["mentions"], n, linker.section_label_docs())
    labelled = dict(zip(ents.column("name").to_pylist(), linker.section_label_docs().tolist()))
    assert labelled["result"] == 8 and labelled["objective"] == 9  # of 9 documents each
    for w in ("result", "method", "objective"):
        assert before[row[w]] >= GENERIC and after[row[w]] == 0, w
    assert labelled["background"] == 2 and after[row["background"]] >= GENERIC  # 2 documents are not "many"
    kept = np.flatnonzero(after > 0)
    assert len(kept) > 0.9 * ents.num_rows and np.array_equal(after[kept], before[kept])  # the rest unchanged
    assert is_section_label("Background: x", 0, 10) and is_section_label("a.\nRESULTS : x", 3, 10)
    assert not is_section_label("the Star Wars: Episode", 4, 13)  # mid-sentence before a colon: a title
    assert not is_section_label("RESULTS were good", 0, 7)
