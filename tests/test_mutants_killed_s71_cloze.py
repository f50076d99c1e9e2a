"""The tests written at stop 71 against the survivors of the first samples of the easy tier's cloze questions
(protocols/judgeagent/cloze.py, seeds 1 and 2): the sentences split, the answers tiered, the pronoun-led sentences read
with the one before them, and on a real two-document graph the context sentence's length bound and a name opening a
chunk. The mutant each kills is in the comment above it."""
from __future__ import annotations

import json

import pytest

from judgeagent import build_graph
from judgeagent.protocols.judgeagent.cloze import (
    MAX_WORDS,
    _anaphoric,
    _n_words,
    _tier,
    cloze_questions,
    split_sentences,
)


def _pieces(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


# cloze.py:118 `m.group().startswith(".")` as startswith(""): a `?` or `!` after a one-letter word read as an
# initial's full stop, so the question and its answer came back as one sentence
def test_a_question_or_exclamation_mark_after_one_letter_ends_the_sentence():
    assert _pieces("Is it plan B? Yes it is. We chose plan C! Then we left.") == [
        "Is it plan B?", "Yes it is.", "We chose plan C!", "Then we left."]
    assert _pieces("We met Dr. Smith. He left.") == ["We met Dr. Smith.", "He left."]  # the full stop still waits


# cloze.py:40 'and' left out of `_CONJUNCTIONS`: "And it ..." then opens with "and", no pronoun, and the sentence
# was asked without the one that says what "it" is
def test_a_pronoun_after_an_opening_conjunction_still_points_back():
    for sentence in ("And it was lit in 1871.", "But they never came back.", "So this was the end.",
                     "Yet she stayed.", "Or he left.", "Still it shone.", "Also they sang."):
        assert _anaphoric(sentence), sentence
    assert not _anaphoric("And Margaret stayed.")
    assert not _anaphoric("Andrew stayed.")


# cloze.py:241 `> 1` as `>= 1`: a one-word noun chunk ranked with the multi-word ones (tier 1, not 2), so selection
# no longer preferred "ion engine" to "rockets"
def test_answers_are_tiered_names_then_phrases_then_single_words_then_short_ones():
    assert _tier("Ariane", "ORG") == 0
    assert _tier("ion engine", "CONCEPT") == 1
    assert _tier("the rockets", "CONCEPT") == 2  # one content word: the article does not count
    assert _tier("rockets", "") == 2
    assert _tier("US", "GPE") == 3
    assert _tier("the", "") is None


_STORM = "Margaret Holloway kept the light burning through the great storm of 1894"
_WAVES = " and the waves rose over the rocks"


def _context(words: int) -> str:
    """A sentence of exactly `words` words (at least 13), ending in a full stop."""
    extra = words - _n_words(_STORM)
    sentence = _STORM + _WAVES * (extra // 7) + " again" * (extra % 7) + "."
    assert _n_words(sentence) == words
    return sentence


@pytest.fixture(scope="module")
def context_graph(tmp_path_factory, extractor):
    """Two documents whose pronoun-led second sentence names a city, after a first sentence of exactly MAX_WORDS
    words (Edinburgh's) and of one more (Glasgow's)."""
    folder = tmp_path_factory.mktemp("cloze_context")
    docs = [{"doc_id": f"d{n}", "title": "", "text": f"{_context(n)} She later moved to {city}, where she opened a "
             "school for young navigators and their families."} for n, city in ((MAX_WORDS, "Edinburgh"),
                                                                               (MAX_WORDS + 1, "Glasgow"))]
    corpus = folder / "storm.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return build_graph(corpus, folder / "graph", extractor=extractor)


# cloze.py:194 `_n_words(prev) > MAX_WORDS` as `>=`: a context sentence of exactly MAX_WORDS words refused, so the
# pronoun-led sentence after it gave no question
def test_a_context_sentence_of_max_words_is_shown_and_one_word_more_is_not(context_graph):
    g = context_graph
    assert {"Edinburgh", "Glasgow"} <= set(g.tables["mentions"]["surface"].to_pylist())  # both could be blanked
    found = {c.gold: c for c in cloze_questions(g, g.chunk_ids, count=50)}
    assert "Glasgow" not in found
    assert found["Edinburgh"].question == (
        f'Fill in the blank with the missing name or phrase: "{_context(MAX_WORDS)} She later moved to ____, where '
        'she opened a school for young navigators and their families."')


# cloze.py:170 `0 <= m.start` as `0 < m.start`: a mention at the very start of a chunk's text skipped, so the name
# that opens a document could never be blanked
def test_a_mention_that_opens_the_chunk_can_be_blanked(context_graph):
    g = context_graph
    opening = [r for r in g.tables["mentions"].to_pylist() if r["start"] == 0 and r["surface"] == "Margaret Holloway"]
    assert opening  # the name opens both chunks
    found = {c.gold: c for c in cloze_questions(g, g.chunk_ids, count=50)}
    assert found["Margaret Holloway"].question.startswith(
        'Fill in the blank with the missing name or phrase: "____ kept the light burning through the great storm')
