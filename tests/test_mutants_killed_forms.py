"""The word forms (grading/forms.py) and the contrast, enumeration and other-name helpers (grading/phrases.py), by
hand: written to kill the surviving mutants of scripts/mutants.py (issue 47). Real spaCy (en_core_web_sm), no graph.
Each test names the helper and the inputs that tell a working one from a broken one."""
from __future__ import annotations

import threading

from judgeagent.grading import forms
from judgeagent.grading.answers import check_free_text
from judgeagent.grading.forms import plain, stems, unhyphen
from judgeagent.grading.phrases import listed, other_name_first

# --- forms.py: folding and word forms ------------------------------------------------------------------------


def test_plain_folds_each_special_letter_accents_and_full_width_forms():
    # each letter NFKD cannot split has its own spelling; a lost one leaves the letter or drops it ("Cæsar" -> "Csar")
    assert plain("ß æ œ ø đ ł ı þ") == "ss ae oe o d l i th"
    assert plain("Cæsar Straße þór") == "Caesar Strasse thor"
    assert plain("Dáin Ｐａｒｉｓ") == "Dain Paris"
    # the capitals too, case kept: a reply "Þór" is the gold "Thor" (they were kept as they were before stop 57)
    assert plain("ẞ Æ Œ Ø Đ Ł Þ") == "SS Ae Oe O D L Th"
    assert plain("Þór Ærøskøbing Łódź Đorđe") == "Thor Aeroskobing Lodz Dorde"
    assert unhyphen("Jean-Pierre a‐b‑c‒d–e—f―g") == "Jean Pierre a b c d e f g"


def test_stems_keep_only_content_words():
    # a determiner, preposition, auxiliary or pronoun carries no answer: kept, "It is on the wall" would need
    # "it", "be", "on" and "the" said again
    assert stems("It is on the wall of a house") == ("wall", "hous")
    assert stems("She was painting the walls in Paris") == ("paint", "wall", "paris")
    assert stems("They are painters") == ("paint",)
    # conjunctions and particles neither: "and", "because", "if", "not", "to"
    assert stems("Paris and Lyon because it is not to be") == ("paris", "lyon")
    assert stems("Paris or Lyon, if the rain stops") == ("paris", "lyon", "rain", "stop")


def test_the_pipeline_loads_without_the_parser_the_entities_and_the_sentences():
    # the lemmas and parts of speech need the tagger alone: the parser and NER would slow every reply's check
    pipeline = forms._lemmatiser()
    assert pipeline.component_names == ["tok2vec", "tagger", "attribute_ruler", "lemmatizer"]


def test_a_lone_letter_is_content_but_a_and_i_are_not():
    assert stems("s-block") == ("s", "block") != stems("p-block") == ("p", "block")
    assert stems("Vitamin A") == ("vitamin", "a")  # a letter that is a name, not the article
    assert stems("a painter") == ("paint",)  # the article "a" is no letter of the answer
    assert stems("I painted it") == ("paint",)


def test_names_keep_their_letters_and_other_words_lose_their_endings():
    assert stems("Ross") == ("ross",) and stems("Rose") == ("ros",)  # "Ross" is not "Rose"
    # a 4-letter lemma is stemmed ("bake" -> "bak") and a 3-letter stem kept ("bakers" -> "bak"): the two meet
    assert stems("bake") == stems("the bakers") == ("bak",)
    # a doubled consonant after a 4-letter stem goes ("runn" -> "run"), as after a longer one
    assert stems("the runners") == ("run",)
    # ... and not after a 3-letter one ("add", "odd"), nor an "l" ("call")
    assert stems("an adder") == ("add",) and stems("the odds") == ("odd",) and stems("the callers") == ("call",)
    assert stems("sharecroppers") == stems("Sharecropping") == ("sharecrop",)


def test_preload_loads_the_pipeline_once_on_a_background_thread():
    forms._load.cache_clear()
    forms.preload()
    loaders = [t for t in threading.enumerate() if t.name == "grading-spacy"]
    assert loaders, "preload started no loading thread with nothing loaded"
    for t in loaders:
        t.join(60)
    assert forms._load.cache_info().currsize == 1
    forms.preload()  # loaded already: no second thread
    assert not [t for t in threading.enumerate() if t.name == "grading-spacy"]


