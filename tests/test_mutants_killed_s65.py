"""Tests written at stop 62 (bench/mutants.md): against seed 64's survivors, the seed-101 exploration's and seed 65's
(after it was scored), each named by the behaviour it pins; the mutant it kills is in the comment above it."""
from __future__ import annotations

import dataclasses

import pytest

from tests.test_mutants_killed_s62 import _case

# --- grading/name_rules.py --------------------------------------------------------------------------------------


def test_a_question_asks_for_a_person_with_who_or_a_persons_noun():
    # name_rules.py:50 (`is not None` -> `is None`): hard_negatives' first-name probe asks this of every question
    from judgeagent.grading.name_rules import asks_for_person

    asked = ("Who wrote it?", "Whom did she marry?", "Whose novel is it?", "Which composer wrote it?",
             "What of the two writers won?", "Which city is it?", "What is the answer?", "Whoever knows?")
    assert [asks_for_person(q) for q in asked] == [True, True, True, True, True, False, False, False]


def test_a_surname_the_question_already_says_is_no_answer_of_its_own():
    # name_rules.py:68 (`name[-1] in asked` -> `name[-2] in asked`): "Bach" repeats the question's Bach; without it
    # in the question, the surname alone names the gold person
    from judgeagent.grading.name_rules import name_part

    gold = "Johann Sebastian Bach"
    assert name_part(_case("Bach.", gold, "Who was the Bach who composed the Brandenburg Concertos?")) is None
    assert name_part(_case("Bach.", gold, "Who composed the Brandenburg Concertos?")).correct


# --- grading/number_rules.py ------------------------------------------------------------------------------------

def test_a_gold_of_four_words_is_no_bare_number_for_the_same_number_rule():
    # number_rules.py:34 (`len(ref.split()) <= 3` -> `<= 4`): a gold of up to three words can be a number alone
    # ("forty two percent"); "forty two per cent" (four) is left to the rules that read a reply's other words
    from judgeagent.grading.number_rules import same_number

    assert same_number(_case("42 percent", "forty two percent")).method == "exact"
    assert same_number(_case("42 per cent", "forty two per cent")) is None


def test_units_that_differ_make_two_numbers_not_comparable():
    # number_rules.py:80 (its last line -> `return None`): "5 km" is not "5 miles", whatever the number
    from judgeagent.grading.number_rules import not_comparable

    assert not_comparable("5 km", ["5 miles"]) is True
    assert not_comparable("5 km", ["5 km"]) is False and not_comparable("5", ["5 miles"]) is False


# --- grading/text.py --------------------------------------------------------------------------------------------

def test_numbers_between_chinese_characters_stay_apart():
    # text.py:108 (`r" \1 "` -> `""`): each CJK character is set apart by spaces, not dropped, so the 3 and the 5
    # of "3个苹果和5个梨" are two numbers, not 35
    from judgeagent.grading.text import numbers

    assert numbers("他有3个苹果和5个梨") == {3.0, 5.0}
    assert numbers("1年2月") == {1.0, 2.0}


# --- grading/calibration.py -------------------------------------------------------------------------------------

def test_yes_no_and_maybe_are_no_usable_gold_for_a_probe():
    # calibration.py:152 ('no' emptied): a gold "no." would be probed as if it were a name
    from judgeagent.grading.calibration import _usable

    assert [_usable(g) for g in ("Yes", "no.", "Maybe", "Norway", "")] == [False, False, False, True, False]


# --- grading/choice.py ------------------------------------------------------------------------------------------

def test_an_option_text_opens_a_reply_only_as_a_whole_word():
    # choice.py:163 (`f"{norm} "` -> `f"{norm}"`): "Parisian cafes" does not choose "Paris"; "Paris is lovely" does
    from judgeagent.grading.choice import check_options

    options = {"A": "Paris", "B": "Rome", "C": "Oslo"}
    assert check_options("Parisian cafes are famous", options, "A", "Paris").method == "no_letter"
    v = check_options("Paris is lovely", options, "A", "Paris")
    assert (v.correct, v.method, v.extracted) == (True, "option_text", "A")


