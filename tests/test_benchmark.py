"""Benchmark loading: the shared datasets, other formats with field maps, sampling and every bad input."""
import csv
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from judgeagent.benchmark import Benchmark, Item, ItemFields, attach_passages, load_benchmark
from judgeagent.errors import JudgeAgentError
from tests.conftest import DATA

SETS = ["medqa", "pubmedqa", "hotpotqa", "multihop_rag", "quality"]


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", SETS)
def test_loads_every_shared_small_split(name):
    path = DATA / name / "small.questions.jsonl"
    bench = load_benchmark(path)
    rows = _lines(path)
    assert len(bench) == len(rows) > 0
    assert [i.qid for i in bench.items] == [r["qid"] for r in rows]
    for item, row in zip(bench.items, rows):
        assert item.question == row["question"].strip() and item.gold
        assert item.supporting_doc_ids == tuple(row["supporting_doc_ids"])
        assert item.meta["dataset"] == name  # unmapped columns are kept
        assert item.source == f"{path}:{rows.index(row) + 1}"
        if item.is_choice:
            assert item.gold_letter in item.options and item.options[item.gold_letter] == item.gold
    assert all(i.is_choice for i in bench.items) == (name in ("medqa", "pubmedqa", "quality"))


def test_difficulty_labels():
    quality = load_benchmark(DATA / "quality" / "small.questions.jsonl").items
    labels = {i.difficulty for i in quality}
    assert {"easy", "hard"} <= labels and None in labels  # some QuALITY questions carry no label
    hotpot = load_benchmark(DATA / "hotpotqa" / "small.questions.jsonl").items
    assert {i.difficulty for i in hotpot} == {"easy", "medium", "hard"}
    assert all(i.difficulty is None for i in load_benchmark(DATA / "medqa" / "small.questions.jsonl").items)


def test_limit_and_sample_are_reproducible_and_keep_file_order():
    path = DATA / "multihop_rag" / "small.questions.jsonl"
    everything = [i.qid for i in load_benchmark(path).items]
    assert [i.qid for i in load_benchmark(path, limit=5).items] == everything[:5]
    first = [i.qid for i in load_benchmark(path, sample=10, seed=7).items]
    assert first == [i.qid for i in load_benchmark(path, sample=10, seed=7).items]
    assert first != [i.qid for i in load_benchmark(path, sample=10, seed=8).items]
    assert len(first) == 10 and first == [q for q in everything if q in first]  # file order
    assert [i.qid for i in load_benchmark(path, sample=10, seed=7, limit=3).items] == first[:3]
    assert len(load_benchmark(path, sample=1000)) == len(everything)
    with pytest.raises(JudgeAgentError, match="sample must be at least 1"):
        load_benchmark(path, sample=0)


def test_csv_with_letter_columns_and_a_field_map(tmp_path):
    path = tmp_path / "quiz.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "prompt", "gold", "answer_text", "A", "B", "C", "level", "docs", "site"])
        writer.writerow(["q1", "Capital of France?", "B", "", "London", "Paris", "Rome", "Easy", "d1;d2",
                         "x"])
        writer.writerow(["q2", "Largest planet?\n(two lines)", "b", "", "Mars", "Jupiter", "", "HARD", "",
                         ""])
        writer.writerow(["q3", "Free text?", "", "Ganymede", "", "", "", "extreme", '["d3"]', ""])
    fields = ItemFields(qid="id", question="prompt", answer_letter="gold", answer="answer_text",
                        difficulty="level", supporting_doc_ids="docs")
    q1, q2, q3 = load_benchmark(path, fields).items
    assert q1.options == {"A": "London", "B": "Paris", "C": "Rome"} and q1.gold == "Paris"
    assert (q1.difficulty, q1.supporting_doc_ids, q1.meta) == ("easy", ("d1", "d2"), {"site": "x"})
    assert q2.options == {"A": "Mars", "B": "Jupiter"} and (q2.gold_letter, q2.gold) == ("B", "Jupiter")
    assert q2.question == "Largest planet?\n(two lines)" and q2.difficulty == "hard"
    assert q3.source == f"{path}:5"  # q2's quoted cell spans lines 3-4
    assert (q3.options, q3.gold, q3.difficulty, q3.supporting_doc_ids) == (None, "Ganymede", None, ("d3",))