# --- phrases.py: contrast words, enumerations, another name before the gold ----------------------------------

CONTRAST_WORDS = [
    "or", "either", "whether", "instead", "rather", "than", "unlike", "versus", "vs", "against", "but", "however",
    "although", "though", "whereas", "runner", "runners", "runnerup", "runnersup", "maybe", "perhaps", "possibly",
    "probably", "might", "could", "unsure", "uncertain", "depending", "depends", "assume", "assumed", "think",
    "thought", "believe", "believed", "claim", "claimed", "mistakenly", "incorrect", "wrong", "false", "myth",
    "contrary"]


def test_each_contrast_word_leaves_a_reply_with_the_gold_to_the_judge():
    question = "What is the capital of France?"
    assert check_free_text("Paris, the capital", "Paris", question=question).correct is True  # no contrast: decided
    decided = {w: check_free_text(f"Paris, {w} Lyon", "Paris", question=question) for w in CONTRAST_WORDS}
    assert {w: v for w, v in decided.items() if v is not None} == {}


def test_listed_finds_the_gold_as_one_item_of_an_enumeration():
    assert listed("Paris and Lyon", ["paris"]) and listed("Lyon and Paris", ["paris"])
    assert listed("Lyon, Paris, Rome", ["paris"]) and listed("Paris / Lyon", ["paris"])
    assert listed("New York and Paris", ["new", "york"])
    assert not listed("The Paris", ["paris"]) and not listed("Paris, the capital", ["paris"])
    assert not listed("the city of New York", ["new", "york"])
    # punctuation reads as a space: a quoted list or a label without one still lists the gold
    assert listed('["Lyon","Paris"]', ["paris"]) and listed("Answer:Paris and Lyon", ["paris"])


def test_another_name_asserted_before_the_gold():
    # a name opening the reply, or after "is"/"was"/"are"/"were"/"by", that no known word is part of
    assert other_name_first("Apple, which Google pays, is the answer", {"google"}, ["google"])
    assert other_name_first("The winners were Lyon and Paris", {"winners", "paris"}, ["paris"])
    assert other_name_first("The winners are Lyon and then Paris", {"paris"}, ["paris"])
    assert other_name_first("The tower was Eiffel and then Paris", {"paris"}, ["paris"])
    assert other_name_first("It was built by Gustave Eiffel in Paris", {"paris"}, ["paris"])
    # the other name is known (the question's): no rival
    assert not other_name_first("It was built by Gustave Eiffel in Paris", {"eiffel", "paris"}, ["paris"])
    assert not other_name_first("The capital of France is Paris", {"capital", "france", "paris"}, ["paris"])
    # a name running into the gold is its longer form
    assert not other_name_first("Pallas Athena", {"athena"}, ["athena"])
    assert not other_name_first("Jean-Pierre Rampal", {"rampal"}, ["rampal"])
    # a word is matched without its punctuation: "O'Brien" is the gold "obrien", and "Conan" runs into it
    assert not other_name_first("The host was Conan O'Brien", {"host", "obrien"}, ["obrien"])


def test_only_names_before_the_whole_gold_count():
    # after the gold: not what the reply asserts first
    assert not other_name_first("The winner is Paris and the loser is Rome", {"paris", "winner"}, ["paris"])
    # the gold's first word alone ("new") is not the gold: the name after it, before "New York", counts
    assert other_name_first("It is new, and the winner was Boston, then New York", {"new", "york", "winner"},
                            ["new", "york"])


def test_the_word_before_a_name_skips_articles_and_punctuation():
    known = {"winner", "paris"}
    assert other_name_first("The winner was the Lyon team, then Paris", known, ["paris"])
    assert other_name_first("The winner was: Lyon, then Paris", known, ["paris"])


def test_only_the_first_400_characters_are_read():
    def reply(length: int) -> str:
        tail = "The capital was Paris"
        text = ("It is late. " * 40)[:length - len(tail) - 1] + " " + tail
        assert len(text) == length
        return text

    known = {"capital", "paris"}
    assert not other_name_first(reply(400), known, ["paris"])  # the gold ends at character 400: read whole
    assert other_name_first(reply(401), known, ["paris"])  # cut to "Pari": another name after "was"