def test_a_reply_naming_two_options_says_why_it_has_no_answer():
    # choice.py:188 (the reason emptied)
    from judgeagent.grading.choice import check_options

    v = check_options("(A) or (B)", {"A": "Paris", "B": "Rome", "C": "Oslo"}, "A", "Paris")
    assert (v.correct, v.method, v.reason) == (False, "several_options", "names more than one option: no single answer")


# --- grading/judge.py -------------------------------------------------------------------------------------------

def test_each_schema_word_written_in_pieces_is_no_reasoning():
    # judge.py:39 (each word of `_ECHOES` emptied): "Tr u e." is three words, so only the echo list catches it
    from tests.test_mutants_killed_b import _judged

    for pieces in ("Judge Deci si on.", "Rea son ing.", "Rea so n.", "Cor re ct.", "Str in g.", "Tr u e.",
                   "Fal s e.", "No n e."):
        assert _judged(pieces).reason == "(the judge gave no reasoning)", pieces


def test_a_sentence_of_the_judges_prompt_with_a_word_changed_is_copied():
    # judge.py:118 (the sentence split's pattern emptied): the prompt is compared sentence by sentence, so one of
    # its sentences with a word changed is still the prompt's, while the same words with a name of their own are not
    from judgeagent.grading.judge import _SYSTEM, copies_instructions, echoes

    changed = "Rewordings, synonyms, abbreviations and extra correct details count as right."
    assert copies_instructions(changed) and echoes(changed, None, _SYSTEM)
    assert not copies_instructions("Both name Lutece, the reference's answer, in other words.")
    assert not echoes("Both name Lutece, the reference's answer, in other words.", None, _SYSTEM)


# --- grading/equivalence.py -------------------------------------------------------------------------------------

def _step(tmp_path, **calibration):  # type: ignore[no-untyped-def]
    import json

    from judgeagent.grading.equivalence import SHIPPED

    data = json.loads(SHIPPED.read_text())
    data["calibration"].update(calibration)
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(data))
    return path


def test_a_saved_steps_standardisation_keeps_six_decimals(tmp_path):
    # equivalence.py:242 (`round(..., 6)` -> 7 for the means)
    from judgeagent.grading.equivalence import read

    step = read(_step(tmp_path))
    shown = step.to_dict()
    assert shown["mean"] == [round(float(v), 6) for v in step.mean]
    assert shown["scale"] == [round(float(v), 6) for v in step.scale]
    moved = dataclasses.replace(step, mean=step.mean + 1 / 3)
    assert all(len(str(v).split(".")[1]) <= 6 for v in moved.to_dict()["mean"])


def test_a_step_calibrated_for_a_looser_bound_says_both_bounds_as_written(tmp_path):
    # equivalence.py:285 (`:g` emptied in the two bounds): 0.123456789 reads 0.123457, 1/30 reads 0.0333333
    from judgeagent.grading.equivalence import load

    path = _step(tmp_path, max_fpr=0.123456789, fpr=0.05, passed=True)
    step, note = load(path, max_fpr=1 / 30)
    assert step is None
    assert note == ("learned step off: calibrated for a false-positive rate of 0.050 (bound 0.123457), above "
                    "0.0333333")


