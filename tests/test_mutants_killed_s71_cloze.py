"""The tests written at stop 71 against the survivors of the first samples of the easy tier's cloze questions
(protocols/judgeagent/cloze.py, seeds 1 to 7): the sentences split, the answers tiered, the pronoun-led sentences read
with the one before them, answers given away only as whole words, a sentence asked once before any is asked twice,
and on a real two-document graph the context sentence's length bound, a name opening a chunk, damaged mention offsets
and the default seed. The mutant each kills is in the comment above it."""
from __future__ import annotations

import json
import random
from dataclasses import replace

import pyarrow as pa
import pytest

from judgeagent import build_graph
from judgeagent.protocols.judgeagent.cloze import (
    Cloze,
    _anaphoric,
    _Candidate,
    _complete,
    _gives_away,
    _n_words,
    _select,
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


# cloze.py:44 `_OPENERS` emptied: a sentence opening with a quote or a bracket no longer began a new one, and a
# quoted abbreviation ('"Dr.') ended its sentence
def test_a_sentence_may_open_with_a_quote_or_a_bracket_and_a_quoted_abbreviation_does_not_end_one():
    assert _pieces('He waved. "Come in," she said. (It rained.) He met "Dr. Who" today.') == [
        "He waved.", '"Come in," she said.', "(It rained.)", 'He met "Dr. Who" today.']


# cloze.py:137 `text[end - 1]` as `text[end - 2]` in `_trim`: a sentence's trailing space kept, and a last word of one
# letter cut off
def test_a_last_sentence_loses_its_trailing_space_and_keeps_a_one_letter_word():
    assert _pieces("It rained. Then came plan B") == ["It rained.", "Then came plan B"]
    assert _pieces("It rained. Then the sun came out. \n") == ["It rained.", "Then the sun came out."]


# cloze.py:247 `_complete`'s `and` as `or`: a heading (a capital, no end mark) or a lower-case fragment read as a whole
# statement
def test_a_whole_statement_opens_with_a_capital_or_digit_and_ends_with_a_full_stop_or_exclamation_mark():
    assert _complete("It rained.") and _complete('"1871 was wet!"') and _complete("(It rained.)")
    assert not _complete("Chapter One") and not _complete("it rained.") and not _complete("Did it rain?")


# cloze.py:40 'and' left out of `_CONJUNCTIONS`: "And it ..." then opens with "and", no pronoun, and the sentence
# was asked without the one that says what "it" is
def test_a_pronoun_after_an_opening_conjunction_still_points_back():
    for sentence in ("And it was lit in 1871.", "But they never came back.", "So this was the end.",
                     "Yet she stayed.", "Or he left.", "Still it shone.", "Also they sang."):
        assert _anaphoric(sentence), sentence
    assert not _anaphoric("And Margaret stayed.")
    # cloze.py:39 ('the', 'latter') emptied: "The latter" no longer pointed back
    assert _anaphoric("The latter was lit in 1871.") and _anaphoric("And the former closed.")
    assert not _anaphoric("The lighthouse was lit in 1871.")
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
    (70) words (Edinburgh's) and of one more (Glasgow's)."""
    folder = tmp_path_factory.mktemp("cloze_context")
    docs = [{"doc_id": f"d{n}", "title": "", "text": f"{_context(n)} She later moved to {city}, where she opened a "
             "school for young navigators and their families."} for n, city in ((70, "Edinburgh"), (71, "Glasgow"))]
    corpus = folder / "storm.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return build_graph(corpus, folder / "graph", extractor=extractor)


# cloze.py:194 `_n_words(prev) > MAX_WORDS` as `>=`: a context sentence of exactly MAX_WORDS words refused, so the
# pronoun-led sentence after it gave no question; cloze.py:20 MAX_WORDS 71: a 71-word context sentence shown
def test_a_context_sentence_of_max_words_is_shown_and_one_word_more_is_not(context_graph):
    g = context_graph
    assert {"Edinburgh", "Glasgow"} <= set(g.tables["mentions"]["surface"].to_pylist())  # both could be blanked
    found = {c.gold: c for c in cloze_questions(g, g.chunk_ids, count=50)}
    assert "Glasgow" not in found
    assert found["Edinburgh"].question == (
        f'Fill in the blank with the missing name or phrase: "{_context(70)} She later moved to ____, where '
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


def _damaged(graph, surface: str, start_shift: int, end_shift: int, new_surface: str):
    """`graph` with the mentions of `surface` moved by the shifts and given `new_surface` (a copy: the fixture stays)."""
    rows = graph.tables["mentions"].to_pylist()
    for r in rows:
        if r["surface"] == surface:
            r.update(start=r["start"] + start_shift, end=r["end"] + end_shift, surface=new_surface)
    table = pa.Table.from_pylist(rows, schema=graph.tables["mentions"].schema)
    return replace(graph, tables={**graph.tables, "mentions": table})


# cloze.py:170 the three offset checks joined by `and`, not `or`: a mention failing one of them (offsets that miss the
# surface, a surface with a space around it) blanked where the offsets point, the gold not what the sentence said
def test_a_mention_whose_offsets_miss_its_surface_or_whose_surface_is_padded_is_not_blanked(context_graph):
    golds = {c.gold for c in cloze_questions(context_graph, context_graph.chunk_ids, count=50)}
    assert "Edinburgh" in golds
    moved = _damaged(context_graph, "Edinburgh", 1, 1, "Edinburgh")  # in range, stripped, not the text's
    padded = _damaged(context_graph, "Edinburgh", -1, 0, " Edinburgh")  # the text's, in range, not stripped
    for graph in (moved, padded):
        found = cloze_questions(graph, graph.chunk_ids, count=50)
        assert found and not any("Edinburgh" in c.gold for c in found)


# cloze.py:88 `seed: int = 0` as 1: the documented default is seed 0, so a caller without a seed gets seed 0's questions
def test_no_seed_is_seed_0(context_graph):
    g = context_graph
    unseeded = cloze_questions(g, g.chunk_ids, count=2)
    assert unseeded == cloze_questions(g, g.chunk_ids, count=2, seed=0)
    assert unseeded != cloze_questions(g, g.chunk_ids, count=2, seed=1)  # the seed does choose


# cloze.py:299 a space left out of `_view`'s padding: the answer then matched inside a longer word ("Ark" in "park",
# in "Arkansas"), and a question that does not state it was refused
def test_an_answer_gives_itself_away_only_as_whole_words():
    assert not _gives_away("We walked in the park.", "Ark")
    assert not _gives_away("The Arkansas river floods.", "Ark")
    assert _gives_away("Noah built the Ark.", "ark")
    assert _gives_away("They sailed to Sputnik 1.", "Sputnik 2")  # half of its content words


def _pick(question: str, gold: str, sentence: int, tier: int) -> _Candidate:
    cloze = Cloze(question, gold, (), "c#0", gold, question.replace("____", gold))
    return _Candidate(cloze, tier, ("c#0", sentence), frozenset({gold.lower()}))


# cloze.py:312 the key's clash flag `flags[i][0]` read as flags[i][1]: a second blank in the sentence already asked
# (a better tier) chosen over another sentence's question
def test_a_second_blank_in_an_asked_sentence_comes_after_any_other_sentence():
    ship = _pick("____ sailed from Bergen in 1871.", "Norway", 0, 0)
    port = _pick("Norway sailed from ____ in 1871.", "Bergen", 0, 0)
    other = _pick("The keepers lit the ____ every night.", "lamp room", 1, 2)
    for seed in range(8):
        chosen = _select([ship, port, other], 2, random.Random(seed))
        assert len(chosen) == 2 and chosen[1] == other.cloze and chosen[0] in (ship.cloze, port.cloze)


# cloze.py:326 `_clash`'s three conditions joined by `and`, not `or`: a question that shares an asked question's
# sentence, or shows its answer, or whose answer it shows, no longer came after the questions that do none of these
def test_any_one_clash_puts_a_question_after_those_without_one():
    asked = _pick("____ sailed from the harbour in 1871.", "Norway", 0, 0)
    other = _pick("The keepers lit the ____ every night.", "lamp room", 2, 2)
    for rival in (_pick("The ____ of the harbour shone that year.", "beacon", 0, 0),  # the same sentence only
                  _pick("Traders from Norway sold ____ there.", "dried cod", 1, 0),  # it shows the asked answer
                  _pick("The ____ lay empty all winter.", "harbour", 1, 0)):  # the asked question shows its answer
        for seed in range(8):
            chosen = _select([asked, rival, other], 2, random.Random(seed))
            assert chosen[1] == other.cloze, (rival.cloze.gold, seed)


# cloze.py:319 `f[0] or _clash(...)` as `f[1] or _clash(...)`: a clash with an earlier pick forgotten at the next pick
# that does not clash, so the second blank of the first sentence came back third
def test_a_clash_is_remembered_through_later_picks():
    asked = _pick("____ sailed from the harbour in 1871.", "Norway", 0, 0)
    rival = _pick("The ____ of the harbour shone that year.", "beacon", 0, 0)  # the same sentence
    later = [_pick("The keepers lit the ____ every night.", "lamp room", 1, 2),
             _pick("Gulls nested on the ____ each spring.", "north cliff", 2, 2)]
    for seed in range(8):
        chosen = _select([asked, rival, *later], 3, random.Random(seed))
        assert chosen[0] in (asked.cloze, rival.cloze) and set(chosen[1:]) == {c.cloze for c in later}, seed
