"""Days a question names, as documents' metadata holds them (issue 48, tenth pass): "the report published on
October 31, 2023" names its article as surely as "TechCrunch" names its publisher's."""
import json

import numpy as np
import pytest

from judgeagent.graph import sample
from judgeagent.graph.dates import days_named, metadata_day
from judgeagent.graph.info import graph_info, render_info
from judgeagent.graph.sample import PathSampler

from .conftest import DATA


@pytest.mark.parametrize("text, days", [
    ("reports published on September 28, 2023, and December 18, 2023", ["2023-09-28", "2023-12-18"]),
    ("before Oct. 22 2023, after the 5th of Sept 2023", ["2023-10-22", "2023-09-05"]),
    ("28 September 2023 and September 28th, 2023 and 2023-09-28", ["2023-09-28"]),  # one day, named three ways
    ("in March 2023, in 2023, on 03/04/2023", []),  # no day, or no order to read it in
    ("February 29, 2024 but not February 29, 2023 nor 2023-13-01", ["2024-02-29"]),
    ("Mayday 5, 2021; may 5, 2021", ["2021-05-05"]),
])
def test_the_days_a_text_names(text, days):
    assert days_named(text) == days


@pytest.mark.parametrize("value, day", [
    ("2023-11-27 08:45:59.000000000Z", "2023-11-27"), ("2023-11-27T08:45:59+00:00", "2023-11-27"),
    (" 2023-11-27 ", "2023-11-27"), ("2023-11", None), ("2023-11-27x", None), ("2023-02-30", None),
    ("TechCrunch", None), (None, None), (20231127, None),
])
def test_a_metadata_value_holds_a_day(value, day):
    assert metadata_day(value) == day


def _published(graph) -> dict[int, str]:
    rows = {d: i for i, d in enumerate(graph.doc_ids)}
    return {rows[rec["doc_id"]]: rec["meta"]["published_at"][:10]
            for rec in map(json.loads, (DATA / "multihop_rag" / "small.docs.jsonl").read_text(encoding="utf-8").splitlines())
            if rec["doc_id"] in rows}


def test_a_documents_metadata_holds_the_day_it_was_published(mhr_slice_graph, hotpot_graph):
    """ContextGraph.dated_in_meta on the MultiHop-RAG slice: each day maps to exactly the articles published that day;
    the timestamps are days, not names (`named_in_meta` once held each article's "published_at" as a name)."""
    by_day: dict[str, set[int]] = {}
    for row, day in _published(mhr_slice_graph).items():
        by_day.setdefault(day, set()).add(row)
    dated = mhr_slice_graph.dated_in_meta
    assert {day: set(rows.tolist()) for day, rows in dated.items()} == by_day and len(by_day) > 10
    assert hotpot_graph.dated_in_meta == {}  # its metadata holds sentences, no dates
    assert not any(metadata_day(name) for name in mhr_slice_graph.named_in_meta)  # a timestamp is not a name
    assert "techcrunch" in mhr_slice_graph.named_in_meta
    info = graph_info(mhr_slice_graph)
    assert info["metadata_dated_documents"] == len(mhr_slice_graph.doc_ids) == 17
    assert "metadata days: 17 of 17 documents" in render_info(info)
    assert graph_info(hotpot_graph)["metadata_dated_documents"] == 0
    assert "metadata days" not in render_info(graph_info(hotpot_graph))


# slow by hand: the whole small split's graph (`mhr_graph`, ~100 CPU s to build), as for NAMED_SOURCE's publisher test
@pytest.mark.slow
def test_a_question_naming_a_day_walks_to_that_days_articles(mhr_graph, extractor, encoder, monkeypatch):
    """MultiHop-RAG small's questions that name the days of their reports (6 of 30): their paths take more of their
    chunks from the articles published on a day they name, and from supporting documents, than with days unread
    (measured: 0.80 against 0.71, and 0.84 against 0.79); the recorded similarities stay the question's own."""
    graph = mhr_graph
    doc_of = dict(zip(graph.chunk_ids, graph.tables["chunks"].column("doc_id").to_pylist()))
    published = {graph.doc_ids[row]: day for row, day in _published(graph).items()}
    questions = [(rec["question"], set(rec["supporting_doc_ids"]))
                 for rec in map(json.loads, (DATA / "multihop_rag" / "small.questions.jsonl").read_text(
                     encoding="utf-8").splitlines())
                 if days_named(rec["question"])]
    assert len(questions) == 6

    def shares(read_days: bool) -> tuple[float, float]:
        if not read_days:
            monkeypatch.setattr(sample, "days_named", lambda text: [])
        sampler = PathSampler(graph, extractor, encoder, reader="thread")
        on_day, supported = [], []
        for i, (question, support) in enumerate(questions):
            for k in range(5):  # bench/paths.py's seed schedule
                path = sampler.sample(question, hops=3, seed=k * 1_000_003 + i)
                docs = [doc_of[c] for c in dict.fromkeys(path.chunk_ids)]
                on_day.append(np.mean([published[d] in days_named(question) for d in docs]))
                supported.append(np.mean([d in support for d in docs]))
                vectors = graph.chunk_vectors[[graph.chunk_ids.index(c) for c in path.chunk_ids]]
                assert path.similarities == pytest.approx((vectors @ encoder.encode([question])[0]).tolist(), abs=1e-3)
        monkeypatch.undo()
        return float(np.mean(on_day)), float(np.mean(supported))

    with_days, without = shares(True), shares(False)
    assert with_days[0] >= without[0] + 0.05
    assert with_days[1] >= without[1] + 0.03