def test_a_runs_learned_step_cannot_be_changed_once_made():
    # equivalence.py:303 (`frozen=True` -> False on RunStep)
    from judgeagent.grading.equivalence import RunStep

    made = RunStep(None, "learned step off", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.note = "changed"  # type: ignore[misc]


# --- grading/mcq.py ---------------------------------------------------------------------------------------------

def test_a_converted_item_keeps_its_supporting_documents_in_the_benchmark_file(tmp_path):
    # mcq.py:239 ('supporting_doc_ids' emptied): what `make-mcq` writes is read back with the item's documents
    import json

    from judgeagent.benchmark import load_benchmark
    from judgeagent.benchmarks.item import Item
    from judgeagent.grading.mcq import to_record

    item = Item("q1", "Which city is the capital of France?", "Paris", {"A": "Paris", "B": "Rome"}, "A",
                aliases=("Lutece",), supporting_doc_ids=("doc-3", "doc-7"), meta={"source": "test"})
    path = tmp_path / "mcq.jsonl"
    path.write_text(json.dumps(to_record(item)) + "\n")
    back = load_benchmark(path).items[0]
    assert (back.supporting_doc_ids, back.aliases, back.options, back.gold_letter, back.meta) == (
        ("doc-3", "doc-7"), ("Lutece",), {"A": "Paris", "B": "Rome"}, "A", {"source": "test"})


# --- the exploration of seed 101 (never scored): judge.py and name_rules.py -------------------------------------

def test_a_gold_of_three_words_with_a_number_is_a_number():
    # judge.py:57 (`<= 3` -> `< 3`): the judge is shown the number rule for "forty two percent", the entity rule for
    # "about forty two percent" (four words)
    from judgeagent.grading.judge import question_type

    assert [question_type([g]) for g in ("42", "forty two percent", "about forty two percent")] == [
        "number", "number", "entity"]


def test_an_instruction_with_words_of_its_own_is_copied_from_a_token_f1_of_four_fifths():
    # judge.py `_COPIED` (0.8 -> 1.8) and `closest >= _COPIED` (-> `>`): the prompt's sentence of ten words said whole
    # with five words of its own is F1 0.8 (precision 2/3, recall 1): copied; with six of its own, not
    from judgeagent.grading.judge import copies_instructions

    sentence = "Rewordings, synonyms, abbreviations and extra correct details count as correct"
    assert copies_instructions(f"{sentence} for Paris Lutece Rome Oslo.")
    assert not copies_instructions(f"{sentence} for Paris Lutece Rome Oslo Bern.")
    assert copies_instructions("") is False and copies_instructions("Anything at all.") is False


def test_an_initial_before_a_surname_is_one_letter_not_a_shortened_name():
    # name_rules.py `len(w) == 1 and any(...)` (-> `or`): "J. Bach" keeps the gold's initial; "Jo Bach" names another
    from judgeagent.grading.name_rules import name_part

    question = "Who composed the Brandenburg Concertos?"
    assert name_part(_case("J. Bach.", "Johann Sebastian Bach", question)).correct
    assert name_part(_case("Jo Bach.", "Johann Sebastian Bach", question)) is None


def test_a_surname_inside_a_longer_word_is_not_written_as_a_name():
    # name_rules.py `(?<!\w)` and `(?!\w)` emptied in `written_as_name`: "McBach" and "Bachelor" do not capitalise
    # "bach"
    from judgeagent.grading.name_rules import written_as_name

    assert written_as_name("It was bach, not McBach.", "bach") is False
    assert written_as_name("It was bach, a Bachelor.", "bach") is False
    assert written_as_name("It was Bach.", "bach") is True


def test_a_bare_ordinal_names_a_century_from_the_first_to_the_twenty_first():
    # number_rules.py `1 <= value <= 21` (-> `1 < value`): "First." for the 1st century is that century; "22nd" is no
    # century a gold can have, left to the other rules
    from judgeagent.grading.number_rules import periods

    assert [(v.correct, v.reason) for v in (periods(_case(r, "1st century")) for r in ("First.", "2nd"))] == [
        (True, "names the century 1, the gold's is 1"), (False, "names the century 2, the gold's is 1")]
    assert periods(_case("21st", "21st century")).correct and periods(_case("22nd", "21st century")) is None


def test_a_stated_number_needs_the_golds_unit_right_after_it():
    # number_rules.py `_same_unit(" ".join(ref), ...)` (the gold's join emptied): "2 of his assists" is not "2 goals",
    # even in a reply that says "goals" elsewhere (`not_comparable` reads no unit after "2 of")
    from judgeagent.grading.number_rules import stated_number

    assert stated_number(_case("He made 2 of his assists, goals aside.", "2 goals")) is None
    assert stated_number(_case("He scored 2 goals.", "2 goals")).method == "exact"


def test_each_scale_word_multiplies_by_its_own_power_of_ten():
    # text.py `_SCALES` (each value + 1): "2 trillion" is 2 and 2e12, not 2000000000002
    from judgeagent.grading.text import numbers

    assert [numbers(f"2 {s}") for s in ("hundred", "thousand", "million", "billion", "trillion")] == [
        {2.0, 2e2}, {2.0, 2e3}, {2.0, 2e6}, {2.0, 2e9}, {2.0, 2e12}]


def test_a_commitment_hedged_with_another_letter_names_more_than_one_option():
    # a defect found while killing choice.py's survivors: "The answer is A or B." was read as A alone (the hedge got
    # the credit of the gold); a letter after "or", "and", "/" or "&" right after the committed one is named too
    from judgeagent.grading.choice import check_options

    options = {"A": "Paris", "B": "Rome", "C": "Oslo", "D": "Bern"}
    for hedge in ("The answer is A or B.", "Answer: A/C", "Final answer: (A) or (C)", "The answer is A, or B.",
                  "I choose A and D", "The answer is A and/or D", "The answer is A, or possibly C."):
        assert check_options(hedge, options, "A", "Paris").method == "several_options", hedge
    # a connective followed by a word, an article or a pronoun leaves the commitment one letter
    for one in ("The answer is A and a good one.", "The answer is A or I am wrong.", "Option A or so.",
                "A or B could be right, but the answer is A.", "The answer is A. B or C were tempting."):
        v = check_options(one, options, "A", "Paris")
        assert (v.correct, v.method, v.extracted) == (True, "letter", "A"), one


def test_an_option_text_inside_a_later_word_is_no_second_option():
    # choice.py `f" {norm} " in rest` (either space emptied): "Jerome" and "Romeo" do not name option B, "Rome"
    from judgeagent.grading.choice import check_options

    for reply in ("Paris near Jerome", "Paris near Romeo"):
        v = check_options(reply, {"A": "Paris", "B": "Rome", "C": "Oslo"}, "A", "Paris")
        assert (v.correct, v.method, v.extracted) == (True, "option_text", "A"), reply


def test_a_several_answer_reply_with_no_letter_is_wrong():
    # choice.py `check_several`'s no-letter verdict (False -> True)
    from judgeagent.grading.choice import check_several

    v = check_several("I do not know.", {"A": "Paris", "B": "Rome", "C": "Oslo"}, "AC")
    assert (v.correct, v.method, v.reason) == (False, "no_letter", "no option letter found in the answer")


def test_a_one_word_reply_that_is_the_gold_has_the_precision_of_one():
    # equivalence.py `max(1, len(said))` (-> 2): the reply's share of words that are the gold's
    from judgeagent.grading.equivalence import FEATURES, features

    said = dict(zip(FEATURES, features("Which city is the capital of France?", ["Paris"], "Paris", cosine=False)))
    assert said["reply_precision"] == 1.0 and said["gold_recall"] == 1.0


def test_calibration_stops_at_the_first_error_or_false_positive_beyond_what_passing_allows():
    # calibration.py `+ 1e-9` (-> + 1.000000001, twice): 90% of 10 pairs allows 1 error ((1 - 0.9) * 10 is
    # 0.9999999999999998 in floats, the epsilon makes it 1), a 10% bound on 10 wrong answers 1 false positive
    from judgeagent.config import CheckerConfig
    from judgeagent.grading.calibration import Pair, _cannot_pass

    right, wrong = Pair("q", "g", "a", True, "restated"), Pair("q", "g", "b", False, "other_gold")
    accept, reject = (True, False, ""), (False, False, "")
    strict = CheckerConfig(min_judge_accuracy=0.9, max_judge_fpr=1.0)
    assert [_cannot_pass([right] * 10, [reject] * n + [accept] * (10 - n), strict) for n in (1, 2)] == [False, True]
    loose = CheckerConfig(min_judge_accuracy=0.5, max_judge_fpr=0.1)
    assert [_cannot_pass([wrong] * 10, [accept] * n + [reject] * (10 - n), loose) for n in (1, 2)] == [False, True]


def test_a_learned_step_cannot_be_changed_once_read(tmp_path):
    # equivalence.py `@dataclass(frozen=True)` on Equivalence (-> False): a run's step is the file it read
    from judgeagent.grading.equivalence import read

    step = read(_step(tmp_path))
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.trained_on = "changed"  # type: ignore[misc]


# --- protocols/dynaeval/report.py, view/inspect_log.py ----------------------------------------------------------

def test_a_code_games_pass_rate_counts_the_runs_that_passed():
    # dynaeval/report.py `value["status"] == "passed"` (-> `!=`): two passed runs of three are a rate of 2/3
    from judgeagent.protocols.dynaeval.report import _measures

    rows = [{"cast": {"1": "p1"}, "metrics": {"1": {"tests": {"status": s}, "coins": 3}}}
            for s in ("passed", "passed", "failed")]
    assert _measures(rows) == {"p1": {"coins": 3.0, "tests passed": pytest.approx(2 / 3)}}  # type: ignore[arg-type]


def test_an_inspect_model_event_starts_when_its_call_was_sent_and_says_how_long_it_took():
    # inspect_log.py `(call or {}).get("seconds")` ('seconds' emptied): the event's timestamp is the journal's
    # `stored` less the call's seconds, and its working time those seconds
    from judgeagent.protocols.episodes import Turn
    from judgeagent.view.inspect_log import _event

    call = {"messages": [{"role": "user", "content": "What is 2+2?"}], "text": "4", "stored": 1_000_000.0,
            "seconds": 2.5, "usage": {"input_tokens": 7, "output_tokens": 1}}
    event = _event(Turn("target", "answer", "What is 2+2?", "4"), call, "tgt", "2026-01-01T00:00:00+00:00")  # type: ignore[arg-type]
    assert (event["timestamp"], event.get("working_time")) == ("1970-01-12T13:46:37.500000+00:00", 2.5)
    assert event["output"]["usage"] == {"input_tokens": 7, "output_tokens": 1, "total_tokens": 8}


# --- protocols/judgeagent/report/build.py -----------------------------------------------------------------------

def test_a_graph_path_with_no_seed_kind_is_counted_as_unknown(tmp_path):
    # build.py `k or 'unknown'` ('unknown' emptied): a path written before seeds had kinds
    from judgeagent.protocols.judgeagent.report.build import paths_markdown
    from tests.test_mutants_killed_s60_report import _record, _run

    records = [_record(0, 0, 1, {"relevance": 0.5, "seed_kind": "named"}), _record(0, 0, 2, {"relevance": 0.25})]
    assert paths_markdown(_run(tmp_path, records))[-1] == "Graph paths by seed: named 1, unknown 1."


def test_a_batch_without_feedback_shows_a_dash_for_each_part(tmp_path):
    # build.py `fb.get(key, f.feedback_error or '-')` ('-' emptied)
    from judgeagent.protocols.judgeagent.records import FeedbackEntry
    from judgeagent.protocols.judgeagent.report.build import batch_markdown
    from tests.test_mutants_killed_s60_report import _run

    entry = FeedbackEntry(0, ["q1"], None, None, {}, 0.0, 0, ["easy"], [])  # type: ignore[arg-type]
    assert batch_markdown(_run(tmp_path), entry)[2:6] == [
        "- **flaws knowledge**: -", "- **flaws capability**: -", "- **comprehensive performance**: -",
        "- **suggestions**: -"]


def test_the_comparison_names_a_run_without_a_graph_random_chunks(tmp_path):
    # build.py `'yes' if c['graph'] else 'random chunks'` ('random chunks' emptied): the paper's ablation row
    import json

    from judgeagent.protocols.judgeagent.report.build import compare_runs
    from judgeagent.runs import RUN_FORMAT, RUN_FORMAT_VERSION

    folder = tmp_path / "no-graph"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({
        "format": RUN_FORMAT, "format_version": RUN_FORMAT_VERSION, "kind": "run", "protocol": "judgeagent",
        "models": {"target": {"name": "tgt"}}, "config": {"extension": True, "graph": None, "fixed_difficulty": None}}))
    (folder / "validation.json").write_text(json.dumps({"overall": {"n": 4, "acc1": 0.5, "acc2": 0.75, "cr": 0.5,
                                                                    "cte": 0.0, "delta": 0.5}}))
    assert compare_runs([folder]).splitlines()[-1] == \
        "| no-graph | tgt | yes | random chunks | adaptive | 4 | 50.0% | 75.0% | 50.0% | 0.0% | 50.0% |"


