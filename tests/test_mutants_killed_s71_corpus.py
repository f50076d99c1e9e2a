"""Tests written at stop 71 against the survivors of the first mutation runs (seed 1) of corpus.py (a user's corpus
folder or file read into documents: formats, ids, titles, bad input) and embedding.py (the encoder's model folder
and hub checks, the FAISS index kinds). `corpus_` and `embedding_` begin each module's tests; the mutant each kills
is in the comment above it."""
from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from judgeagent import FieldMap, read_corpus
from judgeagent.config import IndexConfig
from judgeagent.errors import JudgeAgentError


# corpus.py:111 `_check_columns`' `and` as `or`: a field named by a dotted path into a struct column (the column is
# the path's first step) and a flat column whose own name has a dot are both there, not missing columns
def test_corpus_a_parquet_field_may_be_a_path_into_a_struct_or_a_column_named_with_a_dot(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"doc.id": ["p1"], "abstract": [{"text": "CFTR is a gene."}]}), path)
    (doc,) = read_corpus(path, FieldMap(doc_id="doc.id", text="abstract.text")).documents
    assert (doc.doc_id, doc.text, doc.source) == ("p1", "CFTR is a gene.", f"{path}[row 0]")


# corpus.py:123 `first.startswith("#")` with "#" emptied: a Markdown file whose first line is no heading is titled
# by its file name, as a .txt file is (a .txt file's "#" line is no heading either)
def test_corpus_a_markdown_title_is_its_first_lines_heading_else_its_file_name(tmp_path):
    (tmp_path / "plain.md").write_text("\n  Bees live in hives.\n# Later heading\n", encoding="utf-8")
    (tmp_path / "head.md").write_text("\n## Bee Title ##\nBees.", encoding="utf-8")
    (tmp_path / "note.txt").write_text("# Not a heading\nText.", encoding="utf-8")
    titles = {d.doc_id: d.title for d in read_corpus(tmp_path).documents}
    assert titles == {"head": "Bee Title ##", "note": "note", "plain": "plain"}


# corpus.py:142 `{"value": meta}` with its key emptied: a record's meta that is not an object is kept under "value"
def test_corpus_a_meta_that_is_not_an_object_is_kept_under_value(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (
        {"doc_id": "a", "text": "A.", "meta": "CC0"}, {"doc_id": "b", "text": "B.", "meta": {"year": 2020}},
        {"doc_id": "c", "text": "C."})), encoding="utf-8")
    assert [d.meta for d in read_corpus(path).documents] == [{"value": "CC0"}, {"year": 2020}, {}]


# corpus.py:42 the "/" between the suffixes emptied, 50 "corpus " emptied, 101 "cannot read parquet file " emptied
# (seed 2): a corpus with no file to read, with no document, and an unreadable parquet file, word for word
def test_corpus_an_empty_corpus_and_an_unreadable_parquet_file_word_for_word(tmp_path):
    with pytest.raises(JudgeAgentError) as raised:
        read_corpus(tmp_path)
    assert str(raised.value) == f"corpus {tmp_path} has no .jsonl/.json/.txt/.md/.parquet files"
    (tmp_path / "blank.jsonl").write_text("\n \n", encoding="utf-8")
    with pytest.raises(JudgeAgentError) as raised:
        read_corpus(tmp_path)
    assert str(raised.value) == f"corpus {tmp_path} has no documents"
    damaged = tmp_path / "d.parquet"
    damaged.write_bytes(b"PAR1 not a parquet file")
    with pytest.raises(JudgeAgentError) as raised:
        read_corpus(damaged)
    assert str(raised.value).startswith(f"cannot read parquet file {damaged}: ") and "\n" not in str(raised.value)


# corpus.py:16 `frozen=True` as False (seed 3): a document cannot be changed in place (a corpus read once is shared
# by the chunker, the linker and the graph's records)
def test_corpus_a_document_cannot_be_changed_in_place(tmp_path):
    import dataclasses

    path = tmp_path / "docs.jsonl"
    path.write_text('{"doc_id": "a", "text": "A."}\n', encoding="utf-8")
    (doc,) = read_corpus(path).documents
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.text = "B."  # type: ignore[misc]
    assert doc.text == "A."


