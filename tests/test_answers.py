"""Answer checking: option letters from real-looking replies, free-text matching, and the judge over HTTP."""
import asyncio
import json
import random
import re

import pytest

from judgeagent.benchmark import Item, load_benchmark
from judgeagent.config import CheckerConfig
from judgeagent.grading.answers import (
    JudgeDecision,
    Verdict,
    check_answer,
    check_choice,
    check_free_text,
    extract_letter,
    judge_answer,
    normalise_answer,
    token_f1,
)
from judgeagent.grading.calibration import calibrate, pairs_from_items
from judgeagent.models import ModelError, ModelSpec, OpenAIChatModel
from judgeagent.models.testserver import FakeServer
from tests.conftest import DATA

CITIES = {"A": "London", "B": "Paris", "C": "Berlin", "D": "Madrid"}
MEDQA = {"A": "Legionella pneumophila infection", "B": "Pneumocystis pneumonia",
         "C": "Histoplasma capsulatum infection", "D": "Blastomyces dermatitidis infection"}
YES_NO = {"A": "yes", "B": "no", "C": "maybe"}

LETTER_CASES = [
    # bare letters, with the decorations models add
    ("B", CITIES, "B"), ("(B)", CITIES, "B"), ("B)", CITIES, "B"), ("B.", CITIES, "B"), ("[B]", CITIES, "B"),
    ("**B**", CITIES, "B"), ("  B\n", CITIES, "B"), ("`B`", CITIES, "B"), ('"B"', CITIES, "B"),
    ("B:", CITIES, "B"), ("'d'.", CITIES, "D"), ('"B".', CITIES, "B"), ("**C**.", CITIES, "C"),
    ("b", CITIES, "B"), ("b)", CITIES, "B"), ("(c)", CITIES, "C"), ("d.", CITIES, "D"),
    # answer statements
    ("Answer: B) Paris", CITIES, "B"), ("Answer: B", CITIES, "B"), ("ANSWER: C", CITIES, "C"),
    ("The answer is B", CITIES, "B"), ("The answer is B.", CITIES, "B"), ("The answer is (D).", CITIES, "D"),
    ("The correct answer is **B. Paris**", CITIES, "B"), ("Correct option: D", CITIES, "D"),
    ("The answer is: \n\nC", CITIES, "C"),
    ("The best answer is A because London is the capital.", CITIES, "A"),
    ("The answer is B, not C", CITIES, "B"), ("answer: (c)", CITIES, "C"),
    ("My answer is b because...", CITIES, "B"),
    ("I choose option d.", CITIES, "D"), ("I'd go with D because Madrid is right", CITIES, "D"),
    ("Between A and C, I'd pick C.", CITIES, "C"), ("It's B.", CITIES, "B"),
    ("I'm going with C.", CITIES, "C"),
    ("The capital of France is Paris, so B.", CITIES, "B"), ("It is a city.", CITIES, None),
    ("Clearly, (B) Paris.", CITIES, "B"), ("- **B) Paris**", CITIES, "B"), ("Option (C)", CITIES, "C"),
    ("B\n\nExplanation: Paris is the capital. A is wrong.", CITIES, "B"), ("A. London", CITIES, "A"),
    ("B is correct", CITIES, "B"),
    ("A and B are plausible, but C is the best answer.", CITIES, "C"),
    ("Option A is incorrect, option B is correct.", CITIES, "B"), ("option B", CITIES, "B"),
    ("Final answer: **C**", CITIES, "C"), ("The answer is B.\n\nFinal answer: B", CITIES, "B"),
    ("Let's look:\nA) London - no\nB) Paris - yes\n\nThe correct answer is B.", CITIES, "B"),
    ("I think A is wrong; the answer is C", CITIES, "C"),
    ("**Answer: C. Histoplasma capsulatum infection**", MEDQA, "C"),
    ("C. Histoplasma capsulatum infection", MEDQA, "C"),
    ("The most likely cause is Histoplasma capsulatum infection (C).", MEDQA, "C"),
    ("The silver stain shows a dimorphic fungus.\n\nAnswer: C", MEDQA, "C"),
    # JSON replies
    ('{"answer": "B"}', CITIES, "B"), ('{"Answer": "(b)", "reason": "capital"}', CITIES, "B"),
    ('```json\n{"answer": "C", "reason": "x"}\n```', CITIES, "C"), ('{"answer": "Paris"}', CITIES, "B"),
    # the option's text instead of its letter
    ("Paris", CITIES, "B"), ("paris.", CITIES, "B"), ("PARIS!", CITIES, "B"), ("Answer: Paris", CITIES, "B"),
    ("The answer is Paris", CITIES, "B"), ("Paris, because it is the capital.", CITIES, "B"),
    ("histoplasma capsulatum infection", MEDQA, "C"), ("Yes", YES_NO, "A"), ("No.", YES_NO, "B"),
    ("maybe", YES_NO, "C"), ("Yes, the data support it.", YES_NO, "A"), ("A", YES_NO, "A"),
    # nothing, or more than one letter asserted
    ("A cat", CITIES, None), ("The answer is a tumour", CITIES, None), ("I am not sure.", CITIES, None),
    ("The answer is B. Wait, actually the answer is C.", CITIES, None), ("A) London\nB) Paris", CITIES, None),
    ("The answer is not A", CITIES, None), ("Both A and B", CITIES, None), ("E", CITIES, None),
    ("The answer is E", CITIES, None), ("Neither", CITIES, None), ("", CITIES, None), ("   ", CITIES, None),
    ("The patient has (a) fever and (b) cough.", CITIES, None), ("Amsterdam", CITIES, None),
    ("In the U.S. a doctor would say", CITIES, None), ("I don't know", CITIES, None),
    ("Option A is wrong and option C is wrong.", CITIES, None), ("Berlin or Paris", CITIES, None),
]