# --- grading/mcq.py (the exploration of seed 101) ---------------------------------------------------------------

def test_ordinal_suffixes_of_a_moved_ordinal():
    # mcq.py `_ordinal` ("19th" -> "22nd", not "22th"): the teens and 111-113 take "th"
    from judgeagent.grading.mcq import _ordinal

    assert [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112)] == [
        "st", "nd", "rd", "th", "th", "th", "th", "st", "nd", "rd", "st", "th", "th"]


def test_a_whole_number_moves_by_a_few_up_to_a_hundred_and_by_a_factor_above():
    # mcq.py `value <= 100` (-> 101): 100's distractors are 100 +- 1-5, 101's are 101 times 0.5-3
    import random

    from judgeagent.grading.mcq import _numeric_distractors

    assert sorted(_numeric_distractors("100", 5, random.Random(0)), key=int) == ["97", "101", "102", "104", "105"]
    assert sorted(_numeric_distractors("101", 5, random.Random(0)), key=int) == ["50", "76", "126", "152", "303"]


# --- protocols/runner.py (the exploration of seed 101) ----------------------------------------------------------

def test_a_runs_manifest_names_its_graph_by_path_and_id(tmp_path):
    # runner.py `"graph_id": request.graph.manifest.get("graph_id")` ('graph_id' emptied, twice): which graph a run
    # read is in its manifest, not only in its identity's hash
    import json
    from pathlib import Path
    from types import SimpleNamespace

    from judgeagent.benchmark import Benchmark, Item
    from judgeagent.models.testing import FunctionModel
    from judgeagent.protocols import run_protocol
    from tests.test_mutants_killed import _Counted

    graph = SimpleNamespace(path=tmp_path / "graph", manifest={"graph_id": "g-1234"})
    items = [Item(q, f"What is {q}?", q.upper()) for q in ("a", "b")]
    run_protocol(_Counted(), Benchmark(Path("counted.jsonl"), items), graph, run_dir=tmp_path / "run", cache=False,
                 models={"target": FunctionModel(lambda messages: "said", "scripted")})
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["graph"] == {"path": str(tmp_path / "graph"), "graph_id": "g-1234"}


