"""The leakage guard, branch by branch, without a graph or a model: each way a text can state a gold answer is
found, each near miss is not, and redaction withholds exactly what was found."""
import pytest

from judgeagent.grading.leakage import leaked_strings, redact

FREE = ("Montreux", None, None)
SHORT = ("42", None, None)
CHOICE = ("Mars", {"A": "Venus", "B": "Mars", "C": "Jupiter"}, "B")
LONG_OPTION = ("B", {"A": "Saturn V", "B": "Ariane 5", "C": "Soyuz"}, "B")


@pytest.mark.parametrize("text, golds, found", [
    ("Think of the lake town Montreux.", [FREE], ["Montreux"]),  # a gold of four letters or more, as a phrase
    ("The montreux festival.", [FREE], ["Montreux"]),  # in any case
    ("Think of Montreuxville.", [FREE], []),  # not inside another word
    ("The answer is 42.", [SHORT], ["42"]),  # a short gold only when stated as the answer
    ("There were 42 delegates.", [SHORT], []),
    ("The correct option is: 42", [SHORT], ["42"]),
    ("Which planet? The answer is B.", [CHOICE], ["option B"]),  # the gold letter stated as the answer
    ("Look again at option (B)", [CHOICE], ["option B"]),
    ("the option BC is not a thing.", [CHOICE], []),  # a letter inside a longer token is no letter
    ("The rocket was the Ariane 5.", [LONG_OPTION], ["Ariane 5"]),  # the gold option's text
    ("It is red: Mars.", [CHOICE], ["Mars"]),
    ("Nothing to see here.", [FREE, SHORT, CHOICE], []),
    ("Think of LakeMontreux.", [FREE], []),  # nor at the end of one
    ("The answer is 420.", [SHORT], []),  # a short gold stated as part of another number is none
    ("Plan B works well.", [CHOICE], []),  # a bare letter is no answer
    ("option BC is not a thing.", [CHOICE], []),
])
def test_each_way_of_stating_a_gold_is_found_and_near_misses_are_not(text, golds, found):
    assert leaked_strings(text, golds) == found


def test_several_golds_are_found_once_each_in_order():
    text = "Montreux, Montreux; the answer is 42, and the answer is B (Mars)."
    assert leaked_strings(text, [FREE, SHORT, CHOICE]) == ["Montreux", "42", "Mars", "option B"]


def test_redaction_withholds_what_was_found_and_nothing_else():
    text = "The answer is B: Mars, not Venus. Montreux hosts jazz."
    found = leaked_strings(text, [FREE, CHOICE])
    assert redact(text, found) == "The answer is [withheld]: [withheld], not Venus. [withheld] hosts jazz."
    assert leaked_strings(redact(text, found), [FREE, CHOICE]) == []
    assert redact("option B or choice (B)", ["option B"]) == "option [withheld] or choice [withheld]"


def test_the_longest_string_is_withheld_first():
    """"Ariane" inside "Ariane 5": withheld whole, not as "[withheld] 5"."""
    assert redact("It flew on the Ariane 5.", ["Ariane", "Ariane 5"]) == "It flew on the [withheld]."