@pytest.mark.parametrize("reply, options, letter", LETTER_CASES)
def test_extract_letter(reply, options, letter):
    assert extract_letter(reply, options) == letter


def test_normalise_and_f1():
    assert normalise_answer("  The Federal   Reserve! ") == "federal reserve"
    assert normalise_answer("An apple, a day.") == "apple day"
    assert token_f1("The Federal Reserve", "Federal Reserve") == 1.0
    assert token_f1("Federal Reserve Bank", "Federal Reserve") == pytest.approx(0.8)
    assert token_f1("Bank of England", "Federal Reserve") == 0.0
    assert token_f1("", "") == 1.0 and token_f1("", "x") == 0.0


@pytest.mark.parametrize("reply, gold, correct, method", [
    ("The Federal Reserve", "The Federal Reserve", True, "exact"),
    ("Federal Reserve.", "The Federal Reserve", True, "exact"),
    ("It is the Federal Reserve.", "The Federal Reserve", True, "exact"),
    ("Answer: the federal reserve", "Federal Reserve", True, "exact"),
    ("Sam Bankman-Fried", "Sam Bankman-Fried", True, "exact"),
    ("The person is Sam Bankman-Fried.", "Sam Bankman-Fried", True, "exact"),
    ("Georg Philipp Telemann", "Georg Philipp Telemann", True, "exact"),
    ("Georg Telemann", "Georg Philipp Telemann", True, "f1"),
    ("In 1993", "1993", True, "exact"),
    ("Yes", "Yes", True, "exact"), ("Yes, both articles report it.", "Yes", True, "yes_no"),
    ("No.", "Yes", False, "yes_no"), ("yes", "no", False, "yes_no"),
    ("Maybe; the evidence is mixed", "maybe", True, "yes_no"),
    ("Answer: no", "no", True, "exact"),
    ("Insufficient information.", "Insufficient information.", True, "exact"),
    ("There is not enough information to say.", "Insufficient information.", True, "refusal"),
    ("", "Google", False, "empty"), ("  \n", "Yes", False, "empty"),
])
def test_free_text_decided(reply, gold, correct, method):
    verdict = check_free_text(reply, gold)
    assert verdict is not None and (verdict.correct, verdict.method) == (correct, method)
    assert "\n" not in verdict.reason


@pytest.mark.parametrize("reply, gold", [
    ("Not the Federal Reserve", "The Federal Reserve"),  # negated: contains the gold, still wrong
    ("The central bank of the United States", "The Federal Reserve"),  # a paraphrase: for the judge
    ("The Bank of England", "The Federal Reserve"),
    ("Google, Microsoft, Amazon, Apple and Meta all did something similar in that quarter", "Google"),
    ("There is no evidence of an effect in younger patients, but overall the association holds.", "yes"),
    ("The study is inconclusive", "no"),
])
def test_free_text_left_to_the_judge(reply, gold):
    assert check_free_text(reply, gold) is None