# --- after seed 65 was scored (bench/mutants.md, stop 62): its survivors ---------------------------------------

def test_calibration_says_how_many_pairs_it_will_ask_before_it_asks(tmp_path):
    # calibration.py `f"... {len(pairs)} pairs"` (' pairs' emptied): the progress line a user waits on
    import asyncio

    from judgeagent.benchmark import Item
    from judgeagent.config import CheckerConfig
    from judgeagent.grading.calibration import pairs_from_items, vetted_checker
    from judgeagent.models.testing import FunctionModel
    from tests.test_learned_run import KEATS, THORNTON

    items = [THORNTON, KEATS, Item("moon", "Who first walked on the Moon?", "Neil Armstrong")]
    settings = CheckerConfig(judge_policy="calibrated")
    heard: list[str] = []
    yes = FunctionModel(lambda m: '{"reasoning": "It matches the reference.", "correct": true}', "yes")
    asyncio.run(vetted_checker(settings, yes, items, on_stage=heard.append))
    n = len(pairs_from_items(items, settings.calibration_pairs, 0, None, settings.hard_probes))
    assert heard == [f"calibrating the judge on up to {n} pairs"]


def test_a_judge_that_gives_no_decision_on_a_right_answer_counts_a_false_negative():
    # calibration.py `not acc or failed` (-> `and`): a failed call on a pair to accept is a miss, whatever it said
    from judgeagent.config import CheckerConfig
    from judgeagent.grading.calibration import Pair, summarise

    right, wrong = Pair("q", "g", "a", True, "restated"), Pair("q", "g", "b", False, "other_gold")
    c = summarise([right, right, wrong, wrong], [(True, True, "no decision"), (True, False, ""), (False, False, ""),
                                                 (False, False, "")], CheckerConfig())
    assert (c.accuracy, c.fpr, c.fnr) == (0.75, 0.0, 0.5)