# corpus.py:62 " (expected one of " and ")" emptied (seed 3): an unsupported corpus file, word for word
def test_corpus_an_unsupported_corpus_file_word_for_word(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,b\n", encoding="utf-8")
    with pytest.raises(JudgeAgentError) as raised:
        read_corpus(path)
    assert str(raised.value) == f"unsupported corpus file {path} (expected one of .jsonl, .json, .txt, .md, .parquet)"


# embedding.py:59 `os.path.expanduser("~")` with "~" emptied: without JUDGEAGENT_CACHE (or with it empty) the static
# model is kept under the home folder's .cache, not under a .cache of whatever folder the process runs in
def test_embedding_the_static_model_is_kept_under_the_cache_variable_else_the_home_folder(tmp_path, monkeypatch):
    from judgeagent.embedding import static_model_folder

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for unset in (None, ""):
        if unset is None:
            monkeypatch.delenv("JUDGEAGENT_CACHE", raising=False)
        else:
            monkeypatch.setenv("JUDGEAGENT_CACHE", unset)
        assert static_model_folder() == tmp_path / "home" / ".cache" / "judgeagent" / "static-all-MiniLM-L6-v2"
    monkeypatch.setenv("JUDGEAGENT_CACHE", str(tmp_path / "cache"))
    assert static_model_folder() == tmp_path / "cache" / "static-all-MiniLM-L6-v2"


# embedding.py:97 `in ("1", "true", "yes")` as `not in`: HF_HUB_OFFLINE set says the hub cannot be reached, even
# where HF_ENDPOINT answers (a loopback listener here); unset, the answer is whether the endpoint takes a connection
def test_embedding_the_hub_is_reachable_when_its_endpoint_answers_unless_hf_hub_offline(monkeypatch):
    from judgeagent.embedding import _hub_reachable

    with socket.create_server(("127.0.0.1", 0)) as listener:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{listener.getsockname()[1]}")
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        assert _hub_reachable(timeout=2.0)
        for offline, reachable in (("1", False), ("TRUE", False), ("yes", False), ("0", True), ("", True)):
            monkeypatch.setenv("HF_HUB_OFFLINE", offline)
            assert _hub_reachable(timeout=2.0) is reachable, offline
        port = listener.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")  # closed now: refused at once
    assert not _hub_reachable(timeout=2.0)



# embedding.py:95 `timeout: float = 3.0` as 4.0 (seed 2): the hub check gives up after 3 s on an endpoint that takes
# no connection (a loopback listener whose one place in its queue is taken: the next SYN goes unanswered)
def test_embedding_the_hub_check_gives_up_after_3_seconds_on_an_endpoint_that_does_not_answer(monkeypatch):
    from judgeagent.embedding import _hub_reachable

    with socket.create_server(("127.0.0.1", 0), backlog=0) as listener, \
            socket.create_connection(listener.getsockname()):
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{listener.getsockname()[1]}")
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        start = time.monotonic()
        assert not _hub_reachable()
        assert 2.9 <= time.monotonic() - start < 3.9

def _unit_vectors(n: int, dim: int = 16) -> np.ndarray:
    vectors = np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


# embedding.py:260 `n < 256` as `n <= 256`, 263 `kind == "flat"` as `!=`, 293 the manifest's "pq_m" emptied: each
# kind asked for is the index built and what the manifest records, IVF-PQ from 256 vectors (PQ's centroids a
# sub-space), exact search below
def test_embedding_each_index_kind_is_built_and_recorded_ivfpq_from_256_vectors():
    from judgeagent.embedding import build_index

    vectors = _unit_vectors(256)
    index, info = build_index(vectors, IndexConfig(kind="flat"))
    assert not hasattr(index, "hnsw") and not hasattr(index, "nprobe") and index.ntotal == 256
    assert info == {"kind": "flat", "n": 256, "dim": 16, "metric": "inner_product"}
    index, info = build_index(vectors, IndexConfig(kind="hnsw", hnsw_ef_search=40))
    assert index.hnsw.efSearch == 40 and index.ntotal == 256
    assert info["kind"] == "hnsw" and 0.9 <= info.pop("recall_at_10") <= 1.0
    index, info = build_index(vectors, IndexConfig(kind="ivfpq", pq_m=4))
    assert index.nprobe == 6 and index.ntotal == 256 and 0 < info.pop("recall_at_10") <= 1.0
    assert info == {"kind": "ivfpq", "n": 256, "dim": 16, "metric": "inner_product", "nlist": 6, "nprobe": 6,
                    "pq_m": 4, "trained_on": 256}  # nlist: min(4 * sqrt(256), 256 // 39)
    index, info = build_index(vectors[:255], IndexConfig(kind="ivfpq", pq_m=4))
    assert info == {"kind": "flat", "n": 255, "dim": 16, "metric": "inner_product"}
    assert not hasattr(index, "nprobe")


# embedding.py:297 `queries: int = 500` as 501: an index's recall is measured on 500 of its vectors unless told
def test_embedding_recall_at_10_asks_500_stored_vectors_unless_told():
    from judgeagent.embedding import build_index, recall_at_10

    vectors = _unit_vectors(600)
    index, _ = build_index(vectors, IndexConfig(kind="ivfpq", pq_m=4, ivf_nprobe=1))  # one list searched: recall < 1
    five_hundred = recall_at_10(index, vectors, 500)
    assert 0 < five_hundred < 1 and recall_at_10(index, vectors) == five_hundred
    assert recall_at_10(index, vectors, 501) != five_hundred  # the test can tell the two apart


# embedding.py:64 "config.json" emptied, 65 its encoding emptied (seed 2): a model folder given by its path is read
# as the static model when its config.json names model2vec (the packaged MiniLM's folder is not)
def test_embedding_a_static_model_folder_given_by_its_path_loads_as_the_static_model():
    from judgeagent.embedding import STATIC, Encoder, _is_static, resolve_model, static_model_folder

    Encoder(STATIC)  # distilled into the cache if it is not there yet
    folder = str(static_model_folder())
    encoder = Encoder(folder)
    assert encoder.static and encoder.dim == 256 and encoder.name == folder
    vectors = encoder.encode(["federal reserve", "a banana split"])
    assert vectors.shape == (2, 256) and np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-3)
    assert _is_static(folder) and not _is_static(resolve_model("all-MiniLM-L6-v2"))