def test_f1_threshold_is_configurable():
    assert check_free_text("Georg Telemann", "Georg Philipp Telemann", f1_threshold=0.9) is None
    verdict = check_free_text("Georg Telemann", "Georg Philipp Telemann")
    assert verdict.score == pytest.approx(0.8) and verdict.extracted == "georg telemann"


def test_check_choice_on_real_medqa_items():
    item = load_benchmark(DATA / "medqa" / "small.questions.jsonl", limit=1).items[0]
    assert item.gold_letter == "C"
    assert check_choice("The answer is C.", item) == Verdict(True, "letter", "C", None, "chose C, gold C")
    assert check_choice("B) Pneumocystis pneumonia", item).correct is False
    by_text = check_choice("Histoplasma capsulatum infection", item)
    assert (by_text.correct, by_text.method, by_text.extracted) == (True, "option_text", "C")
    none = check_choice("It could be a fungus or a bacterium.", item)
    assert (none.correct, none.method) == (False, "no_letter") and none.reason
    assert check_choice(" ", item).method == "empty"


def test_check_choice_without_a_gold_letter_compares_texts():
    item = Item("x", "Q?", "Paris (France)", options=CITIES)
    assert check_choice("B", item) == Verdict(False, "letter", "B", None, "chose B (differs from gold text)")
    item = Item("y", "Q?", "paris", options={"A": "London", "B": "Paris."}, gold_letter=None)
    assert check_choice("B", item).correct


def _judge(server, **kw):
    return OpenAIChatModel(ModelSpec(name="judge", base_url=server.base_url, model="fake-judge", **kw))


def test_judge_decides_through_a_real_endpoint():
    decision = {"reasoning": "Names the same central bank,\n in other words.", "correct": True}
    with FakeServer(reply=lambda request: json.dumps(decision)) as server:
        verdict = asyncio.run(check_answer("Which institution sets US rates?", "The Federal Reserve",
                                           "The central bank of the United States", judge=_judge(server)))
        sent = server.bodies[-1]
    assert (verdict.correct, verdict.method) == (True, "judge")
    assert verdict.reason == "Names the same central bank, in other words."  # one line
    prompt = sent["messages"][-1]["content"]
    assert "The Federal Reserve" in prompt and "central bank of the United States" in prompt
    assert sent["response_format"]["json_schema"]["name"] == JudgeDecision.__name__


def test_judge_is_not_asked_when_the_answer_is_decided():
    with FakeServer() as server:
        verdict = asyncio.run(check_answer("Q?", "Google", "Google.", judge=_judge(server)))
        choice = asyncio.run(check_answer("Q?", "Paris", "B", options=CITIES, gold_letter="B",
                                          judge=_judge(server)))
        assert server.counts["requests"] == 0
    assert verdict.method == "exact" and (choice.correct, choice.method) == (True, "letter")


def test_garbage_from_the_judge_is_recorded_not_raised():
    with FakeServer(reply=lambda request: "I think it is probably right!") as server:
        verdict = asyncio.run(judge_answer(_judge(server), "Q?", "The Federal Reserve", "The Fed"))
        assert server.counts["requests"] == 2  # the answer and one repair
    assert (verdict.correct, verdict.method) == (False, "judge_failed")
    assert "invalid structured output" in verdict.reason and "\n" not in verdict.reason


def test_model_errors_propagate():
    with FakeServer(faults={"500": 1.0}) as server:
        with pytest.raises(ModelError, match="HTTP 500"):
            asyncio.run(judge_answer(_judge(server, max_retries=0), "Q?", "gold", "answer"))


def test_undecided_without_a_judge_is_incorrect():
    verdict = asyncio.run(check_answer("Q?", "The Federal Reserve", "The Bank of England"))
    assert (verdict.correct, verdict.method, verdict.extracted, verdict.score) == (False, "undecided", "bank of england", 0.0)
    decided = asyncio.run(check_answer("Q?", "Yes", "No, they differ."))
    assert (decided.correct, decided.method, decided.extracted) == (False, "yes_no", "no")


