"""The pieces that let the ray engine stream the chunk side of a graph to disk: linking block by block
gives the one-pass tables, and `ChunkWriter` writes row groups and vectors that read back the same."""
import dataclasses
import itertools

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from judgeagent import JudgeAgentError
from judgeagent.chunking import iter_chunks
from judgeagent.config import ChunkConfig
from judgeagent.corpus import read_corpus
from judgeagent.graph.link import Linker, link
from judgeagent.graph.store import ChunkWriter
from tests.conftest import DATA


def _extracted(extractor, limit=None):
    docs = read_corpus(DATA / "multihop_rag" / "small.docs.jsonl").documents[:limit]
    chunks = [c for doc_chunks in iter_chunks(docs, ChunkConfig()) for c in doc_chunks]
    return docs, chunks, extractor.extract([c.text for c in chunks])


@pytest.fixture(scope="module")
def small(extractor):
    """MultiHop-RAG small: documents, chunks and real spaCy mentions (a spaCy pass of about 20 s CPU)."""
    return _extracted(extractor)


@pytest.fixture(scope="module")
def few(extractor):
    """Its first 12 documents: enough for the writer's row groups and a duplicate, a fifth of the spaCy pass
    (the fast tests' fixture; the whole corpus is for the slow linking test's real-graph sizes)."""
    return _extracted(extractor, 12)


def _blocks(docs, chunks, mentions, bounds):
    for a, b in itertools.pairwise(bounds):
        ids = {d.doc_id for d in docs[a:b]}
        rows = [i for i, c in enumerate(chunks) if c.doc_id in ids]
        yield docs[a:b], [chunks[i] for i in rows], [mentions[i] for i in rows]


def test_linking_block_by_block_gives_the_one_pass_tables(small):
    docs, chunks, mentions = small
    one_pass = Linker()
    whole = link(docs, chunks, mentions, one_pass)
    linker, parts = Linker(), []
    for block in _blocks(docs, chunks, mentions, [0, 1, 9, 10, 37, len(docs)]):  # uneven, one of one doc
        parts.append(linker.add(*block))
    rest = linker.finish()
    assert pa.concat_tables([c for c, _ in parts]).equals(whole["chunks"])
    assert pa.concat_tables([m for _, m in parts]).equals(whole["mentions"])
    for name in ("documents", "entities", "edges"):
        assert rest[name].equals(whole[name]), name
    labelled = linker.section_label_docs()  # what specificity reads (graph/specificity.py), as the ray engine links
    assert np.array_equal(labelled, one_pass.section_label_docs()) and labelled.max() >= 2
    assert whole["entities"].num_rows > 1000 and whole["edges"].num_rows > 10_000  # a real graph, not a toy


def test_a_doc_id_seen_in_an_earlier_block_is_refused_with_both_places(few):
    docs, chunks, mentions = few
    linker = Linker()
    linker.add(*next(_blocks(docs, chunks, mentions, [0, 2])))
    again = dataclasses.replace(docs[1], source="other.jsonl:7")
    with pytest.raises(JudgeAgentError, match=rf"duplicate doc_id '{docs[1].doc_id}' at other.jsonl:7 \(first at "):
        linker.add([again], [], [])


def test_chunk_writer_writes_row_groups_and_vectors_that_read_back_equal(few, tmp_path, monkeypatch):
    docs, chunks, mentions = few
    monkeypatch.setattr(ChunkWriter, "ROWS_PER_GROUP", 30)
    rng = np.random.default_rng(0)
    linker, writer, tables, vectors = Linker(), ChunkWriter(tmp_path), [], []
    for block in _blocks(docs, chunks, mentions, list(range(len(docs) + 1))):
        chunk_table, mention_table = linker.add(*block)
        block_vectors = rng.standard_normal((chunk_table.num_rows, 16)).astype(np.float32)
        writer.add(chunk_table, mention_table, block_vectors)
        tables.append((chunk_table, mention_table))
        vectors.append(block_vectors)
    stored = writer.close(16)
    assert [p.name for p in sorted(tmp_path.iterdir())] == ["chunk_vectors.npy", "chunks.parquet", "mentions.parquet"]
    assert pq.read_table(tmp_path / "chunks.parquet").equals(pa.concat_tables([c for c, _ in tables]))
    assert pq.read_table(tmp_path / "mentions.parquet").equals(pa.concat_tables([m for _, m in tables]))
    meta = pq.ParquetFile(tmp_path / "chunks.parquet").metadata  # written in parts as blocks came, not at the end:
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert len(sizes) > 3 and all(n >= 30 for n in sizes[:-1]), sizes
    assert isinstance(stored, np.memmap)
    np.testing.assert_array_equal(np.load(tmp_path / "chunk_vectors.npy"), np.concatenate(vectors))


def test_chunk_writer_with_no_chunks_writes_empty_files(tmp_path):
    writer = ChunkWriter(tmp_path)
    writer.add(*Linker().add([], [], []), np.zeros((0, 8), np.float32))
    stored = writer.close(8)
    assert stored.shape == (0, 8)
    assert pq.read_table(tmp_path / "chunks.parquet").num_rows == 0
    assert pq.read_table(tmp_path / "mentions.parquet").schema.field("entity_id").type == pa.int32()
