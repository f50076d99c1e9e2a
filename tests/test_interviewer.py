"""The Interviewer protocol's changed-quantity modification (the checks by hand, on real items, and the
orchestration with scripted models: accepted, rejected with a paraphrase instead) and one run with the
embedded llama.cpp model through the CLI."""
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from judgeagent.benchmark import Benchmark, Item, load_benchmark
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from judgeagent.protocols.interviewer.quantities import Rejected, eligibility, evaluate, recompute
from tests.conftest import DATA

APPLES = Item("apples", "A shop has 12 apples and sells 5 of them. How many apples are left?", "7")


@pytest.mark.parametrize("question,formula,gold,reason", [
    ("A shop has 15 pears and sells 5 of them. How many apples are left?", "12 - 5", "10", "more than the numbers"),
    (APPLES.question, "12 - 5", "7", "no number changed"),
    ("A shop has 15 apples and sells 5 of them. How many apples are left?", "7", "10", "does not state (7)"),
    ("A shop has 15 apples and sells 5 of them. How many apples are left?", "12 - 5 - 2", "8", "not the gold 7"),
    ("A shop has 15 apples and sells 5 of them. How many apples are left?", "12 - 5", "11", "disagrees"),
    ("A shop has 3 apples and sells 5 of them. How many apples are left?", "12 - 5", "-2", "changes sign"),
    ("A shop has 13 apples and sells 5 of them. How many apples are left?", "(12 + 2) / 2", "7.5", "needs rounding"),
    ("A shop has 15 apples and sells 5 of them. How many apples are left?", "__import__('os')", "10", "more than"),
    ("A shop has 15 apples and sells 5 of them. How many apples are left?", "12 ** 5", "10", "more than numbers"),
])
def test_a_quantity_change_is_refused_for_the_right_reason(question, formula, gold, reason):
    with pytest.raises(Rejected, match=re.escape(reason)):
        recompute(APPLES, question, formula, gold)


def test_the_gold_is_recomputed_from_the_checked_formula():
    got = recompute(APPLES, "A shop has 15 apples and sells 5 of them. How many apples are left?", "12 - 5", "10")
    assert (got.gold, got.formula, got.changed) == ("10", "15 - 5", {"12": "15"})
    money = Item("m", "Tickets cost $1,250.50 each; Ann buys 4. What does she pay?", "$5,002.00")
    got = recompute(money, "Tickets cost $1,300.25 each; Ann buys 4. What does she pay?", "1250.50 * 4", "5201")
    assert got.gold == "$5,201.00"
    assert evaluate("(3 + 4) * 2 / 7") == 2.0


def test_real_items_a_rounded_medqa_gold_and_a_factual_hotpotqa_gold():
    """MedQA's NNT item (asked as free text) is recomputed and rounded as the item asks; HotpotQA's census
    population has a numeric gold and a year in the question, but no formula over the question's numbers
    gives it, so the change is refused."""
    medqa = {i.qid: i for i in load_benchmark(DATA / "medqa" / "full.questions.jsonl").items}["medqa-us-test-0046"]
    assert eligibility(medqa) == "a multiple-choice item"
    nnt = replace(medqa, options=None, gold_letter=None)
    assert eligibility(nnt) == "" and nnt.gold == "20"
    changed = nnt.question.replace("cardiac causes 134", "cardiac causes 150")
    got = recompute(nnt, changed, "1500 / (210 - 134)", "25")  # 1500/76 = 19.7 -> 20; 1500/60 = 25
    assert got.gold == "25" and got.formula == "1500 / (210 - 150)"
    hotpot = {i.qid: i for i in load_benchmark(DATA / "hotpotqa" / "full.questions.jsonl").items}[
        "hotpot-5ac3983a554299657fa290f5"]
    assert eligibility(hotpot) == "" and hotpot.gold == "6,960"
    with pytest.raises(Rejected, match="does not state"):
        recompute(hotpot, hotpot.question.replace("2011", "2016"), "6960", "7,100")


# --- orchestration with scripted models ------------------------------------------------------------------

MOON = Item("moon", "During the Apollo 11 mission in 1969, how many astronauts walked on the Moon?", "2")
CAPITAL = Item("capital", "Which city is the capital of Australia since the year 1913?", "Canberra")


def interviewer(messages):
    system, user = messages[0]["content"], messages[-1]["content"]
    if "change the quantities" in system:
        if "apples" in user:
            return json.dumps({"question": APPLES.question.replace("12", "20"), "formula": "12 - 5", "gold": "15"})
        return json.dumps({"question": MOON.question.replace("Apollo 11", "Apollo 12"), "formula": "2",
                           "gold": "2"})
    if "prepare interview questions" in system:
        original = user.split("Original question: ", 1)[1].split("\n")[0]
        return json.dumps({"question": {MOON.question: "In 1969's Apollo 11 landing, how many crew members stepped "
                                        "onto the lunar surface?", APPLES.question: "After selling 5 of its 12 "
                                        "apples, how many does the shop still have?"}.get(
                                            original, "Name the Australian capital city, as it has been from 1913.")})
    if system.startswith("Answer the question"):
        asked = user.removeprefix("Question: ")
        return "15" if "20 apples" in asked else "7" if "apples" in asked else "2" if "lunar" in asked else \
            "Canberra"
    return "{}"