@pytest.mark.parametrize("reasoning, kept", [
    ("True only if the candidate gives the reference's answer.", False),        # the schema's description
    ("True if the candidate gives the reference answer", False),                # copied with words dropped
    ("Rewordings, synonyms, abbreviations and extra correct details count as correct.", False),  # the prompt
    ("Correct: the candidate gives the reference's answer.", False),
    ("The candidate gives Paris, the reference's answer.", True),               # names the answer
    ("Incorrect. The candidate says 1968, the reference 1969.", True),
])
def test_a_reason_copied_from_the_schema_or_prompt_is_no_reason(reasoning, kept):
    decision = {"reasoning": reasoning, "correct": True}
    with FakeServer(reply=lambda request: json.dumps(decision)) as server:
        verdict = asyncio.run(judge_answer(_judge(server), "Q?", "Paris", "It is Paris."))
    assert verdict.reason == (reasoning if kept else "(the judge gave no reasoning)")


def _faithful(request):
    """A judge that accepts exactly the candidates naming one of the references its prompt lists."""
    prompt = request["messages"][-1]["content"]
    reference = re.search(r"Reference answer: (.*)", prompt).group(1)
    candidate = re.search(r"Candidate answer: (.*)", prompt).group(1).lower()
    golds = re.split(r" \(also acceptable: |; ", reference.rstrip(")"))
    right = any(g.lower() in candidate for g in golds)
    return json.dumps({"reasoning": f"The candidate {'names' if right else 'does not name'} {golds[0]}.",
                       "correct": right})


def test_a_faithful_judge_passes_calibration_when_aliases_are_other_acceptable_answers():
    # open-QA aliases are other acceptable answers, not spellings of the gold: judged against the main
    # gold alone, a faithful judge rejects "Rockwell" and fails
    names = [("Jermaine Jackson", "Rockwell"), ("Ada Lovelace", "Charles Babbage"), ("Paris", "Lyon"),
             ("Tom Stoppard", "Harold Pinter"), ("Mount Everest", "K2"), ("Nile", "Amazon")]
    items = [Item(f"q{k}", f"Question {k}?", gold, aliases=(alias,)) for k, (gold, alias) in enumerate(names)]
    pairs = pairs_from_items(items, 40, seed=1)
    aliases = [p for p in pairs if p.kind == "alias"]
    assert aliases and all(len(p.reference) == 2 for p in aliases)
    with FakeServer(reply=_faithful) as server:
        calibration = asyncio.run(calibrate(_judge(server), pairs, CheckerConfig()))
    assert calibration.passed and calibration.accuracy == 1.0, calibration.errors


def test_probes_whose_right_answer_is_ambiguous_are_not_asked():
    # two items ask the same question with different golds: neither gold is a wrong answer to the other
    same = [Item("a", "Who sang it?", "Rockwell"), Item("b", "Who sang it?", "Jermaine Jackson"),
            Item("c", "Which river?", "Nile")]
    assert not [p for p in pairs_from_items(same, 40, seed=0) if p.kind == "other_gold" and p.question == "Who sang it?"
                and "Nile" not in p.answer]
    # golds that disagree on the number: a changed number may be one of them
    numbers_differ = [Item("d", "How many?", "10", aliases=("12",)), Item("e", "Which river?", "Nile")]
    assert not [p for p in pairs_from_items(numbers_differ, 40, seed=0) if p.kind == "changed_number"]
    assert [p for p in pairs_from_items([Item("d", "How many?", "10"), Item("e", "Which river?", "Nile")], 40, seed=0)
            if p.kind == "changed_number"]


# --- issue 46: hard negative probes bound the judge's false-positive rate -------------------------------------

_KINDS = {"nile": "river", "seine": "river", "danube": "river", "thames": "river",
          "neil armstrong": "person", "william shakespeare": "person", "ada lovelace": "person", "marie curie": "person"}


def _careless(request):
    """A judge that accepts any candidate of the kind the question asks for, or sharing a word with the reference."""
    prompt = request["messages"][-1]["content"]
    question = re.search(r"Question: (.*)", prompt).group(1).lower()
    reference = re.search(r"Reference answer: (.*)", prompt).group(1).lower()
    candidate = re.search(r"Candidate answer: (.*)", prompt).group(1).lower()
    asked = "river" if "river" in question else "person"
    kind = next((k for name, k in _KINDS.items() if name in candidate), None)
    right = kind == asked or bool(set(re.findall(r"\w+", candidate)) & set(re.findall(r"\w+", reference)))
    return json.dumps({"reasoning": "plausible" if right else "off topic", "correct": right})


def _kinds_items():
    rivers = [("Which river flows through Cairo?", "Nile"), ("Which river flows through Paris?", "Seine"),
              ("Which river flows through Vienna?", "Danube"), ("Which river flows through London?", "Thames")]
    people = [("Who first walked on the Moon?", "Neil Armstrong"), ("Who wrote Hamlet?", "William Shakespeare"),
              ("Who wrote the first program?", "Ada Lovelace"), ("Who discovered radium?", "Marie Curie")]
    return [Item(f"q{k}", q, g) for k, (q, g) in enumerate(rivers + people)]