def test_an_option_letter_opening_a_word_is_no_letter():
    # choice.py `_standalone`'s first `return False` (-> True): "Bern" does not say B; its text says D
    from judgeagent.grading.choice import check_options

    v = check_options("The answer is Bern, of course.", {"A": "Paris", "B": "Rome", "C": "Oslo", "D": "Bern"}, "D",
                      "Bern")
    assert (v.correct, v.method, v.extracted) == (True, "option_text", "D")


def test_a_several_answer_reply_is_read_from_its_answer_line_not_its_last_line():
    # choice.py `_ANSWER_LINE.findall(text or "")` (-> `text and ''`)
    from judgeagent.grading.choice import extract_letters

    assert extract_letters("Answer: A, C\nI am fairly sure.", {"A": "Paris", "B": "Rome", "C": "Oslo"}) == "AC"


def test_a_span_of_years_from_the_year_1000_is_no_gold_range():
    # numeric.py `1000 <= v <= 2100` (-> `1000 < v`): "1000-1005" is years, "999-1005" a range of numbers
    from judgeagent.grading.numeric import gold_range

    assert (gold_range("1000-1005"), gold_range("999-1005")) == (None, (999.0, 1005.0))


def test_a_rough_number_exactly_five_percent_off_is_about_the_gold():
    # numeric.py `abs(v - w) <= TOLERANCE * abs(w)` (-> `<`): 210 is within 5% of about 200, 211 is not
    from judgeagent.grading.numeric import compare_numbers, values
    from judgeagent.grading.text import numbers

    said = compare_numbers("about 210", "about 200", numbers("about 210"), values("about 200") or set())
    assert said is not None and said.correct and said.reason == "states about 210, within 5% of the gold's number"
    assert compare_numbers("about 211", "about 200", numbers("about 211"), values("about 200") or set()) is None


