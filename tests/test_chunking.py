from judgeagent import ChunkConfig, read_corpus
from judgeagent.chunking import _sentences, chunk_documents
from judgeagent.corpus import Document
from tests.conftest import DATA


def _docs():
    return read_corpus(DATA / "multihop_rag" / "small.docs.jsonl").documents[:15]


def test_chunks_are_whole_sentences_covering_the_document():
    docs = _docs()
    chunks = chunk_documents(docs, ChunkConfig(max_words=120, min_words=30))
    by_doc = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    for doc in docs:
        own = by_doc[doc.doc_id]
        assert [c.position for c in own] == list(range(len(own)))
        for c in own:
            assert c.text == doc.text[c.start:c.end]
        sentences = _sentences(doc.text)
        boundaries = {s.start for s in sentences} | {s.end for s in sentences}
        for c in own:  # a chunk starts and ends on sentence boundaries: no sentence is split
            assert c.start in boundaries and c.end in boundaries
        covered = sum(c.n_words for c in own)
        assert covered == sum(s.n_words for s in sentences)
        for c in own[:-1]:  # only a single overlong sentence may exceed the size
            assert c.n_words <= 120 or len([s for s in sentences if c.start <= s.start < c.end]) == 1


def test_chunk_ids_are_stable_and_size_is_configurable():
    docs = _docs()
    a = chunk_documents(docs, ChunkConfig(max_words=150))
    b = chunk_documents(docs, ChunkConfig(max_words=150))
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
    assert a[0].chunk_id == f"{docs[0].doc_id}#0"
    small = chunk_documents(docs, ChunkConfig(max_words=60, min_words=10))
    assert len(small) > len(a)


def test_short_tail_is_merged_and_long_sentence_kept_whole():
    long_sentence = " ".join(["word"] * 80) + "."
    doc = Document("d", "", "First sentence is here. " + long_sentence + " Tiny end.")
    chunks = chunk_documents([doc], ChunkConfig(max_words=20, min_words=5))
    assert any(c.n_words >= 80 for c in chunks)
    assert chunks[-1].text.endswith("Tiny end.")
    assert all(c.n_words >= 5 for c in chunks)


def test_a_document_over_spacys_length_limit_is_chunked_without_splitting_a_sentence():
    # 1.2 MB in one paragraph: spaCy refuses texts over 1,000,000 characters (E088).
    sentences = [f"Report {i} says that river {i % 7} floods the valley of town {i % 13} in spring."
                 for i in range(17_500)]
    text = " ".join(sentences)
    assert len(text) > 1_200_000 and "\n" not in text
    chunks = chunk_documents([Document("big", "", text)], ChunkConfig(max_words=150))
    assert " ".join(c.text for c in chunks) == text  # every sentence, in order, each in one chunk
    assert all(c.text.startswith("Report ") and c.text.endswith(" in spring.") for c in chunks)
    assert max(c.n_words for c in chunks) <= 150


def test_a_long_text_without_sentence_ends_is_chunked_whole():
    words = "the river floods the valley of the town in spring and the people move north".split()
    text = " ".join(words[i % len(words)] for i in range(250_000))  # 1.2 MB, not one full stop
    assert len(text) > 1_200_000
    chunks = chunk_documents([Document("flat", "", text)])
    assert " ".join(c.text for c in chunks) == text