def target(messages):
    first = next(m["content"] for m in messages if m["role"] == "user")
    return "15" if "20 apples" in first else "7" if "apples" in first else "2" if "lunar" in first else "Canberra"


def run(tmp_path, **options):
    models = {"target": FunctionModel(target, "tgt"), "interviewer": FunctionModel(interviewer, "int"),
              "judge": FunctionModel(lambda m: "{}", "jdg")}
    config = {"judge_policy": "off", "followups": 0, "summary": False, "resamples": 200, **options}
    result = run_protocol("interviewer", Benchmark(Path("q.jsonl"), [APPLES, MOON, CAPITAL]), models=models,
                          config=config, run_dir=tmp_path / "run", cache=False)
    rows = {r["qid"]: r for r in map(json.loads, (result.folder / "episodes.jsonl").read_text().splitlines())}
    recs = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    return result, rows, recs, models


def test_changed_quantities_accepted_rejected_and_not_allowed(tmp_path):
    result, rows, recs, models = run(tmp_path, modification="quantities")
    apples = rows["apples"]["versions"]
    assert apples["method"] == "quantities" and apples["gold_source"] == "recomputed: 20 - 5"
    assert apples["modified"] == {"question": APPLES.question.replace("12", "20"), "options": None, "gold_letter": None,
                                  "golds": ["15"]}
    assert apples["original"]["golds"] == ["7"] and apples["note"] == "quantities changed"
    # the interviewee is graded against the recomputed gold, the probe against the original one
    assert rows["apples"]["attempts"] == [True] and rows["apples"]["original_correct"] is True
    # a formula that does not use the changed number is refused, the reason kept, and a paraphrase asked instead
    moon = rows["moon"]["versions"]
    assert moon["method"] == "paraphrase" and moon["gold_source"] == "item" and moon["modified"]["golds"] == ["2"]
    assert moon["note"] == ("quantities not changed (the formula does not use any changed number); paraphrased")
    tries = [r for r in recs if r["episode"].endswith("moon") and r["meta"].get("method") == "quantities"]
    assert len(tries) == 2 and all(r["meta"]["rejected"] == "the formula does not use any changed number"
                                   for r in tries)
    # a non-numeric gold does not allow it: no quantity call, straight to the paraphrase
    capital = rows["capital"]["versions"]
    assert capital["method"] == "paraphrase" and capital["note"].startswith(
        "quantities not changed (the gold is not a number)")
    asked = [m[-1]["content"] for m in models["interviewer"].calls]
    assert sum("Australia" in a and "numbers changed" in a for a in asked) == 0
    assert result.summary["modification_methods"] == {"quantities": 1, "paraphrase": 2}
    assert "by method: paraphrase 2, quantities 1" in (result.folder / "report.md").read_text()


def test_a_change_the_interviewer_cannot_solve_itself_is_refused(tmp_path):
    def wrong(messages):
        return "12" if messages[0]["content"].startswith("Answer the question") and "20 apples" in \
            messages[-1]["content"] else interviewer(messages)

    models = {"target": FunctionModel(target, "tgt"), "interviewer": FunctionModel(wrong, "int")}
    result = run_protocol("interviewer", Benchmark(Path("q.jsonl"), [APPLES]), models=models,
                          config={"judge_policy": "off", "followups": 0, "summary": False, "probe": False,
                                  "modification": "quantities"}, run_dir=tmp_path / "run", cache=False)
    row = json.loads((result.folder / "episodes.jsonl").read_text())
    assert row["versions"]["method"] == "paraphrase" and "the interviewer's own answer to it is not the gold" in \
        row["versions"]["note"]


def test_paraphrase_stays_the_default(tmp_path):
    _, rows, recs, _ = run(tmp_path)
    assert {r["versions"]["method"] for r in rows.values()} == {"paraphrase"}
    assert not [r for r in recs if r["meta"].get("method") == "quantities"]


def test_reply_tokens_caps_the_free_text_calls_and_never_the_json_ones(tmp_path):
    capped = run(tmp_path / "capped", reply_tokens=48, followups=1, summary=True)[3]
    free = [(name, s) for name, m in capped.items() for s, schema in zip(m.settings, m.schemas) if schema is None]
    structured = [s for m in capped.values() for s, schema in zip(m.settings, m.schemas) if schema is not None]
    # answers, probes and follow-up replies; the interviewer's self-checks and summary
    assert {name for name, _ in free} == {"target", "interviewer"} and len(free) >= 10
    assert all(s == {"max_tokens": 48} for _, s in free)
    assert structured and all(s == {} for s in structured)  # paraphrases, quantities, follow-up questions, judging
    default = run(tmp_path / "default", followups=1, summary=True)[3]
    assert all(s == {} for m in default.values() for s in m.settings)  # unset: the calls (and their keys) as before


