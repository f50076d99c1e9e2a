"""The deterministic rules of answer checking: each with a case it catches and a case it lets pass,
the five misjudgments of the demo run, gold aliases, and the checks on generated questions."""
from __future__ import annotations

import asyncio
import json

import pytest

from judgeagent.benchmark import load_benchmark
from judgeagent.config import CheckerConfig
from judgeagent.grading.answers import AnswerChecker, check_free_text, is_refusal, numbers, question_type
from judgeagent.protocols.judgeagent.checks import answer_in_question, copied_sentence, rejection
from judgeagent.protocols.judgeagent.prompts import GeneratedQuestion


def decide(reply, gold, question="", others=()):
    return check_free_text(reply, gold, question=question, others=others)


# --- numbers --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("1,200 people", {1200.0}), ("twelve hundred", {12.0, 1200.0}), ("1.2 million", {1.2, 1.2e6}),
    ("the 3rd flight", {3.0}), ("twenty-one", {21.0}), ("a third of them", {3.0}), ("no numbers", set()),
])
def test_numbers_are_read_in_every_notation(text, expected):
    assert numbers(text) == expected


def test_a_different_number_is_left_to_the_judge():
    # `number_mismatch` was removed (#46: 25 of 28 right on EVOUNA's never-read quarter): no rule rejects it, and
    # without a judge token F1 settles it
    question = "In which year did the mission end?"
    assert decide("The mission ended in 2018.", "2016", question) is None
    v = asyncio.run(AnswerChecker().check(question, "2016", "The mission ended in 2018."))
    assert (v.correct, v.method) == (False, "undecided"), v


def test_the_same_number_in_other_notation_is_right():
    v = decide("It made sixty-seven more flights.", "67")
    assert v is None or v.correct
    assert decide("3", "three").correct
    assert decide("It was 1,200.", "1200").correct
    assert decide("About 1,200,000 people.", "1.2 million").correct  # the same number, approximately


def test_refusal_is_wrong_unless_the_gold_refuses():
    assert (decide("I don't know.", "Carl Sagan").method, decide("I don't know.", "Carl Sagan").correct) == \
        ("refusal", False)
    v = decide("The text does not say.", "Insufficient information.")
    assert (v.correct, v.method) == (True, "refusal")


def test_refusal_passes_a_reply_that_commits_after_hedging():
    assert not is_refusal("I'm not sure, but I think it was Carl Sagan.")
    v = decide("I'm not sure, but I think it was Carl Sagan.", "Carl Sagan")
    assert v is None or v.correct  # not refused by rule: the judge reads it


def test_other_answer_catches_another_items_gold():
    v = decide("Frank Drake", "Carl Sagan", others={"frank drake", "carl sagan"})
    assert (v.correct, v.method) == (False, "other_answer")
    v = decide("It was Frank Drake.", "Carl Sagan", others={"frank drake"})
    assert (v.correct, v.method) == (False, "other_answer")


def test_other_answer_passes_a_reply_that_also_names_the_gold():
    v = decide("Carl Sagan, with Frank Drake's help", "Carl Sagan", others={"frank drake"})
    assert v is None or v.correct


def test_hedges_and_negations_are_never_accepted_by_rule():
    for reply in ("Either Carl Sagan or Frank Drake.", "Not Carl Sagan.", "It was not Carl Sagan."):
        v = decide(reply, "Carl Sagan")
        assert v is None or not v.correct, reply


def test_a_gold_in_the_question_is_not_found_by_containment():
    # "the planet orbiting Saturn": a reply restating the question contains the gold
    v = decide("The planet orbiting Saturn is Earth.", "Saturn", "What is the name of the planet orbiting Saturn?")
    assert v is None or not v.correct


def test_first_sentence_states_the_gold_but_an_enumeration_does_not():
    assert decide("Neil Armstrong was the commander. He later taught engineering in Ohio.", "Neil Armstrong",
                  "Who commanded the first crewed landing?").correct
    assert decide("Google, Microsoft, Amazon and Meta all did something similar.", "Google") is None


def test_the_five_demo_misjudgments_are_not_correct():
    items = {i.question: i for i in load_benchmark("corpora/demo/questions.jsonl").items}
    cases = [("2016", "The mission ended in 2018."),
             ("Carl Sagan", "The Voyager Golden Record carries sounds and images of life on Earth."),
             ("67", "The answer is 10."),
             ("67P/Churyumov-Gerasimenko", "Comet 6710 Chiron")]
    others = {g for i in items.values() for g in i.golds}
    checker = AnswerChecker(CheckerConfig(), judge=None, others=frozenset(o.lower() for o in others))
    for gold, reply in cases:
        question = next((q for q, i in items.items() if i.gold == gold), "Q?")
        v = asyncio.run(checker.check(question, gold, reply))
        assert not v.correct, (gold, reply, v)
    # the fifth: an extension question that holds its own answer is refused before it is asked
    assert answer_in_question("What is the name of the planet orbiting Saturn?", "Saturn")


def test_a_period_is_not_a_number_mismatch():
    assert decide("The 1800s.", "19th century").correct  # the same period (rule `period`), not a mismatch
    assert decide("In the '90s.", "1990s").correct
    v = decide("In 1850.", "1920")
    assert v is None or not v.correct


