import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from judgeagent import FieldMap, JudgeAgentError, read_corpus
from tests.conftest import DATA, DEMO


def test_reads_shared_jsonl():
    corpus = read_corpus(DATA / "multihop_rag" / "small.docs.jsonl")
    assert len(corpus) == 60
    first = corpus.documents[0]
    assert first.doc_id == "mhr-0001" and first.title and len(first.text) > 500
    assert first.source.endswith("small.docs.jsonl:1")


def test_reads_demo_corpus():
    corpus = read_corpus(DEMO / "docs.jsonl")
    assert len(corpus) == 12
    assert all(d.meta.get("license") == "CC0-1.0" for d in corpus.documents)


def test_folder_of_text_markdown_json_and_parquet(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("Alpha text about Paris.", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Bee Title\n\nBees live in hives.", encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps([{"doc_id": 7, "title": "C", "text": "See."}]), encoding="utf-8")
    pq.write_table(pa.table({"id": ["p1"], "body": ["Parquet body."], "title": ["P"]}), tmp_path / "d.parquet")
    (tmp_path / ".hidden.txt").write_text("ignored", encoding="utf-8")
    (tmp_path / "ignored.csv").write_text("x", encoding="utf-8")
    with pytest.raises(JudgeAgentError, match="'doc_id'"):
        read_corpus(tmp_path)  # the parquet file names its id column differently
    (tmp_path / "d.parquet").unlink()
    docs = {d.doc_id: d for d in read_corpus(tmp_path).documents}
    assert set(docs) == {"notes/a", "b", "7"}
    assert docs["b"].title == "Bee Title" and docs["notes/a"].title == "a"
    folder = tmp_path / "pq"
    folder.mkdir()
    pq.write_table(pa.table({"id": ["p1"], "body": ["Parquet body."], "title": ["P"]}), folder / "d.parquet")
    (doc,) = read_corpus(folder, FieldMap(doc_id="id", text="body")).documents
    assert (doc.doc_id, doc.text, doc.title) == ("p1", "Parquet body.", "P")


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


GOOD = '{"doc_id": "a", "title": "A", "text": "Some text."}\n'


@pytest.mark.parametrize("name, content, message", [
    ("bad.jsonl", GOOD + '{"doc_id": "b", "text": oops}\n', r"bad\.jsonl:2: malformed JSON"),
    ("latin.jsonl", GOOD.encode() + '{"doc_id": "b", "text": "caf\xe9"}\n'.encode("latin-1"), r"latin\.jsonl:2: not valid UTF-8"),
    ("dup.jsonl", GOOD + GOOD, r"duplicate doc_id 'a' at .*dup\.jsonl:2 \(first at .*dup\.jsonl:1\)"),
    ("empty_text.jsonl", '{"doc_id": "a", "text": "   "}\n', r"document 'a' has no text"),
    ("no_id.jsonl", '{"text": "x"}\n', r"no 'doc_id' field"),
    ("empty.jsonl", "\n\n", r"has no documents"),
    ("list.jsonl", "[1, 2]\n", r"expected a JSON object"),
    ("bad.json", '{"doc_id": "a",\n "text": }', r"bad\.json:2: malformed JSON"),
    ("empty.txt", "  \n", r"has no text"),
    ("data.csv", "a,b", r"unsupported corpus file"),
])
def test_bad_input_names_the_problem(tmp_path, name, content, message):
    with pytest.raises(JudgeAgentError, match=message):
        read_corpus(_write(tmp_path, name, content))


def test_missing_and_empty_paths(tmp_path):
    with pytest.raises(JudgeAgentError, match="corpus not found"):
        read_corpus(tmp_path / "nope")
    with pytest.raises(JudgeAgentError, match="has no .jsonl"):
        read_corpus(tmp_path)


def test_unreadable_file(tmp_path):
    import os

    path = _write(tmp_path, "locked.jsonl", GOOD)
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):  # root reads anything: the case cannot arise
            pytest.skip("running as a user who can read a 000 file")
        with pytest.raises(JudgeAgentError, match="cannot read"):
            read_corpus(path)
    finally:
        path.chmod(0o644)


def test_demo_benchmark_matches_its_corpus():
    docs = {d.doc_id: d for d in read_corpus(DEMO / "docs.jsonl").documents}
    questions = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text().splitlines() if line.strip()]
    assert len(questions) == 20 and len({q["qid"] for q in questions}) == 20
    for q in questions:
        assert q["supporting_doc_ids"] and set(q["supporting_doc_ids"]) <= set(docs)
        assert q["difficulty"] in ("easy", "medium", "hard", None)
        if q["options"]:
            assert q["options"][q["answer_letter"]] == q["answer"]


def test_a_parquet_file_without_the_text_column_names_the_column(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"doc_id": ["p1"], "body": ["Parquet body."]}), path)
    with pytest.raises(JudgeAgentError, match=r"d\.parquet has no column 'text' \(columns: doc_id, body\); "
                                              r"map yours with --field text=NAME"):
        read_corpus(path)
    with pytest.raises(JudgeAgentError, match=r"no column 'id'"):
        read_corpus(path, FieldMap(doc_id="id"))


def test_nested_corpus_fields(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"info": {"id": "d1", "name": "Cystic fibrosis"}, "abstract": {"text": "CFTR is a gene."}})
                    + "\n", encoding="utf-8")
    (doc,) = read_corpus(path, FieldMap(doc_id="info.id", text="abstract.text", title="info.name")).documents
    assert (doc.doc_id, doc.title, doc.text) == ("d1", "Cystic fibrosis", "CFTR is a gene.")