def test_csv_rows_report_the_line_they_start_on(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('qid,question,answer\nq1,"Two\nlines",yes\nq2,"Three\nmore\nlines",\n', encoding="utf-8")
    with pytest.raises(JudgeAgentError, match=r"q\.csv:4: item 'q2' has no gold answer"):
        load_benchmark(path)


def test_csv_with_json_options_and_text_gold(tmp_path):
    path = tmp_path / "mc.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["qid", "question", "answer", "options", "difficulty"])
        options = json.dumps({"A": "Shark", "B": "Whale"})
        writer.writerow(["m1", "Which is a mammal?", "whale.", options, "Medium"])
        writer.writerow(["m2", "Free?", "Jupiter", "", ""])
    m1, m2 = load_benchmark(path).items
    assert (m1.gold_letter, m1.gold, m1.difficulty) == ("B", "whale.", "medium")
    assert not m2.is_choice and m2.gold_letter is None and m2.difficulty is None


def test_parquet_with_a_field_map(tmp_path):
    path = tmp_path / "bench.parquet"
    table = pa.table({
        "id": ["p1", "p2"], "q": ["Pick one", "Year?"], "gold": [None, 1993], "letter": ["(b)", None],
        "choices": [["red", "blue"], None], "hardness": ["Hard", None], "docs": [["d1"], []],
    })
    pq.write_table(table, path)
    fields = ItemFields(qid="id", question="q", answer="gold", answer_letter="letter", options="choices",
                        difficulty="hardness", supporting_doc_ids="docs")
    p1, p2 = load_benchmark(path, fields).items
    assert p1.options == {"A": "red", "B": "blue"} and (p1.gold_letter, p1.gold) == ("B", "blue")
    assert p1.difficulty == "hard" and p1.supporting_doc_ids == ("d1",) and p1.source.endswith("[row 0]")
    assert p2.gold == "1993" and p2.options is None and p2.supporting_doc_ids == ()


def test_json_list_and_struct_options(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(json.dumps([{"question": "Q?", "answer_letter": "A", "options": {"a": "one", "b": "two"}},
                                {"question": "R?", "answer": "x"}]), encoding="utf-8")
    first, second = load_benchmark(path).items
    assert (first.qid, first.gold, first.gold_letter) == ("b-1", "one", "A")  # generated qids
    assert second.qid == "b-2" and first.source == f"{path}[0]"


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


GOOD = '{"qid": "a", "question": "Q?", "answer": "Yes"}\n'


@pytest.mark.parametrize("name, content, message", [
    ("bad.jsonl", GOOD + '{"qid": "b", "question": oops}\n', r"bad\.jsonl:2: malformed JSON"),
    ("latin.jsonl", GOOD.encode() + '{"qid": "b", "question": "caf\xe9"}\n'.encode("latin-1"),
     r"latin\.jsonl:2: not valid UTF-8"),
    ("empty.jsonl", "\n\n", r"empty\.jsonl has no items"),
    ("header_only.csv", "qid,question,answer\n", r"header_only\.csv has no items"),
    ("noq.jsonl", GOOD + '{"qid": "b", "question": "  ", "answer": "x"}\n',
     r"noq\.jsonl:2: item 'b' has no question"),
    ("nogold.jsonl", '{"qid": "c", "question": "Q?", "answer": ""}\n',
     r"nogold\.jsonl:1: item 'c' has no gold answer \(neither 'answer' nor 'answer_letter'\)"),
    ("letter.jsonl",
     '{"qid": "d", "question": "Q?", "options": {"A": "x", "B": "y"}, "answer_letter": "E"}\n',
     r"letter\.jsonl:1: item 'd': answer_letter 'E' is not among the options \(A, B\)"),
    ("nooptions.jsonl", '{"qid": "d", "question": "Q?", "answer_letter": "B"}\n',
     r"answer_letter 'B' is not among the options \(none\)"),
    ("dup.jsonl", GOOD + GOOD, r"duplicate qid 'a' at .*dup\.jsonl:2 \(first at .*dup\.jsonl:1\)"),
    ("list.jsonl", "[1, 2]\n", r"list\.jsonl:1: expected a JSON object, got list"),
    ("badjson.json", '[{"qid": "a",\n "question": }]', r"badjson\.json:2: malformed JSON"),
    ("badopts.csv", 'qid,question,answer,options\nq,Q?,x,{"A": \n',
     r"badopts\.csv:2: options is not valid JSON"),
    ("data.txt", "hello",
     r"unsupported benchmark file .*data\.txt \(expected one of .jsonl, .json, .csv, .parquet\)"),
])
def test_bad_input_is_one_clear_line(tmp_path, name, content, message):
    with pytest.raises(JudgeAgentError, match=message) as info:
        load_benchmark(_write(tmp_path, name, content))
    assert "\n" not in str(info.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(JudgeAgentError, match="benchmark not found: .*nope.jsonl"):
        load_benchmark(tmp_path / "nope.jsonl")
    with pytest.raises(JudgeAgentError, match="unsupported benchmark file"):
        load_benchmark(tmp_path)


def test_attach_passages_with_quality_documents():
    bench = load_benchmark(DATA / "quality" / "small.questions.jsonl")
    docs = {d["doc_id"]: d["text"] for d in _lines(DATA / "quality" / "small.docs.jsonl")}
    attached = attach_passages(bench, docs)
    assert len(attached) == len(bench) and attached.path == bench.path
    for item in attached.items:
        assert item.passage == "\n\n".join(docs[d] for d in item.supporting_doc_ids)
    assert all(i.passage is None for i in bench.items)  # the original is unchanged


def test_attach_passages_keeps_given_passages_and_joins_several_docs():
    items = [Item("a", "Q?", "x", supporting_doc_ids=("d1", "d2", "missing")),
             Item("b", "Q?", "x", supporting_doc_ids=("d1",), passage="own"),
             Item("c", "Q?", "x", supporting_doc_ids=("missing",))]
    out = attach_passages(Benchmark(DATA, items), {"d1": "one", "d2": "two"}).items
    assert [i.passage for i in out] == ["one\n\ntwo", "own", None]


def test_nested_fields_are_mapped_by_dotted_paths(tmp_path):
    # the shape of a biomedical set: a long ideal answer at the top, the short factoid one nested
    path = tmp_path / "bio.jsonl"
    rows = [{"id": "b1", "body": "Which gene is mutated in cystic fibrosis?", "answer": "A long ideal answer ...",
             "meta": {"exact_answer": ["CFTR", "cystic fibrosis transmembrane conductance regulator"]}},
            {"id": "b2", "body": "Which enzyme?", "answer": "Long.", "meta": {"exact_answer": [["lactase"]]},
             "docs": [{"pmid": "p9"}, {"pmid": "p10"}]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    fields = ItemFields(qid="id", question="body", answer="meta.exact_answer", supporting_doc_ids="docs.pmid")
    b1, b2 = load_benchmark(path, fields).items
    assert b1.gold == "CFTR" and b1.aliases == ("cystic fibrosis transmembrane conductance regulator",)
    assert b2.gold == "lactase" and b2.supporting_doc_ids == ("p9",)  # a list inside the path: its first
    missing = ItemFields(qid="id", question="body", answer="meta.ideal")
    with pytest.raises(JudgeAgentError, match="no gold answer|meta.ideal"):
        load_benchmark(path, missing)


def test_inspect_columns_are_read_and_other_tools_columns_are_named_in_the_error(tmp_path):
    from judgeagent.benchmark import load_benchmark

    inspect = tmp_path / "inspect.jsonl"
    inspect.write_text('{"id": "s1", "input": "What is the capital of France?", "target": "Paris"}\n'
                       '{"id": "s2", "input": "Which is a fruit?", "choices": ["carrot", "apple"], "target": "B"}\n')
    free, choice = load_benchmark(inspect).items
    assert (free.qid, free.question, free.gold, free.options) == ("s1", "What is the capital of France?", "Paris", None)
    assert (choice.gold, choice.gold_letter, choice.options) == ("apple", "B", {"A": "carrot", "B": "apple"})
    lm_eval = tmp_path / "lm.csv"
    lm_eval.write_text('prompt,completion\n"2+2?",4\n')
    with pytest.raises(JudgeAgentError, match=r"has no question \(field 'question'\); its columns: prompt, "
                                              r"completion; read them with --field question=prompt --field "
                                              r"answer=completion$"):
        load_benchmark(lm_eval)


@pytest.mark.parametrize("limit, ids, kept", [
    ("3", None, ["q1", "q2", "q3"]), ("0.25", None, ["q1", "q2"]), ("2-4", None, ["q2", "q3", "q4"]),
    (None, ["q5,q1"], ["q1", "q5"]), ("1", ["q5", "q2"], ["q2"]),
])
def test_limit_as_a_count_a_fraction_or_a_range_and_sample_ids(tmp_path, limit, ids, kept):
    from judgeagent.benchmark import choose_items, load_benchmark

    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps({"qid": f"q{i}", "question": f"Q{i}?", "answer": "a"}) + "\n"
                            for i in range(1, 9)))
    assert [i.qid for i in choose_items(load_benchmark(path), limit, ids).items] == kept


@pytest.mark.parametrize("limit, ids, message", [
    ("0", None, "--limit '0': give a count"), ("4-2", None, "range"), ("1.5", None, "fraction"),
    (None, ["nope"], "--sample-id 'nope' is no item"),
])
def test_bad_limits_and_ids_are_one_line(tmp_path, limit, ids, message):
    from judgeagent.benchmark import choose_items, load_benchmark

    path = tmp_path / "b.jsonl"
    path.write_text('{"qid": "q1", "question": "Q?", "answer": "a"}\n')
    with pytest.raises(JudgeAgentError, match=re.escape(message)):
        choose_items(load_benchmark(path), limit, ids)
