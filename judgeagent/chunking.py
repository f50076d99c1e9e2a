"""Document -> Chunks: sentences packed into chunks of about `max_words`, never a split sentence."""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .config import ChunkConfig
from .corpus import Document

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+")
# Characters per spaCy call: spaCy refuses texts over 1,000,000 (E088), and smaller pieces keep memory flat.
_WINDOW = 100_000


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    """`<doc_id>#<position>`: stable for the same document text and chunking settings."""
    doc_id: str
    position: int
    text: str
    start: int
    """Character offsets of the chunk in its document's text."""
    end: int
    n_words: int


@dataclass(frozen=True)
class _Sentence:
    start: int
    end: int
    n_words: int
    opens_paragraph: bool


@lru_cache(maxsize=1)
def _sentencizer():  # type: ignore[no-untyped-def]
    # A rule-based splitter on spaCy's tokenizer: ~250k words/s here, against ~7k for the full parser,
    # so chunking costs little next to the model stages.
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def chunk_documents(documents: Sequence[Document], config: ChunkConfig = ChunkConfig()) -> list[Chunk]:
    return [chunk for chunks in iter_chunks(documents, config) for chunk in chunks]


def iter_chunks(
    documents: Sequence[Document], config: ChunkConfig = ChunkConfig()
) -> Iterator[list[Chunk]]:
    """Chunks per document, in order, for callers that report progress."""
    for doc in documents:
        yield _chunk(doc, _sentences(doc.text), config)


def _sentences(text: str) -> list[_Sentence]:
    pieces = [(offset, piece, k == 0) for start, para in _paragraphs(text)
              for k, (offset, piece) in enumerate(_windows(start, para))]
    nlp = _sentencizer()
    sentences: list[_Sentence] = []
    for (offset, _, opens), parsed in zip(pieces, nlp.pipe(p for _, p, _ in pieces)):
        for i, sent in enumerate(parsed.sents):
            words = sum(1 for tok in sent if not tok.is_punct and not tok.is_space)
            if words == 0 and sentences:
                continue
            start = offset + sent.start_char
            sentences.append(_Sentence(start, offset + sent.end_char, words, opens and i == 0))
    return sentences


def _windows(offset: int, text: str) -> Iterator[tuple[int, str]]:
    """`text` in pieces of at most `_WINDOW` characters, with their offsets."""
    start = 0
    while len(text) - start > _WINDOW:
        cut = _cut(text, start, start + _WINDOW)
        yield offset + start, text[start:cut]
        start = cut
    yield offset + start, text[start:]


def _cut(text: str, start: int, limit: int) -> int:
    """Where to end a piece: after its last sentence end, so that no sentence is split; in a text with
    none, at its last space (a sentence of 100,000 characters is no sentence)."""
    window = text[start:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends:
        return start + ends[-1]
    space = max(window.rfind(" "), window.rfind("\n"))
    return start + space + 1 if space > 0 else limit


def _paragraphs(text: str) -> list[tuple[int, str]]:
    spans, start = [], 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        spans.append((start, text[start:match.start()]))
        start = match.end()
    spans.append((start, text[start:]))
    return [(s, p) for s, p in spans if p.strip()]


def _chunk(doc: Document, sentences: Iterable[_Sentence], config: ChunkConfig) -> list[Chunk]:
    groups: list[list[_Sentence]] = []
    current: list[_Sentence] = []
    words = 0
    for sent in sentences:
        full = words + sent.n_words > config.max_words
        # Prefer a paragraph break once the chunk is half full: chunks then follow the author's units.
        paragraph_end = sent.opens_paragraph and words >= config.max_words // 2
        if current and (full or paragraph_end):
            groups.append(current)
            current, words = [], 0
        current.append(sent)
        words += sent.n_words
    if current:
        groups.append(current)
    return [_make_chunk(doc, i, group) for i, group in enumerate(_merge_short(groups, config.min_words))]


def _merge_short(groups: list[list[_Sentence]], min_words: int) -> list[list[_Sentence]]:
    """A group under `min_words` (a lone heading, a closing line) joins its next neighbour, the last
    one its previous: a chunk too small to say anything makes a poor retrieval unit."""
    merged: list[list[_Sentence]] = []
    carry: list[_Sentence] = []
    for group in groups:
        group = carry + group
        carry = []
        if sum(s.n_words for s in group) < min_words:
            carry = group
        else:
            merged.append(group)
    if carry:
        if merged:
            merged[-1].extend(carry)
        else:
            merged.append(carry)
    return merged


def _make_chunk(doc: Document, position: int, group: list[_Sentence]) -> Chunk:
    start, end = group[0].start, group[-1].end
    return Chunk(
        chunk_id=f"{doc.doc_id}#{position}",
        doc_id=doc.doc_id,
        position=position,
        text=doc.text[start:end],
        start=start,
        end=end,
        n_words=sum(s.n_words for s in group),
    )