def test_yes_no_hedges_are_wrong_and_statements_are_no_other_answer():
    v = decide("Yes or maybe; the data are limited.", "yes")
    assert (v.correct, v.method) == (False, "yes_no") and "hedges" in v.reason
    assert decide("Yes, the data support it.", "yes").correct
    # a statement answering a yes/no question is not "another item's answer"
    v = decide("The reporting was consistent.", "no", others={"consistent", "the reporting was consistent"})
    assert v is None or v.method != "other_answer"


def check_choice_reply(reply, options, gold_letter, judge_note="no judge"):
    checker = AnswerChecker(judge_note=judge_note)
    gold = options[gold_letter]
    return asyncio.run(checker.check("Q?", gold, reply, options=options, gold_letter=gold_letter))


MEDQA_OPTIONS = {"A": "Kussmaul sign", "B": "Pulsus paradoxus", "C": "Pericardial knock", "D": "Friction rub"}
PUBMED_OPTIONS = {"A": "yes", "B": "no", "C": "maybe"}


def test_a_choice_reply_without_a_letter_is_read_as_free_text():
    # the gold option in words, with extra words: not a wrong answer for lack of a letter
    v = check_choice_reply("The finding is pulsus paradoxus, caused by tamponade.", MEDQA_OPTIONS, "B")
    assert v.correct and v.method != "no_letter", v
    assert check_choice_reply("The evidence is mixed, so maybe.", PUBMED_OPTIONS, "C").correct
    assert check_choice_reply("D. maybe", PUBMED_OPTIONS, "C").correct  # D is no option: read the text
    # another option in words is wrong
    v = check_choice_reply("It is a friction rub.", MEDQA_OPTIONS, "B")
    assert not v.correct and v.method == "other_answer", v
    # nothing to go on: undecided, wrong, and it says why
    v = check_choice_reply("It depends on the haemodynamics.", MEDQA_OPTIONS, "B")
    assert (v.correct, v.method) == (False, "undecided")


def test_a_choice_reply_naming_several_options_is_wrong():
    v = check_choice_reply("B. Pulsus paradoxus\nD. Friction rub", MEDQA_OPTIONS, "B")
    assert (v.correct, v.method) == (False, "several_options")


def test_undecided_without_a_judge_says_so():
    v = asyncio.run(AnswerChecker(judge_note="the judge failed calibration").check(
        "Which bank?", "The Federal Reserve", "The central bank of the United States"))
    assert (v.correct, v.method) == (False, "undecided") and "failed calibration" in v.reason