# embedding.py:259 `n < config.ivf_min` as `<=`, 286 `n // 39` as `n // 40` (seed 2): `auto` is exact search up to
# exact_max vectors, HNSW below ivf_min, IVF-PQ from it, with min(4 sqrt(n), n // 39) lists
def test_embedding_auto_picks_the_index_by_size_and_ivfpq_has_n_over_39_lists():
    from judgeagent.embedding import build_index

    config = IndexConfig(exact_max=10, ivf_min=273, pq_m=4)
    kinds = {n: build_index(_unit_vectors(n), config)[1]["kind"] for n in (10, 11, 272, 273)}
    assert kinds == {10: "flat", 11: "hnsw", 272: "hnsw", 273: "ivfpq"}
    _, info = build_index(_unit_vectors(273), config)
    assert (info["nlist"], info["trained_on"]) == (7, 273)  # 273 // 39 = 7 (// 40: 6), under 4 * sqrt(273) = 66


# embedding.py:183 `normalize_embeddings=True` as False (seed 2): a list longer than SMALL goes through
# SentenceTransformer.encode, and its vectors are unit vectors too, for a model without a Normalize module (the
# packaged MiniLM's own folder, that module left out of its modules.json) as for the small lists `_one_batch` takes;
# 146 `get_dim() or 0` as `and 0` (seed 3): the encoder's dim is the model's
def test_embedding_a_model_without_a_normalize_module_still_gives_unit_vectors_to_long_lists(tmp_path):
    from judgeagent.embedding import Encoder, resolve_model
    from judgeagent.threads import SMALL

    packaged = Path(resolve_model("all-MiniLM-L6-v2"))
    for item in packaged.iterdir():
        if item.name != "modules.json":
            (tmp_path / item.name).symlink_to(item)
    modules = json.loads((packaged / "modules.json").read_text(encoding="utf-8"))
    (tmp_path / "modules.json").write_text(json.dumps([m for m in modules if not m["type"].endswith("Normalize")]))
    encoder = Encoder(str(tmp_path))
    texts = [f"The Federal Reserve met in week {i} of 2023." for i in range(SMALL + 1)]
    many, few = encoder.encode(texts), encoder.encode(texts[:3])
    assert encoder.dim == 384 and many.shape == (SMALL + 1, 384)
    np.testing.assert_allclose(np.linalg.norm(many, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(few, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(many[:3], few, atol=1e-5)



# embedding.py:285 "index pq_m " emptied (seed 3): sub-quantizers that do not divide the dimension, word for word;
# 303 `replace=False` as True: with as many queries as vectors, every stored vector is asked once
def test_embedding_a_pq_m_that_does_not_divide_the_dimension_and_recall_over_every_vector(tmp_path):
    import faiss

    from judgeagent.embedding import build_index, recall_at_10

    vectors = _unit_vectors(300)
    with pytest.raises(JudgeAgentError) as raised:
        build_index(vectors, IndexConfig(kind="ivfpq", pq_m=5))
    assert str(raised.value) == "index pq_m 5 does not divide the embedding dimension 16"
    index, _ = build_index(vectors, IndexConfig(kind="ivfpq", pq_m=4, ivf_nprobe=1))
    _, exact = faiss.knn(vectors, vectors, 10, metric=faiss.METRIC_INNER_PRODUCT)
    _, found = index.search(vectors, 10)
    hits = sum(len(set(a.tolist()) & set(b.tolist())) for a, b in zip(exact, found))
    assert recall_at_10(index, vectors, 300) == recall_at_10(index, vectors, 1000) == round(hits / 3000, 4) < 1


# embedding.py:178 the static vectors' `/ norm` as `* norm` (seed 3): a model2vec folder that does not normalise its
# own vectors (the distilled model's config with "normalize": false) still gives unit vectors
def test_embedding_a_static_model_that_does_not_normalise_still_gives_unit_vectors(tmp_path):
    from judgeagent.embedding import STATIC, Encoder, static_model_folder

    Encoder(STATIC)  # distilled into the cache if it is not there yet
    for item in static_model_folder().iterdir():
        if item.name != "config.json":
            (tmp_path / item.name).symlink_to(item)
    config = json.loads((static_model_folder() / "config.json").read_text(encoding="utf-8"))
    (tmp_path / "config.json").write_text(json.dumps({**config, "normalize": False}), encoding="utf-8")
    encoder = Encoder(str(tmp_path))
    texts = ["The Federal Reserve raised interest rates.", "a banana split"]
    raw = np.asarray(encoder.model.encode(texts), dtype=np.float32)
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1, atol=0.05)  # the model's own vectors are not unit ones
    vectors = encoder.encode(texts)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-3)
    np.testing.assert_allclose(vectors, Encoder(STATIC).encode(texts), atol=2e-3)