def test_a_runs_damaged_summary_is_named_with_the_parsers_words_in_brackets(tmp_path):
    # runs.py `f"an unreadable summary.json ({...})"` (')' emptied)
    from judgeagent.errors import JudgeAgentError
    from judgeagent.runs import Run

    (tmp_path / "summary.json").write_text("{")
    with pytest.raises(JudgeAgentError, match=r"has an unreadable summary\.json \(Expecting property name enclosed "
                                              r"in double quotes: line 1 column 2 \(char 1\)\); "):
        Run(tmp_path, {"protocol": "kieval"}).summary()


def test_four_changed_options_are_listed_whole_and_a_fifth_is_an_ellipsis():
    # runs.py `len(changed) > 4` (-> `>=`)
    from judgeagent.runs import _differences

    four = _differences({"config": dict.fromkeys("abcd", 1)}, {"config": dict.fromkeys("abcd", 2)})
    assert four == "options a: 1 there, 2 now; b: 1 there, 2 now; c: 1 there, 2 now; d: 1 there, 2 now"
    five = _differences({"config": dict.fromkeys("abcde", 1)}, {"config": dict.fromkeys("abcde", 2)})
    assert five == four + "; ..."


def test_an_inspect_event_without_a_call_or_a_clock_starts_at_the_epoch_and_a_roleless_message_is_the_users():
    # inspect_log.py: 'user' (a sent message's default role) and '1970-01-01T00:00:00+00:00' (no clock at all) emptied
    from judgeagent.protocols.episodes import Turn
    from judgeagent.view.inspect_log import _event

    bare = _event(Turn("target", "answer", "What is 2+2?", "4"), None, "tgt", "")
    assert bare["timestamp"] == "1970-01-01T00:00:00+00:00"
    call = {"messages": [{"content": "What is 2+2?"}], "text": "4", "stored": 10.0}
    sent = _event(Turn("target", "answer", "What is 2+2?", "4"), call, "tgt", "")  # type: ignore[arg-type]
    assert sent["input"][0]["role"] == "user"