# --- the embedded llama.cpp model --------------------------------------------------------------------------

def test_the_embedded_model_as_interviewee_interviewer_and_judge(tmp_path, capsys):
    """SmolLM2-135M in every role on 2 HotpotQA items, one revision and one follow-up, replies capped, via the CLI."""
    from judgeagent.cli import main

    code = main(["evaluate", "--protocol", "interviewer", "--target", "local", "--benchmark",
                 str(DATA / "hotpotqa" / "small.questions.jsonl"), "--limit", "2", "-o", "revisions=1",
                 "-o", "followups=1", "-o", "judge_policy=off", "-o", "summary_items=2", "-o", "reply_tokens=48",
                 "--run-dir", str(tmp_path / "run"), "--no-cache", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and "report:" in out
    run = tmp_path / "run"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "finished"
    assert {r: d["name"] for r, d in manifest["models"].items()} == {"target": "local", "interviewer": "local",
                                                                      "judge": "local"}
    rows = [json.loads(x) for x in (run / "episodes.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(1 <= len(r["attempts"]) <= 2 and len(r["followups"]) == 1 for r in rows)
    recs = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    roles = {(r["meta"].get("stage"), r["role"]) for r in recs}
    assert {("attempt", "target"), ("modify", "interviewer"), ("followup", "target"), ("summary", "interviewer")} \
        <= roles
    summary = json.loads((run / "summary.json").read_text())
    assert set(summary["score_at"]) == {"@1", "@2"} and summary["followup"]["all"]["n"] == 2
    # reply_tokens keeps the test short where it can: every interviewee reply is free text. Most of the time left
    # is in the JSON calls, which it never caps (llama-cpp-python's server builds a grammar for each: seconds).
    assert summary["usage"]["target"]["output_tokens"] <= 48 * summary["usage"]["target"]["calls"]
    report = (run / "report.md").read_text()
    for section in ("Performance scores", "Error types and examples", "Contamination probe", "Query modification",
                    "Summary by the interviewer"):
        assert f"## {section}" in report


# --- MATH answers (issue 27): the last \boxed{}, LaTeX normalised, equal values ------------------------------

def math_items(*indices: int) -> list[dict]:
    """MATH test problems (papers/math, one original object a line) by line index."""
    lines = (DATA / "papers" / "math" / "data" / "math" / "test.jsonl").read_text().splitlines()
    return [json.loads(lines[i]) for i in indices]


def test_the_gold_is_the_last_box_of_a_real_math_solution_nested_braces_matched():
    from judgeagent.protocols.interviewer.mathanswer import last_boxed

    golds = [last_boxed(d["solution"]) for d in math_items(2, 13, 17, 24, 167, 322, 444)]
    assert golds == ["\\frac{1}{10}", "10,\\!080", "\\frac1{10}", "-\\$0.50", "\\text{Tuesday}",
                     "(-\\sqrt{3}, \\sqrt{3})", "45^\\circ"]
    assert last_boxed("first \\boxed{1}, then \\boxed{\\frac{\\sqrt{2}}{2}} and text") == "\\frac{\\sqrt{2}}{2}"
    assert last_boxed("unbalanced \\boxed{3} then \\boxed{4") == "3" and last_boxed("\\boxed 7.") == "7."
    assert last_boxed("no box here") is None


@pytest.mark.parametrize("reply,line,right", [
    ("The probability is $\\boxed{\\dfrac{1}{10}}$.", 2, True),
    ("Answer: 1/10", 2, True),
    ("So the answer is \\boxed{0.1}", 17, True),
    ("\\boxed{\\frac{1}{9}}", 2, False),
    ("\\boxed{10080}", 13, True),
    ("\\boxed{10,080 \\text{ ways}}", 13, True),
    ("$-0.5$", 24, True),
    ("\\boxed{-\\$0.50}", 24, True),
    ("\\boxed{0.50}", 24, False),
    ("\\boxed{\\textbf{Tuesday}}", 167, True),
    ("\\boxed{\\left(-\\sqrt3, \\sqrt{3}\\right)}", 322, True),
    ("\\boxed{(-\\sqrt{3}, 3)}", 322, False),
    ("The angle is \\boxed{45^{\\circ}}.", 444, True),
    ("\\boxed{45.0}", 444, True),
    ("\\boxed{x = 45}", 444, True),
    ("\\boxed{54}", 444, False),
])
def test_math_answers_written_another_way_are_equal_and_wrong_ones_are_not(reply, line, right):
    from judgeagent.protocols.interviewer.grade import answer_of
    from judgeagent.protocols.interviewer.mathanswer import equal, final_answer, last_boxed

    gold = last_boxed(math_items(line)[0]["solution"])
    assert equal(final_answer(reply, answer_of(reply)), gold) is right


# --- outcome-dependent follow-ups (paper Section 6.2) ----------------------------------------------------------

OLYMPICS = Item("olympics", "Which Australian city hosted the Summer Olympics in the year 2000?", "Sydney")
RIVER = Item("river", "Which river flows through the city that is Australia's capital since 1913?", "Molonglo")


def typed_feedback(messages):
    """The interviewer, typing the errors: a misread question (Olympics), a calculation error (river)."""
    if messages[0]["content"] == "You are an interviewer giving feedback on a wrong answer.":
        error = "misinterpretation" if "Olympics" in messages[-1]["content"] else "calculation"
        return json.dumps({"error_type": error, "feedback": "Read the question again."})
    return interviewer(messages)


def followup_run(tmp_path, **options):
    def judge(messages):
        adequate = "Follow-up question (rationale)" in messages[-1]["content"]
        return json.dumps({"reasoning": "checked", "adequate": adequate})

    models = {"target": FunctionModel(target, "tgt"), "interviewer": FunctionModel(typed_feedback, "int"),
              "judge": FunctionModel(judge, "jdg")}
    config = {"judge_policy": "off", "followups": 2, "summary": False, "resamples": 200, "revisions": 1,
              "probe": False, **options}
    result = run_protocol("interviewer", Benchmark(Path("q.jsonl"), [APPLES, OLYMPICS, RIVER]), models=models,
                          config=config, run_dir=tmp_path / "run", cache=False)
    rows = {r["qid"]: r for r in map(json.loads, (result.folder / "episodes.jsonl").read_text().splitlines())}
    return result, rows, models


def test_follow_ups_ask_for_a_rationale_after_a_solve_and_a_clarification_after_a_failure(tmp_path):
    result, rows, models = followup_run(tmp_path)
    assert rows["apples"]["attempts"] == [True] and rows["olympics"]["attempts"] == [False, False]
    assert [f["kind"] for f in rows["apples"]["followups"]] == ["rationale", "rationale"]
    assert [f["kind"] for f in rows["olympics"]["followups"]] == ["clarification", "clarification"]
    # a failure whose last error is neither a misreading nor missing knowledge gets none (the authors' SOLVE_FAIL)
    assert rows["river"]["attempts"] == [False, False] and rows["river"]["errors"][-1]["error_type"] == "calculation"
    assert rows["river"]["followups"] == []
    asked = [m[-1]["content"] for m in models["interviewer"].calls if "follow-up question of this kind" in m[-1]["content"]]
    assert sum("solved the problem: ask about the reasoning" in a for a in asked) == 2
    assert sum("did not solve the problem: ask it to explain how it reads" in a for a in asked) == 2
    f = result.summary["followup"]  # Table 4's Rationale, Clarification and Acc_follow columns
    assert (f["seed_solved"], f["seed_failed"], f["all"]) == ({"n": 2, "score": 1.0}, {"n": 2, "score": 0.0},
                                                             {"n": 4, "score": 0.5})
    assert result.summary["scoring"]["followups"] == "paper"
    assert "follow-ups by outcome, as the paper" in (result.folder / "report.md").read_text()


def test_rotated_follow_ups_stay_an_option_and_keep_the_old_run_identity(tmp_path):
    from judgeagent.protocols.interviewer.config import InterviewerConfig
    from judgeagent.protocols.interviewer.episode import followup_kinds

    result, rows, models = followup_run(tmp_path, followup_policy="rotate")
    cfg = InterviewerConfig(followups=2, followup_policy="rotate")
    for i, qid in enumerate(("apples", "olympics", "river")):
        assert [f["kind"] for f in rows[qid]["followups"]] == followup_kinds(cfg, f"item-{i}-{qid}", i == 0)
        assert len(rows[qid]["followups"]) == 2  # whatever the outcome and the error
    kinds = {f["kind"] for r in rows.values() for f in r["followups"]}
    assert len(kinds) >= 2 and kinds <= {"rationale", "elaboration", "clarification", "additional_information"}
    asked = [m[-1]["content"] for m in models["interviewer"].calls]
    assert not any("solved the problem: ask about" in a or "did not solve the problem: ask" in a for a in asked)
    assert "kinds rotated whatever the outcome" in (result.folder / "report.md").read_text()
    # at the values of the runs written before these options, the options are left out of the run identity
    from judgeagent.protocols import InterviewerProtocol
    from judgeagent.protocols.base import RunRequest

    protocol = InterviewerProtocol()
    old = InterviewerConfig(followup_policy="rotate", answers="text")
    payload = protocol.identity_payload(RunRequest(Benchmark(Path("q.jsonl"), [APPLES]), None, {}, old), None)
    assert not {"followup_policy", "answers", "facts", "fact_threshold"} & set(payload["config"])
    new = protocol.identity_payload(RunRequest(Benchmark(Path("q.jsonl"), [APPLES]), None, {}, InterviewerConfig()),
                                    None)
    assert (new["config"]["followup_policy"], new["config"]["answers"]) == ("paper", "auto")


def test_a_boxed_math_reply_is_graded_as_math_by_default_and_by_the_checker_with_answers_text(tmp_path):
    problems = math_items(2, 444)
    from judgeagent.protocols.interviewer.mathanswer import last_boxed

    items = [Item(f"math-{i}", d["problem"], last_boxed(d["solution"])) for i, d in zip((2, 444), problems)]
    replies = {items[0].question: "We count the cases.\nSo the probability is $\\boxed{0.1}$.",
               items[1].question: "The angle is \\boxed{45}."}

    def solver(messages):
        return next(v for q, v in replies.items() if q in messages[1]["content"])

    def verdicts(answers):
        models = {"target": FunctionModel(solver, "tgt"), "interviewer": FunctionModel(lambda m: "{}", "int")}
        result = run_protocol("interviewer", Benchmark(Path("math.jsonl"), items), models=models,
                              config={"judge_policy": "off", "followups": 0, "summary": False, "modify": False,
                                      "probe": False, "revisions": 0, "answers": answers},
                              run_dir=tmp_path / answers, cache=False)
        recs = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
        return {r["episode"]: r["scores"]["correct"] for r in recs if r["meta"].get("stage") == "attempt"}

    auto = verdicts("auto")
    assert [(v["value"], v["method"]) for v in auto.values()] == [(1.0, "math_equal")] * 2
    text = verdicts("text")
    # the shared checker reads the first line ("We count the cases.") and misses 1/10 written as 0.1; it does find
    # 45 in "The angle is \\boxed{45}." by its own number rule
    # (by episode: the records' order follows which episode finishes first; the learned step decides off the loop)
    assert [text[k]["value"] for k in sorted(text)] == [0.0, 1.0] and "math_equal" not in {v["method"] for v in
                                                                                         text.values()}


# --- unclarifying (paper: MATH) and modifying (paper: DepthQA) -----------------------------------------------

CHARGE = Item("charge", "A phone charges 1 percentage point every 3 minutes and is at 60% now. How many minutes "
                        "until it is fully charged?", "120")
VAGUE = CHARGE.question.replace("charges 1 percentage point every 3 minutes", "charges at a certain rate")
RATE = "the phone charges 1 percentage point every 3 minutes"
PHOTO = Item("photo", "What is photosynthesis?", "Photosynthesis is the process by which green plants use sunlight, "
             "water and carbon dioxide to make glucose and oxygen. It takes place in the chloroplasts, whose "
             "chlorophyll absorbs mostly red and blue light.")
SECTION = "It takes place in the chloroplasts, whose chlorophyll absorbs mostly red and blue light."


def rewriter(messages):
    system, user = messages[0]["content"], messages[-1]["content"]
    if "so that the interviewee has to ask" in system:
        if "Australia" in user:
            return json.dumps({"revised_question": CAPITAL.question.replace("the year 1913", "a certain year"),
                               "deleted_information": "the year 1913"})
        if "rejected" not in user:  # first try: a copy, refused in code
            return json.dumps({"revised_question": CHARGE.question, "deleted_information": RATE})
        return json.dumps({"revised_question": VAGUE, "deleted_information": RATE})
    if "new question from a question and its reference answer" in system:
        if "rejected" not in user:  # first try: an answer that is not in the reference, refused in code
            return json.dumps({"new_question": "Why are leaves green in autumn and red in spring?",
                               "new_solution": "Because anthocyanins build up when the nights get cold."})
        return json.dumps({"new_question": "Where in the plant cell does this process happen, and which light "
                                           "does its pigment absorb?", "new_solution": SECTION})
    if "answering a clarifying question" in system:
        return f"Yes: {RATE} (that is the certain rate)." if "Information removed" in user else "Not needed."
    return interviewer(messages)


def asks(messages):
    said = " ".join(m["content"] for m in messages if m["role"] == "user")
    if "certain rate" in said and "percentage point every 3 minutes" not in said:
        return "CLARIFY: At what rate does the phone charge?"
    return "120" if "charge" in said else "Canberra" if "Australia" in said else \
        "Chlorophyll in the chloroplasts; it absorbs red and blue light."


def guesses(messages):
    said = " ".join(m["content"] for m in messages if m["role"] == "user")
    return "120" if "percentage point every 3 minutes" in said else "40"


def rewrite_run(tmp_path, target_fn, items, modification):
    models = {"target": FunctionModel(target_fn, "tgt"), "interviewer": FunctionModel(rewriter, "int"),
              "judge": FunctionModel(lambda m: "{}", "jdg")}
    result = run_protocol("interviewer", Benchmark(Path("q.jsonl"), items), models=models,
                          config={"judge_policy": "off", "followups": 0, "summary": False, "probe": False,
                                  "verify_modified": False, "modification": modification},
                          run_dir=tmp_path / "run", cache=False)
    rows = {r["qid"]: r for r in map(json.loads, (result.folder / "episodes.jsonl").read_text().splitlines())}
    recs = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    return result, rows, recs, models


def test_unclarifying_removes_information_that_the_interviewer_gives_back_when_asked(tmp_path):
    result, rows, recs, models = rewrite_run(tmp_path, asks, [CHARGE, CAPITAL], "unclarifying")
    charge = rows["charge"]
    assert charge["versions"]["method"] == "unclarifying" and charge["versions"]["withheld"] == RATE
    assert charge["versions"]["modified"]["question"] == VAGUE and charge["versions"]["modified"]["golds"] == ["120"]
    tries = [r for r in recs if r["meta"].get("method") == "unclarifying" and r["episode"].endswith("charge")]
    assert [t["meta"]["rejected"] for t in tries] == ["nothing was removed (a copy of the original)", None]
    assert charge["attempts"] == [True]
    assert charge["unclarified"] == {"asked": True, "given_at": "clarify/0/1", "right_without": None}
    clarify = next(r for r in recs if r["meta"].get("stage") == "clarification")
    assert RATE in clarify["reply"]
    # an interviewee that answers without asking for what was removed is seen (here it recalls the capital)
    capital = rows["capital"]
    assert capital["versions"]["withheld"] == "the year 1913" and capital["attempts"] == [True]
    assert capital["unclarified"] == {"asked": False, "given_at": "unclarified/information", "right_without": True}
    assert result.summary["unclarified"] == {"items": 2, "asked": 1, "given_by_clarification": 1,
                                             "answered_without": 1, "right_without": 1}
    assert "it answered without it in 1 (not counted as attempts" in (result.folder / "report.md").read_text()


def test_an_answer_without_the_removed_information_is_no_attempt_and_the_interviewer_then_gives_it(tmp_path):
    """As the authors' code (experiments/src/base_state.py): answers in CLARIFICATION_NEEDED are not counted as
    QUESTION_SOLVING attempts; the attempts start once the information is given."""
    _, rows, recs, _ = rewrite_run(tmp_path, guesses, [CHARGE], "unclarifying")
    charge = rows["charge"]
    assert charge["attempts"] == [True] and charge["errors"] == []
    assert charge["unclarified"] == {"asked": False, "given_at": "unclarified/information", "right_without": False}
    without = next(r for r in recs if r["meta"]["stage"] == "answer_without_information")
    told = next(r for r in recs if r["meta"]["stage"] == "withheld_information")
    assert (without["reply"], without["scores"]["correct"]["value"]) == ("40", 0.0) and RATE in told["reply"]
    attempt = next(r for r in recs if r["meta"]["stage"] == "attempt")
    assert attempt["prompt"] == told["reply"] and attempt["reply"] == "120"


@pytest.mark.parametrize("question,withheld,why", [
    (CHARGE.question, RATE, "nothing was removed"),
    (VAGUE, "  ", "names no removed information"),
    (VAGUE.replace("certain rate", "certain rate (1 percentage point every 3 minutes)"),
     "1 percentage point every 3 minutes", "still in the question"),
    (VAGUE, "the answer is 120", "states the answer"),
])
def test_an_unclarified_question_is_refused_for_the_right_reason(question, withheld, why):
    from judgeagent.protocols.interviewer.rewrite import unclarified_problem

    assert why in unclarified_problem(CHARGE, question, withheld)


def test_modifying_asks_a_new_question_whose_gold_is_a_section_of_the_reference(tmp_path):
    _, rows, recs, models = rewrite_run(tmp_path, asks, [PHOTO, CAPITAL], "modifying")
    photo = rows["photo"]["versions"]
    assert photo["method"] == "modifying" and photo["gold_source"] == "reference section"
    assert photo["modified"]["golds"] == [SECTION] and photo["original"]["golds"] == [PHOTO.gold]
    tries = [r for r in recs if r["meta"].get("method") == "modifying"]
    assert tries[0]["meta"]["rejected"].startswith("its answer is not a section of the reference")
    # a short gold holds no second question: a paraphrase instead, the reason kept
    assert rows["capital"]["versions"]["method"] == "paraphrase"
    assert rows["capital"]["versions"]["note"].startswith("modifying not applied (the reference answer is under 12")
    # the reply is graded against the section (token F1 0.82), not the whole reference it would not match
    graded = next(r for r in recs if r["meta"].get("stage") == "attempt" and r["episode"].endswith("photo"))
    assert rows["photo"]["attempts"] == [True] and graded["scores"]["correct"]["method"] == "f1"
    from judgeagent.grading.text import token_f1
    assert token_f1(graded["reply"], PHOTO.gold) < 0.5


# --- atomic-fact scoring of long answers (paper: DepthQA, FActScore-style) ------------------------------------

PHOTO_FACTS = ["Photosynthesis is a process of green plants", "It uses sunlight, water and carbon dioxide",
               "It makes glucose and oxygen", "Chlorophyll absorbs mostly red and blue light"]


def test_long_answers_are_scored_by_atomic_facts_with_the_authors_recall(tmp_path):
    from judgeagent.protocols.interviewer.facts import fact_score

    # interview-eval experiments/src/base_grader.py acc_counter_stem(recall=True): supported 1, partially 0.5
    assert fact_score(["supported", "partially supported", "not supported", "supported"], 4) == 0.625
    assert fact_score(["supported"], 4) == 0.25  # a fact the judge left unlabelled is not supported

    def splitter(messages):
        if messages[0]["content"].startswith("You split a reference answer"):
            return json.dumps({"facts": PHOTO_FACTS}) if "Photosynthesis is" in messages[-1]["content"] else "{}"
        return interviewer(messages)

    def student(messages):
        return "Plants make food from light." if len(messages) <= 2 else \
            "Green plants turn sunlight, water and carbon dioxide into glucose and oxygen."

    def judge(messages):
        reply = messages[-1]["content"].split("The interviewee answered:\n", 1)[1]
        labels = (["partially supported"] + ["not supported"] * 3 if "food" in reply else
                  ["supported"] * 3 + ["not supported"])
        return json.dumps({"labels": [{"fact": i, "label": x} for i, x in enumerate(labels, 1)]})

    models = {"target": FunctionModel(student, "tgt"), "interviewer": FunctionModel(splitter, "int"),
              "judge": FunctionModel(judge, "jdg")}
    result = run_protocol("interviewer", Benchmark(Path("q.jsonl"), [PHOTO, CAPITAL]), models=models,
                          config={"judge_policy": "off", "followups": 0, "summary": False, "modify": False,
                                  "probe": False, "facts": True, "revisions": 2},
                          run_dir=tmp_path / "run", cache=False)
    rows = {r["qid"]: r for r in map(json.loads, (result.folder / "episodes.jsonl").read_text().splitlines())}
    recs = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    assert rows["photo"]["attempts"] == [False, True] and rows["photo"]["fact_scores"] == [0.125, 0.75]
    graded = [r["scores"]["correct"] for r in recs if r["meta"].get("stage") == "attempt" and "photo" in r["episode"]]
    assert [g["method"] for g in graded] == ["atomic_facts"] * 2
    assert graded[1]["reason"] == "3 supported, 0 partially, of 4 facts: 0.75"
    splits = [r for r in recs if r["meta"].get("stage") == "facts"]
    assert len(splits) == 1 and splits[0]["meta"]["facts"] == PHOTO_FACTS  # split once per item, not per attempt
    assert "fact_scores" not in rows["capital"]  # a short gold: the usual checker
    assert result.summary["fact_score_at"] == {"items": 1, "@1": 0.125, "@2": 0.75, "@3": 0.75}
    assert "Atomic-fact score over 1 long-answer items" in (result.folder / "report.md").read_text()


# --- fidelity: the paper's Table 4 recomputed through our scoring ---------------------------------------------

TABLE_4 = {  # Kim et al., LLM-as-an-Interviewer (2024), Table 4 (MATH, GPT-4o interviewing, 100 queries, Section 6):
    # Acc_seed@1, @2, @3, Adapt., Rationale, Clarification, Acc_follow
    "GPT-4o": ("0.72", "0.82", "0.84", "0.12", "0.99", "0.17", "0.93"),
    "GPT-3.5": ("0.39", "0.54", "0.64", "0.25", "0.90", "0.56", "0.82"),
    "Llama3.1-70b": ("0.50", "0.68", "0.76", "0.26", "0.91", "0.22", "0.84"),
    "Llama3.1-8B": ("0.58", "0.68", "0.75", "0.17", "0.89", "0.07", "0.76"),
    "deepseek": ("0.29", "0.53", "0.61", "0.32", "0.82", "0.38", "0.69"),
    "qwen": ("0.59", "0.73", "0.75", "0.16", "0.90", "0.08", "0.78"),
}


def table_4_rows(model: str) -> list[dict]:
    """100 episode rows (paper Section 6: 100 MATH queries) solved at the attempts the row's Score@n imply."""
    at = [round(100 * float(x)) for x in TABLE_4[model][:3]]
    attempts = ([[True]] * at[0] + [[False, True]] * (at[1] - at[0]) + [[False, False, True]] * (at[2] - at[1])
                + [[False, False, False]] * (100 - at[2]))
    return [{"qid": f"q{i}", "attempts": a, "solved": a[-1], "errors": [], "followups": [], "original_correct": None,
             "versions": {"changed": True, "note": "", "method": "unclarifying"}} for i, a in enumerate(attempts)]


@pytest.mark.parametrize("model", list(TABLE_4))
def test_table_4_score_columns_come_out_of_our_scoring(model):
    """Score@n carries a solved item's score forward (paper 3.2) and Adapt. = Score@3 - Score@1. (Table 4's
    follow-up columns are ratios the paper gives without counts: see the authors' test cases below.)"""
    from judgeagent.protocols.interviewer.report import numbers

    s = numbers(table_4_rows(model), revisions=2, resamples=100)
    assert [f"{x:.2f}" for x in [*s["score_at"].values(), s["adaptability"]]] == list(TABLE_4[model][:4])


# The authors' own test cases (interview-eval/interview-eval@354b3e2, experiments/testcase_1.csv and testcase_2.csv):
# each row's state_flow, the grader's "answer correctness" per attempt (correctness_main_detail) and error_type.
# The authors' metrics.py `calculate_accuracies` counts an item at @1 when it succeeded after one QUESTION_SOLVING,
# at @2 after one or two, at @3 after any: over the four rows (0.25, 0.25, 0.5). Their base_state.py asks a follow-up
# after SOLVE_SUCCESS, and after SOLVE_FAIL only when the last error is "concept" or "misinterpret". The test cases
# leave correctness_followup empty; the follow-up outcomes below (1 = the reply was right) are ours, for which the
# authors' `calculate_followup_accuracy` (share of solved / failed items with a follow-up scored >= 1) gives 1/2, 1/2.
AUTHORS_TESTCASES = [  # (file, idx, state_flow, answer correctness per attempt, error_type, follow-up outcome)
    ("testcase_1", 1, ["QUESTION_SOLVING"] * 3 + ["SOLVE_SUCCESS", "QUESTION_COMPLETE", "SESSION_START"],
     [False, False, True], ["concept"] * 3, 1),
    ("testcase_1", 2, ["QUESTION_SOLVING", "SOLVE_SUCCESS", "QUESTION_COMPLETE", "SESSION_START"], [True],
     ["concept"], 0),
    ("testcase_2", 1, ["QUESTION_SOLVING", "SOLVE_FAIL", "QUESTION_COMPLETE", "SESSION_START"], [False], ["concept"], 1),
    ("testcase_2", 2, ["QUESTION_SOLVING", "SOLVE_FAIL", "QUESTION_COMPLETE", "SESSION_START"], [False], ["concept"], 0),
]
AUTHORS_ERRORS = {"concept": "knowledge", "misinterpret": "misinterpretation", "calculation": "calculation"}


def _authors_rows(cases):
    from judgeagent.protocols.interviewer.config import InterviewerConfig
    from judgeagent.protocols.interviewer.episode import followup_kinds

    rows = []
    for file, idx, flow, attempts, errors, outcome in cases:
        solved = "SOLVE_SUCCESS" in flow
        assert flow.count("QUESTION_SOLVING") == len(attempts) and attempts[-1] == solved
        kinds = followup_kinds(InterviewerConfig(followups=1), f"{file}/{idx}", solved, AUTHORS_ERRORS[errors[-1]])
        rows.append({"qid": f"{file}/{idx}", "attempts": attempts, "solved": solved, "errors": [],
                     "followups": [{"kind": k, "score": float(outcome), "question": "?"} for k in kinds],
                     "original_correct": None, "versions": {"changed": False, "note": "", "method": "none"}})
    return rows


def test_the_authors_test_cases_score_as_their_metrics():
    """Score@n and the follow-up columns of the authors' test cases, through our `followup_kinds` and `numbers`.
    Seen to fail with score_at reading `attempts[n - 1] if n <= len(attempts) else False` (no carry-forward: @2 and @3
    drop to 0.25), with the rationale kind after a failure, and with CLARIFIABLE emptied (no follow-up after a
    failure)."""
    from judgeagent.protocols.interviewer.report import numbers

    rows = _authors_rows(AUTHORS_TESTCASES)
    assert [[f["kind"] for f in r["followups"]] for r in rows] == [["rationale"]] * 2 + [["clarification"]] * 2
    s = numbers(rows, revisions=2, resamples=100)
    assert s["score_at"] == {"@1": 0.25, "@2": 0.25, "@3": 0.5} and s["adaptability"] == 0.25
    f = s["followup"]
    assert (f["by_kind"]["rationale"]["score"], f["by_kind"]["clarification"]["score"]) == (0.5, 0.5)
    assert f["all"] == {"n": 4, "score": 0.5}
    # a failure whose last error is a calculation slip ends the item without a follow-up (base_state.py SOLVE_FAIL)
    slip = _authors_rows([(*AUTHORS_TESTCASES[2][:4], ["calculation"], 1)])
    assert slip[0]["followups"] == []


def test_a_follow_up_is_asked_again_up_to_m_times_until_answered(tmp_path):
    """Algorithm 1: a follow-up is retried while not answered adequately, FOLLOWUP_interactions_MAX = M times."""
    def stubborn(messages):
        last = messages[-1]["content"]
        return "On a second look: 12 - 5 = 7." if "Please try again" in last else target(messages)

    def judge(messages):
        reply = messages[-1]["content"].split("\nReply: ", 1)[1]
        return json.dumps({"reasoning": "checked", "adequate": "second look" in reply})

    models = {"target": FunctionModel(stubborn, "tgt"), "interviewer": FunctionModel(interviewer, "int"),
              "judge": FunctionModel(judge, "jdg")}
    result = run_protocol("interviewer", Benchmark(Path("q.jsonl"), [APPLES]), models=models,
                          config={"judge_policy": "off", "followups": 1, "followup_tries": 3, "summary": False,
                                  "probe": False}, run_dir=tmp_path / "run", cache=False)
    row = json.loads((result.folder / "episodes.jsonl").read_text())
    assert row["followups"][0]["score"] == 1.0 and row["followups"][0]["tries"] == 2
    recs = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    steps = sorted(r["record_id"].split("/", 1)[1] for r in recs if r["meta"].get("stage") == "followup")
    assert steps == ["followup/0", "followup/0/try/2"]
    assert result.summary["followup"]["retried"] == {"questions": 1, "adequate": 1.0}
    assert "1 follow-ups were asked again after an inadequate reply" in (result.folder / "report.md").read_text()