def test_aliases_from_the_benchmark_are_accepted(tmp_path):
    path = tmp_path / "b.jsonl"
    rows = [{"qid": "1", "question": "Which US central bank sets rates?", "answer": ["Federal Reserve", "the Fed"]},
            {"qid": "2", "question": "Who wrote it?", "answer": "Carl Sagan", "aliases": "Sagan; C. Sagan"},
            {"qid": "3", "question": "Which agency?", "answer": "NASA", "answers": ["NASA", "National Aeronautics "
                                                                                  "and Space Administration"]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    a, b, c = load_benchmark(path).items
    assert a.golds == ("Federal Reserve", "the Fed") and b.aliases == ("Sagan", "C. Sagan")
    assert c.golds == ("NASA", "National Aeronautics and Space Administration")
    assert decide("The Fed.", a.golds).correct and decide("Sagan", b.golds).correct
    assert decide("National Aeronautics and Space Administration", c.golds).correct


@pytest.mark.parametrize("gold, kind", [("yes", "yes_no"), ("1969", "date"), ("12 March 2004", "date"),
                                        ("67", "number"), ("Neil Armstrong", "entity"),
                                        ("Too little sunlight far from the Sun to power the craft", "description")])
def test_question_type_from_the_gold(gold, kind):
    assert question_type([gold]) == kind


# --- checks on generated questions ------------------------------------------------------------------

PATH = ("Voyager 2 was launched in 1977 on a Titan IIIE rocket from Cape Canaveral. "
        "It reached Neptune in 1989 and found six new moons.")


def test_answer_in_question_catches_and_passes():
    assert answer_in_question("What is the name of the planet orbiting Saturn?", "Saturn")
    assert not answer_in_question("Which planet did Voyager 2 reach in 1989?", "Neptune")


def test_copied_sentence_catches_and_passes():
    assert copied_sentence("Voyager 2 was launched in 1977 on a Titan rocket from Cape Canaveral: which rocket?",
                           "Titan IIIE", PATH)
    assert not copied_sentence("Which rocket carried Voyager 2 into space?", "Titan IIIE", PATH)


def test_rejection_names_the_new_reasons():
    leak = GeneratedQuestion(question="Which planet, Neptune or Uranus, did Voyager 2 reach in 1989?",
                             answer="Neptune")
    assert rejection(leak, PATH, [], []) == "answer appears in the question"
    fine = GeneratedQuestion(question="Which planet did Voyager 2 reach in 1989?", answer="Neptune")
    assert rejection(fine, PATH, [], []) is None


def test_reasoning_that_mentions_options_then_writes_one_out_chooses_it():
    options = {"A": "Asthma attack", "B": "Carbon monoxide poisoning", "C": "Pulmonary embolism",
               "D": "Acute respiratory distress syndrome"}
    reply = ("Oxygen corrects the PaO2, which argues against a shunt such as ARDS (D), and CO poisoning (B) would "
             "not lower it. The episodes point to **A. Asthma attack**.")
    assert check_choice_reply(reply, options, "A").correct
    # two options written out is still no single answer
    v = check_choice_reply("A. Asthma attack\nC. Pulmonary embolism", options, "A")
    assert (v.correct, v.method) == (False, "several_options")


# --- issue 30: more answers decided right without a model ----------------------------------------------

def test_the_gold_inside_a_longer_reply_is_right():
    v = decide("Dakar is the capital of West Africa's westernmost nation, in the country of Senegal.", "Senegal",
               "In which country is Dakar?")
    assert (v.correct, v.method) == (True, "phrase"), v
    assert decide("The play was written in 1966 by Tom Stoppard.", "Tom Stoppard", "Who wrote the play?").correct


@pytest.mark.parametrize("reply", [
    "Dakar is not in Senegal but in Mali.",                    # denied
    "It could be Senegal, Gambia or Mauritania.",              # candidates
    "Senegal and Gambia both claim it.",                       # enumeration
    "Mali, which borders Senegal to the east.",                # another name answers first
    "Many people assume it is Senegal; the capital is in Mali.",  # a belief reported, not held
])
def test_the_gold_inside_a_longer_reply_is_not_taken_when_the_reply_commits_elsewhere(reply):
    v = decide(reply, "Senegal", "In which country is Dakar?")
    assert v is None or not v.correct, (reply, v)


def test_accents_and_hyphens_are_folded():
    assert (decide("Dain", "Dáin").correct, decide("Dain", "Dáin").method) == (True, "folded")
    assert decide("Jean Pierre Jeunet", "Jean-Pierre Jeunet").correct
    v = decide("Dwalin", "Dáin")
    assert v is None or not v.correct


def test_numbers_inside_a_gold_range_and_near_an_approximate_gold():
    assert decide("11.3", "10-12 years").method == "number_range" and decide("11.3", "10-12 years").correct
    assert decide("About 375,000 people.", "about 370,000").correct
    assert decide("roughly 70%", "about 71%").correct
    assert not decide("Around 40 years.", "60-70 years").correct
    assert not decide("Approximately 3.7 million.", "about 370,000").correct
    # no tolerance without an approximation, none for years, none across units
    v = decide("375,000", "370,000")
    assert v is None or not v.correct
    assert decide("1916", "1914-1918") is None or not decide("1916", "1914-1918").correct
    assert decide("About 8 seconds.", "about 8 minutes") is None or not decide("About 8 seconds.", "about 8 minutes").correct


def test_periods_are_compared_however_they_are_written():
    for reply, gold in [("the 1400s", "15th century"), ("the sixties", "1960s"), ("the '30s", "the 1930s")]:
        v = decide(reply, gold)
        assert (v.correct, v.method) == (True, "period"), (reply, gold, v)
    assert decide("the eighteenth century", "18th century").correct  # (the same-number rule takes this one)
    assert not decide("the 1500s", "15th century").correct
    assert not decide("the seventies", "1960s").correct


def test_yes_no_with_a_qualifier():
    assert decide("Typically, no.", "no").correct
    assert decide("In general, yes: trained people often have lower rates.", "yes").correct
    assert not decide("In most cases, yes.", "no").correct


def test_word_forms_from_spacy_lemmas():
    v = decide("sharecroppers", "Sharecropping", "What farming system replaced slavery?")
    assert (v.correct, v.method) == (True, "word_form"), v
    assert decide("avocados", "avocado").correct
    v = decide("It is in the p-block.", "s-block")
    assert v is None or not v.correct


def test_the_same_number_rule_wants_the_golds_other_words():
    for reply, gold in [("six years", "Unlimited six-year terms"), ("September 1968", "late 1968")]:
        v = decide(reply, gold)
        assert v is None or not v.correct, (reply, gold, v)
    assert decide("6", "six years").correct


def test_other_answer_only_when_the_reply_matches_no_gold_better():
    v = decide("B. R. Ambedkar", "Bhimrao Ramji Ambedkar", others={"ambedkar"})
    assert v is None or v.method != "other_answer", v
    v = decide("Jawaharlal Nehru", "Bhimrao Ramji Ambedkar", others={"jawaharlal nehru"})
    assert (v.correct, v.method) == (False, "other_answer")


def test_acronyms_for_the_gold_and_the_gold_for_an_acronym():
    for reply, gold in [("JPL.", "Jet Propulsion Laboratory"), ("SBF", "Sam Bankman-Fried"),
                        ("Live-action role-playing", "LARP")]:
        v = decide(reply, gold)
        assert (v.correct, v.method) == (True, "acronym"), (reply, gold, v)
    for reply, gold in [("ESA", "Jet Propulsion Laboratory"), ("jpl is a lab", "Jet Propulsion Laboratory")]:
        v = decide(reply, gold)
        assert v is None or not v.correct, (reply, v)


def test_part_of_a_persons_name_that_keeps_the_surname():
    who = "Who composed the piece?"
    for reply in ("Telemann", "B. R. Ambedkar", "Dr. Ambedkar"):
        gold = "Georg Philipp Telemann" if reply == "Telemann" else "Bhimrao Ramji Ambedkar"
        v = decide(reply, gold, who)
        assert v.correct and v.method in ("name_part", "phrase"), (reply, v)
    for reply, gold, question, others in [
            ("Michael Jackson", "Jermaine Jackson", who, ()),                 # another first name
            ("Jackson", "Jermaine Jackson", who, {"michael jackson"}),         # another gold shares the surname
            ("Massachusetts", "Canton, Massachusetts", "Where was he born?", ()),  # not a who-question
            ("Jackson", "Jermaine Jackson", "Which Jackson sang it?", ())]:   # the surname is asked
        v = decide(reply, gold, question, others)
        assert v is None or not v.correct or v.method not in ("name_part",), (reply, v)


def test_uncertainty_is_maybe_and_more_refusals_are_read():
    v = decide("It is uncertain whether headgear prevents concussion.", "maybe")
    assert (v.correct, v.method) == (True, "yes_no")
    assert not decide("Possibly. Somatic complaints may be one factor.", "yes").correct
    v = decide("Possibly yes, the data suggest it.", "maybe")  # commits to yes after all
    assert v is None or not v.correct
    for reply in ("The sources don't give enough information to identify such a star.",
                  "Not answerable from the provided articles.",
                  "There isn't enough information in these articles to say."):
        assert is_refusal(reply), reply
    for reply in ("The sources give enough information: it was Vega.", "Neither article is wrong: it was Vega."):
        assert not is_refusal(reply), reply


def test_a_question_offering_two_candidates():
    q = "Who is the oldest, Sid Haig or Vic Darchinyan?"
    v = decide("Sid Haig is the oldest.", "Sid Haig", q)
    assert (v.correct, v.method) == (True, "choice"), v
    v = decide("Vic Darchinyan is the oldest.", "Sid Haig", q)
    assert (v.correct, v.method) == (False, "choice"), v
    for reply in ("Sid Haig is younger.", "Sid Haig or Vic Darchinyan, both old.", "Not Sid Haig.",
                  "Vic Haig is the oldest."):  # the other's first name: names neither
        v = decide(reply, "Sid Haig", q)
        assert v is None or not v.correct, (reply, v)


def test_a_yes_no_question_answered_by_restating_its_claim():
    q = "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?"
    v = decide("Both magazines, the Woman's Viewpoint and Pick Me Up, are British publications.", "no", q)
    assert (v.correct, v.method, v.extracted) == (False, "yes_no", "yes"), v
    v = decide("The Woman's Viewpoint and Pick Me Up are not both British publications.", "no", q)
    assert (v.correct, v.extracted) == (True, "no"), v
    # a restatement with a qualifier, or one that says something else, is for a judge
    for reply in ("Both magazines are British publications, but only one is still printed.", "They are magazines."):
        assert decide(reply, "no", q) is None, reply


def test_a_long_yes_no_reply_is_read_at_its_qualifier_or_its_conclusion():
    q = "Does angiotensin-converting enzyme gene polymorphism lead to chronic kidney disease?"
    long = "The DD genotype may be a risk factor for chronic kidney disease in hypertensive patients, so yes."
    v = decide(long, "yes", q)
    assert (v.correct, v.method, v.extracted) == (True, "yes_no", "yes"), v
    assert not decide(long, "no", q).correct
    v = decide("Generally not; their wings have evolved into flippers for swimming under water.", "no", "Can penguins fly?")
    assert (v.correct, v.extracted) == (True, "no"), v
    # a yes/no word inside the reasoning, or two conclusions, commit to nothing
    for reply in ("Carriers of the DD genotype had no more kidney disease than others in the first of the cohorts.",
                  "So yes for the first cohort of patients with the genotype, but so no for the second one here."):
        v = decide(reply, "yes", q)
        assert v is None or v.method != "yes_no", (reply, v)


def test_a_belief_set_aside_then_the_gold_asserted():
    for reply, gold, q in [("Many people think Raphael did, but it was Michelangelo.", "Michelangelo",
                            "Who painted the ceiling of the Sistine Chapel?"),
                           ("Not the liver but the pancreas.", "the pancreas", "Which organ produces insulin?")]:
        v = decide(reply, gold, q)
        assert (v.correct, v.method) == (True, "corrected"), (reply, v)
    q = "Who painted the ceiling of the Sistine Chapel?"
    for reply in ("It was Michelangelo, but Raphael painted the ceiling.",       # the gold is set aside
                  "Many think Michelangelo, but Raphael did it.",
                  "It was Raphael, but Michelangelo designed the frescoes nearby."):  # more than the gold asserted
        v = decide(reply, "Raphael" if "Michelangelo designed" in reply else "Michelangelo", q)
        assert v is None or v.method != "corrected", (reply, v)


def test_a_persons_name_part_for_which_person_questions():
    q = "Which Czech composer wrote the New World Symphony?"
    v = decide("Dvorak", "Antonín Dvořák", q)
    assert (v.correct, v.method) == (True, "name_part"), v
    q = "Which of the founders of the Institute contributed to the Reform Act?"
    v = decide("King George.", "David Lloyd George", "Who was the British prime minister at the end of the war?")
    assert v is None or v.method != "name_part", v  # a regnal title: a given name, another person
    v = decide("It was Governor Winter.", "William Winter", q)
    assert (v.correct, v.method) == (True, "name_part"), v
    v = decide("King", "Stephen King", "Which author wrote Carrie?")  # a title word that is the surname
    assert (v.correct, v.method) == (True, "name_part"), v
    v = decide("Canal", "Suez Canal", "What man-made waterway links the two seas?")  # "man-made" asks no person
    assert v is None or not v.correct, v
    for reply, question in [("Josef Dvorak", "Which Czech composer wrote the New World Symphony?"),  # another person
                            ("Dvorak", "Which Czech city is the symphony named after?")]:  # no person asked
        v = decide(reply, "Antonín Dvořák", question)
        assert v is None or v.method != "name_part", (reply, v)


def test_a_longer_form_of_the_gold_name_and_a_detail_of_another_kind():
    v = decide("Pallas Athena", "Athena", "Who was the Greek goddess of wisdom?")
    assert v.correct, v
    v = decide("Sir Alexander Fleming, in 1928.", "Alexander Fleming", "Who discovered penicillin?")
    assert v.correct, v
    # another item's gold of another kind (a date beside a name) is a detail, of the same kind a rival
    q, gold = "Who was the first person to walk on the Moon?", "Neil Armstrong"
    v = decide("Neil Armstrong, commander of Apollo 11, in July 1969.", gold, q, others={"july 1969"})
    assert v.correct, v
    v = decide("Neil Armstrong, then Buzz Aldrin, in July 1969.", gold, q, others={"buzz aldrin"})
    assert v is None or not v.correct, v
    v = decide("Croatia won the final against France.", "France", "Who won the 2018 final?")
    assert v is None or not v.correct, v


def test_a_short_reply_stating_the_golds_number_and_no_other():
    for reply, gold, q in [("Mars has two small moons.", "2", "How many moons does Mars have?"),
                           ("It fell on 9 November 1989.", "1989", "In what year did the Berlin Wall fall?"),
                           ("On 20 July 1969.", "July 1969", "When did the Apollo 11 crew land on the Moon?")]:
        v = decide(reply, gold, q)
        assert v.correct and v.method in ("exact", "phrase"), (reply, v)
    for reply, gold in [("He completed nine symphonies; a tenth was left as sketches.", "nine"),  # two numbers
                        ("It fell in 1989, not 1991.", "1991"),                                # negation
                        ("He served six terms.", "six years")]:                                # the unit is not said
        v = decide(reply, gold, "How many?")
        assert v is None or not v.correct, (reply, v)


def test_spoken_scales_and_scientific_notation_near_the_gold():
    v = decide("nearly half a million", "400,000-500,000", "How many people attended Woodstock in 1969?")
    assert (v.correct, v.method) == (True, "number_range"), v
    v = decide("roughly 3 × 10^5 km per second", "300,000 km/s")
    assert (v.correct, v.method) == (True, "number_range"), v
    v = decide("roughly a quarter of a million", "about one million")
    assert (v.correct, v.method) == (False, "number_range"), v
    v = decide("roughly 3 × 10^8 m/s", "300,000 km/s")  # another unit: not compared
    assert v is None or not v.correct, v


def assert_not_by_name_part(cases):
    """Each (reply, gold, question) is left undecided or decided by another rule than `name_part`."""
    for reply, gold, question in cases:
        v = decide(reply, gold, question)
        assert v is None or v.method != "name_part", (reply, v)


def test_no_rule_decides_a_name_without_the_word_for_its_kind():
    # #46: the kind-word rule is removed: even where the question names the kind, its precision on EVOUNA was 2 of
    # 3, and the rest of a name is often another thing's name ("Panama", "London", "British"). These replies are
    # left to the learned step or the judge, whichever the run has.
    assert_not_by_name_part([("the Indian", "Indian Ocean", "Which ocean lies between Africa and Australia?"),
                            ("in Ireland", "Republic of Ireland", "Where?"),
                            ("Esk", "River Esk", "Which river enters the North Sea at Whitby?"),
                            ("Everest", "Mount Everest", "Which mountain did Hillary climb in 1953?"),
                            ("Panama", "Panama Canal", "Which canal did the United States hand over in 1999?"),
                            ("London", "London Bridge", "What did John Rennie design that now stands in Arizona?"),
                            ("British", "British Museum", "Where are the Elgin Marbles kept?"),
                            ("Michigan", "Michigan State University", "Which university did Magic Johnson attend?"),
                            ("Mexico.", "Gulf of Mexico", "Where does the Mississippi end?"),
                            ("at Cambridge", "University of Cambridge", "Where did she study?"),
                            ("Pacific", "Indian Ocean", "Which ocean?"),
                            ("Oxford", "Oxford Brookes University", "Which university?")])


def test_a_long_reply_that_concludes_with_the_gold_in_the_questions_relation():
    q = "The author of 'Dune' was born in a city in what state?"
    v = decide("Dune was written by Frank Herbert, who was born in Tacoma, a city in Washington.", "Washington", q)
    assert v.correct and v.method in ("phrase", "exact"), v
    q = "The runner-up of the 2005 race drove a car built by what company?"
    v = decide("The 2005 runner-up was Kimi Raikkonen, whose car was built by McLaren.", "McLaren", q)
    assert v.correct, v
    for reply in ("Frank Herbert was born in Tacoma, but his family lived in Washington.",   # a contrast
                  "Dune was written by Frank Herbert, who moved to Washington."):             # another relation
        v = decide(reply, "Washington", "The author of 'Dune' was born in a city in what state?")
        assert v is None or not v.correct, (reply, v)
    v = decide("Buzz Aldrin, followed by Neil Armstrong.", "Neil Armstrong", "Who was the first person on the Moon?")
    assert v is None or not v.correct, v


def test_a_yes_no_question_answered_by_denying_its_predicate():
    q = "Screening of carotid stenosis before bypass surgery. Is it always necessary?"
    v = decide("It is not always necessary; selective screening of high-risk patients would do.", "no", q)
    assert (v.correct, v.method, v.extracted) == (True, "yes_no", "no"), v
    assert not decide("It is not always necessary; selective screening would do.", "yes", q).correct
    q = "Did the sales of the company change between the two reports?"
    for reply in ("The reports did not give figures for the whole year.",          # not the question's claim
                  "The sales did not change in May, but they did change in June.",  # a contrast
                  "Sales may not have changed between the reports."):               # a hedge
        v = decide(reply, "no", q)
        assert v is None or v.method != "yes_no", (reply, v)


def test_a_spelling_variant_of_a_long_word():
    for reply, gold in [("Haematite.", "hematite"), ("He represented an unsolvable problem.",
                                                    "He represented an unsolveable problem")]:
        v = decide(reply, gold)
        assert (v.correct, v.method) == (True, "folded"), (reply, v)
    for reply, gold in [("Prussia", "Russia"),         # another first letter
                        ("Rose", "Ross"),              # a short word
                        ("Australia", "Austria"),      # more than one letter
                        ("hematite ore", "hematite"),  # another word count: for the other rules
                        ("chloride", "chlorine"),      # a changed letter: another compound
                        ("Colombia", "Columbia"),
                        ("Johnston", "Johnson"),       # a consonant: another name
                        ("Christiana", "Christian"),   # a letter at the end
                        ("Alexandria", "Alexandra")]:  # a name: names differ by a vowel
        v = decide(reply, gold)
        assert v is None or v.method != "folded", (reply, v)


def test_a_bound_an_ordinal_or_an_idiom_is_not_the_gold():
    """Review findings: "at least 2" or "2nd" does not state "2"; "No doubt, ..." answers no yes/no question."""
    for reply, gold in [("More than 2.", "2"), ("At least 2.", "2"), ("He finished 2nd.", "2"), ("over 20", "20"),
                        ("No doubt, it is visible.", "no")]:
        v = decide(reply, gold, "How many moons, and is it visible?")
        assert v is None or not v.correct, (reply, v)
    for reply, gold in [("Two.", "2"), ("He came 2nd.", "2nd"), ("No, it is not.", "no")]:
        v = decide(reply, gold, "How many, and is it visible?")
        assert v is not None and v.correct, (reply, v)


# --- issue 46: rule precision on answers the rules were not written from ----------------------------------

def test_a_month_is_no_number_outside_a_range_of_its_days():
    # Catches: "June 1944" rejected against "6-8 June 1944" (the days read as a range of values 6 to 8), and
    # a verse range ("Daniel 5:1-5") read as values.
    v = decide("It took place in June 1944.", "6-8 June 1944")
    assert v is None or v.correct
    v = decide("In the Bible, Daniel 5:5-29.", "Daniel 5:1-5")
    assert v is None or v.method != "number_range"
    v = decide("It took 40 days.", "6-8 days")
    assert (v.correct, v.method) == (False, "number_range")


def test_number_range_wants_a_round_reply_for_an_exact_gold_and_reads_no_word_decimals():
    # Catches: "approximately 56,564" taken as near 58,125 (it claims its digits), "about 3.14" near the 3 of
    # "three point five", and "400 and 800m" read as the range 400-800.
    v = decide("It is approximately 56,564 square miles.", "58,125 square miles")
    assert v is None or v.method != "number_range"
    v = decide("It covers about 3.14 acres.", "three point five acres")
    assert v is None or v.method != "number_range"
    v = decide("400 metres.", "400 and 800m")
    assert v is None or v.method != "number_range"
    assert decide("about 58,000 square miles", "58,125 square miles").correct
    assert decide("between 4.5 and 5", "between 4.3 and 5.7").correct


def test_other_answer_leaves_the_golds_own_forms():
    # Catches: the gold in another form that is another item's gold ("Melbourne Cricket Ground" for "Melbourne",
    # "JFK" for "John F Kennedy"), a reply sharing the gold's word ("Abba" for "ABBA (he directed their films)")
    # or number ("4" for "Four pieces of fruit").
    for reply, gold, others in [("Melbourne Cricket Ground", "Melbourne", {"melbourne cricket ground"}),
                                ("JFK", "John F Kennedy", {"jfk"}),
                                ("Abba", "ABBA (he directed their films)", {"abba"}),
                                ("4", "Four pieces of fruit", {"4"}), ("He was selected twice.", "two-time", {"twice"})]:
        v = decide(reply, gold, others=others)
        assert v is None or v.method != "other_answer", (reply, v)
    v = decide("It was Lucinda Prior-Palmer.", "Lucinda Green", others={"lucinda prior palmer"})
    assert v is None or v.method != "other_answer"  # a rival sharing a word with the gold is no certain rival


def test_other_answer_wants_the_whole_reply_to_be_the_other_gold():
    # Catches: one word of a longer reply that is another item's gold ("4" in a count in parentheses, "green" in
    # "Bethnal Green", a generic "president").
    for reply, others in [("Paris, host 4 times", {"4"}), ("Bethnal Green", {"green"}),
                          ("The president of France", {"president"})]:
        v = decide(reply, "Mile End", others=others)
        assert v is None or v.method != "other_answer", (reply, v)
    v = decide("I think it was Bethnal Green.", "Mile End", "Which station?", others={"bethnal green"})
    assert (v.correct, v.method) == (False, "other_answer")


def test_the_items_own_aliases_and_generic_golds_are_no_rivals():
    # Catches: an alias of the gold among "other items' golds" blocked the surname ("Loren Bacall" beside
    # "Lauren Bacall"), and a generic other gold ("president") blocked a reply naming the gold.
    golds, who = ["Lauren Bacall", "Loren Bacall"], "Which actress was voted Miss Greenwich Village in 1942?"
    v = decide("Bacall.", golds, who, others={"lauren bacall", "loren bacall", "humphrey bogart"})
    assert (v.correct, v.method) == (True, "name_part"), v
    v = decide("Bacall.", golds, who, others={"lauren bacall", "loren bacall", "jim bacall"})
    assert v is None or not v.correct  # another item's gold shares the surname
    q = "Which US president won the Nobel Peace Prize in 1920?"
    v = decide("The prize went to President Woodrow Wilson, for the League of Nations.", "Woodrow Wilson", q,
               others={"president", "nobel"})
    assert v.correct, v
    v = decide("The prize went to Leon Bourgeois, not Woodrow Wilson.", "Woodrow Wilson", q, others={"leon bourgeois"})
    assert v is None or not v.correct


def test_name_part_wants_the_surname_written_as_a_name():
    # Catches: a common noun that is the gold's last word ("a cat" for "Macavity the Mystery Cat").
    q = "Who, according to T S Eliot, always has an alibi?"
    v = decide('According to Eliot, "a cat always has an alibi".', "Macavity the Mystery Cat", q)
    assert v is None or v.method != "name_part", v
    v = decide("According to Eliot, Macavity the Cat.", "Macavity the Mystery Cat", q)
    assert v.correct, v


def test_a_partial_list_is_not_taken_by_token_f1_and_names_are_no_spelling_variants():
    # Catches: token F1 0.8 for one of two listed people, and a dropped vowel in a name that one alias
    # writes in lower case ("Nadia comeneci" beside "Nadia Comeneci").
    v = decide("Malcolm Campbell", "Malcolm & Donald Campbell")
    assert v is None or v.method != "f1", v
    assert decide("Green, White and Orange", "Green, White, Orange").correct
    v = decide("Nadia Comneci", ["Nadia Comaneci", "Nadia Comeneci", "Nadia comeneci"])
    assert v is None or v.method != "folded", v


# --- #46, third sample: what the rules still got wrong on EVOUNA's heldout-a quarter ---------------------------

def test_number_range_compares_no_ranks_no_measures_in_two_units_and_no_era_as_circa():
    # Catches: "around 29 stone" near "Twenty nine stone twelve pounds" (a measure in two units), the 19th
    # century "near" the 20th (a rank, no magnitude), and "C.E." read as circa.
    q = "What weight was he at his heaviest?"
    v = decide("He was estimated to have weighed around 29 stone (406 lbs).", "Twenty nine stone twelve pounds", q)
    assert v is None or v.method != "number_range", v
    v = decide("19th", ["20th century", "20 century C.E."], "In which century was the hospital founded?")
    assert v is None or not v.correct, v
    v = decide("19", "20 century C.E.", "In which century was the hospital founded?")
    assert v is None or not v.correct, v
    long_reply = "It was founded in about the 19th century, when the city grew quickly and the old walls came down."
    v = decide(long_reply, "20th century", "In which century was the hospital founded?")
    assert v is None or not v.correct, v
    # passes: a round reply near a gold in one unit, and "c. 1850" is still circa
    v = decide("around 29 stone", "Twenty nine stone", q)
    assert (v.correct, v.method) == (True, "number_range"), v
    v = decide("It had 20,000 inhabitants.", "c. 19,500 inhabitants", "How many lived there?")
    assert (v.correct, v.method) == (True, "number_range"), v
    v = decide("about 1.5 million", "1,520,000", "How many?")
    assert (v.correct, v.method) == (True, "number_range"), v


def test_other_answer_takes_no_number_for_another_items_answer():
    # Catches: "Three" rejected as another item's gold ("3"); a number is some item's gold by chance.
    q = "Which numbers refer informally to a combination of blows, from boxing?"
    v = decide("Three", ["One-Two", "Onetwo"], q, others={"three", "seven"})
    assert v is None or v.method != "other_answer", v
    v = decide("Seven Dials", ["One-Two", "Onetwo"], q, others={"seven dials"})
    assert (v.correct, v.method) == (False, "other_answer"), v


def test_other_answer_wants_the_rival_written_as_a_name():
    # Catches: "A frog" rejected for "Toad" as another item's gold: a kind in lower case may be the gold's near
    # kind (labelled right on EVOUNA's heldout-a); a name is another thing.
    q = "In the fairy tale Thumbelina, what creature wants the girl to marry her son?"
    v = decide("A frog", ["TOAD", "Toad (software)"], q, others={"frog", "mole"})
    assert v is None or v.method != "other_answer", v
    for reply in ("Frog", "It was the Frog.", "a frog"):  # capitalised, or no sign in a reply all in lower case
        v = decide(reply, ["TOAD", "Toad (software)"], q, others={"frog", "mole"})
        assert (v.correct, v.method) == (False, "other_answer"), (reply, v)


def test_token_f1_wants_the_golds_head_word():
    # Catches: token F1 0.8 for the words before the gold's head ("Toll House" for "Toll House cookie",
    # "Père David's" for "Père David's Deer").
    for reply, gold in [("Toll House", "Toll House cookie"), ("Père David's", "Père David's Deer")]:
        v = decide(reply, gold, "Which one?")
        assert v is None or v.method != "f1", (reply, v)
    # passes: the head said, with a qualifier after a comma or in parentheses left out
    for reply, gold in [("Gulfstream Park", "Gulfstream Park, Florida"), ("Mo Mowlam", "Mo (Marjorie) Mowlam"),
                        ("Trophy Bitter", "Whitbread's Trophy Bitter")]:
        v = decide(reply, gold, "Which one?")
        assert (v.correct, v.method) == (True, "f1"), (reply, v)


def test_an_ordinal_for_a_century_in_words_is_that_century():
    # Catches: "12th" for "Twelfth Century" left undecided (read as an ordinal for a gold that has none, so
    # token F1 0 settled it wrong), and "13th" undecided where a person says wrong at once.
    question = "In which century was the cathedral built?"
    for reply in ("12th", "The 12th.", "12th century"):
        v = decide(reply, "Twelfth Century", question)
        assert v is not None and v.correct, (reply, v)
    for reply in ("13th", "the eleventh"):
        v = decide(reply, "Twelfth Century", question)
        assert (v.correct, v.method) == (False, "period"), (reply, v)
    # an ordinal in digits for one in words, as for one in digits ("He came 2nd." for "2nd")
    for reply, gold in (("2nd", "Second"), ("He came 2nd.", "second place")):
        v = decide(reply, gold, "In which place did he finish?")
        assert v is not None and v.correct, (reply, gold, v)
    # passes: an ordinal still states no cardinal ("2nd" for "2"), and no century is read into a bare ordinal
    # when the gold is no century
    v = decide("He finished 2nd.", "2", "How many?")
    assert v is None or not v.correct
    v = decide("13th", "12th", "In which place did she finish?")
    assert v is None or v.method != "period"


def test_the_unit_after_a_scale_word_is_read():
    # Catches: `unit` stopped at the scale word ("3.5 billion dollars" had no unit), so euros were taken as near
    # dollars; and "2 million" for "2 million people" was left to token F1 (the scale word read as a unit).
    from judgeagent.grading.numeric import unit

    assert unit("3.5 billion dollars") == "dollar" and unit("It cost 2 million euros.") == "euro"
    assert unit("2 million people") is None and unit("2 million") is None and unit("8 minutes") == "minute"
    # one name however the unit is written: the scale and the exponent are part of the number
    assert unit("About 6.21 million hectolitres.") == unit("6.21 e6hL") == "hl" and unit("3 hrs") == "hour"
    assert decide("About 6.21 million hectolitres.", "6.21 e6hL", "How much beer is sold?").correct
    v = decide("3.4 billion euros", "about 3.5 billion dollars", "How much did it cost?")
    assert v is None or v.method != "number_range"
    v = decide("3.5 billion euros", "3.5 billion dollars", "How much did it cost?")
    assert v is None or not v.correct
    # passes: the same number with its scale and the gold's unit, or without the unit
    assert decide("3.4 billion dollars", "about 3.5 billion dollars", "How much did it cost?").correct
    for reply, gold in (("2 million", "2 million people"), ("3.5 billion", "3.5 billion dollars")):
        v = decide(reply, gold, "How many?")
        assert v is not None and (v.correct, v.method) == (True, "exact"), (reply, v)


# --- #46, fourth pass: the misses of number_range and the kind-word rule on EVOUNA ---------------------------

def test_number_range_compares_whole_values_not_a_scaled_numbers_leading_part():
    # Catches: "around 700" accepted for "seven hundred thousand" (EVOUNA heldout-b: the gold read as 700 and 7, as
    # `numbers` reads a scaled number both ways) and "about 1.5" for "1.5 million"
    q = "The human body is capable of how many different movements?"
    v = decide("The human body is capable of around 700 different movements.",
               ["seven hundred thousand", "700000", "700,000"], q)
    assert v is None or not v.correct, v
    v = decide("about 1.5", "1.5 million", "How many people live there?")
    assert v is None or not v.correct, v
    for reply, gold in [("around 700,000", "seven hundred thousand"), ("about 1.5 million", "1,500,000"),
                        ("roughly half a million", "500,000"), ("about 1.2 million", "12 hundred thousand")]:
        v = decide(reply, gold, q)
        assert (v.correct, v.method) == (True, "number_range"), (reply, v)