def test_the_comparison_of_an_unvalidated_run_says_run_and_the_command(tmp_path):
    # build.py `f"run {folder} has no validation"` ('run ' emptied)
    import json

    from judgeagent.errors import JudgeAgentError
    from judgeagent.protocols.judgeagent.report.build import compare_runs
    from judgeagent.runs import RUN_FORMAT, RUN_FORMAT_VERSION

    (tmp_path / "manifest.json").write_text(json.dumps({"format": RUN_FORMAT, "format_version": RUN_FORMAT_VERSION,
                                                        "kind": "run", "protocol": "judgeagent"}))
    with pytest.raises(JudgeAgentError) as e:
        compare_runs([tmp_path])
    assert str(e.value) == f"run {tmp_path} has no validation: run judgeagent validate {tmp_path} first"


def test_the_paths_table_reads_extension_rounds_only(tmp_path):
    # build.py `r.stage == "extension" and r.path` (-> `or`): a base question's record with a path is no round
    from judgeagent.protocols.judgeagent.records import JudgedAs, QuestionRecord
    from judgeagent.protocols.judgeagent.report.build import paths_markdown
    from tests.test_mutants_killed_s60_report import _record, _run

    base = QuestionRecord("b0-q9", 0, "base", 0, None, "easy", "Question 9?", "gold", "answer", True,
                          JudgedAs("exact"), 1.0, path={"relevance": 0.1, "seed_kind": "question"})
    out = paths_markdown(_run(tmp_path, [base, _record(0, 0, 1, {"relevance": 0.5, "seed_kind": "named"})]))
    assert out[-3:] == ["| graph | 1 | 0.50 | 0.50 | 0.50 |", "", "Graph paths by seed: named 1."]


def test_a_spot_check_cell_keeps_two_hundred_characters():
    # judging.py `md_cell(c, 200)` (-> 201)
    from judgeagent.protocols.judgeagent.records import JudgedAs, QuestionRecord
    from judgeagent.protocols.judgeagent.report.judging import Judging, judging_markdown

    long = "x" * 300
    record = QuestionRecord("b0-q0", 0, "base", 0, None, "easy", "Question?", "gold", long, True,
                            JudgedAs("judge", "It matches."), 0.0)
    row = judging_markdown(Judging({"judge": 1}, None, 0, 1, [record]))[-1]
    cell = row.split(" | ")[2]
    assert len(cell) <= 200 and cell.startswith("x" * 150)


def test_dynaevals_scores_name_every_parser_that_read_the_moves():
    # dynaeval/report.py `", ".join(... parsed_by ...)` (', ' emptied): the references' runs read every move by rule
    from judgeagent.protocols.dynaeval.report import _scores

    s = {"symmetric": True, "task": "public_goods", "unit": "coins", "repetitions": 1, "games": 1,
         "ends": {"rounds played": 1}, "parsed_by": {"rule": 6, "model": 2}, "players": {}}
    assert _scores(s).splitlines()[0] == (  # type: ignore[arg-type]
        "Task `public_goods` (symmetric: every player the same role); score: coins per game. 1 repetitions, 1 games; "
        "ends: rounds played 1; moves read by model 2, rule 6.")