def test_hard_negatives_fail_a_careless_judge_that_other_golds_let_through():
    from judgeagent.grading.hard_negatives import hard_fpr

    items = _kinds_items()
    basic, hard = pairs_from_items(items, 40, seed=2), pairs_from_items(items, 40, seed=2, hard=True)
    assert {p.kind for p in hard if not p.accept} <= {"same_kind", "partial"}
    for p in hard:  # right by construction: a partial answer is no gold, another kind's gold is of the asked kind
        if p.kind == "same_kind":
            assert _KINDS[normalise_answer(p.gold)] == _KINDS[next(n for n in _KINDS if n in p.answer.lower())]
    with FakeServer(reply=_careless) as server:
        careless_basic = asyncio.run(calibrate(_judge(server), basic, CheckerConfig(judge_policy="trust")))
        careless_hard = asyncio.run(calibrate(_judge(server), hard, CheckerConfig(judge_policy="trust")))
    with FakeServer(reply=_faithful) as server:
        faithful_hard = asyncio.run(calibrate(_judge(server), hard, CheckerConfig(judge_policy="trust")))
    assert careless_hard.fpr == 1.0 and not careless_hard.passed
    assert careless_basic.fpr < careless_hard.fpr  # other items' golds of another kind are rejected even carelessly
    bound = hard_fpr(faithful_hard.by_kind)
    assert faithful_hard.passed and bound.accepted == 0 and bound.probes == 20
    assert bound.interval[0] == 0.0 and 0.1 < bound.interval[1] < 0.2  # 0 of 20: at most 16% at 95% confidence
    assert hard_fpr(careless_hard.by_kind).interval[0] > 0.8


def test_same_subject_probes_are_another_questions_answer_about_the_same_name():
    # Catches: no probe of the fourth kind the issue names (the right answer to another question about the same
    # subject), which a judge that checks only the topic accepts.
    from judgeagent.grading.hard_negatives import HARD_KINDS, same_subject, subjects

    items = [Item("a", "Who founded Microsoft?", "Bill Gates"), Item("b", "Where is Microsoft based?", "Redmond"),
             Item("c", "In which year was Microsoft founded?", "1975"), Item("d", "Who wrote Hamlet?", "Shakespeare"),
             Item("e", "Which company did Bill Gates found with Microsoft's Paul Allen?", "Microsoft")]
    assert subjects("Who founded Microsoft?") == {"microsoft"} and subjects("Which river flows?") == set()
    rng = random.Random(0)
    drawn = {same_subject(items[0], items, rng) for _ in range(20)}
    # "Microsoft" names the subject and this question states it: no probe; Hamlet is another subject
    assert drawn == {"Redmond", "1975"}
    assert same_subject(items[3], items, rng) is None  # no other question about Hamlet
    hard = pairs_from_items(items[:4], 40, seed=1, hard=True)
    probes = [p for p in hard if p.kind == "same_subject"]
    assert probes and "same_subject" in HARD_KINDS
    golds = {i.question: i.gold for i in items}
    for p in probes:  # another Microsoft question's gold, never this one's
        said = [i.gold for i in items[:3] if i.gold in p.answer]
        assert "Microsoft" in p.question and len(said) == 1 and said[0] != golds[p.question], p


def test_a_name_many_questions_share_is_a_setting_not_a_subject():
    # Catches: "London" (in six questions here) taken as the subject they share, so that any London question's
    # gold became a probe for another; a name two questions share stays a subject.
    from judgeagent.grading.hard_negatives import same_subject, subjects

    places = ["Big Ben", "the Tate", "Kew", "Soho", "Brixton", "Camden"]
    items = [Item(f"l{k}", f"Which London area holds site {k}?", p) for k, p in enumerate(places)]
    items += [Item("g1", "Where was Gene Vincent born?", "Norfolk"), Item("g2", "Which song made Gene Vincent famous?",
                                                                         "Be-Bop-A-Lula")]
    assert subjects("Where was Gene Vincent born?") == {"gene vincent"}
    rng = random.Random(0)
    assert same_subject(items[0], items, rng) is None
    assert same_subject(items[-2], items, rng) == "Be-Bop-A-Lula"
