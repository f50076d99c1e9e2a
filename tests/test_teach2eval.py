"""The Teach2Eval protocol: lessons with scripted teachers and students (FunctionModel), the abilities they
give against hand-computed values, resume after a kill, the leakage guard, bad input in one line, free-text
items made multiple choice from a real graph, and one run with the embedded model as teacher and student."""
import json
import re
from pathlib import Path

import pytest

from judgeagent.benchmark import Benchmark, Item
from judgeagent.errors import JudgeAgentError
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import PROTOCOLS, run_protocol
from judgeagent.protocols.teach2eval.prompts import parse_judgment
from tests.conftest import DATA
from tests.scripted import kill_then_resume

# qid: (question, options, gold letter, the scripted student's first letter)
ITEMS = {
    "red": ("Which planet is known as the red planet?", ["Venus", "Mars", "Jupiter", "Saturn"], "B", "B"),
    "capital": ("What is the capital of France?", ["Berlin", "Madrid", "Paris", "Rome"], "C", "A"),
    "ocean": ("What is the largest ocean on Earth?", ["Atlantic", "Pacific", "Indian", "Arctic"], "B", "C"),
    "peak": ("Which is the highest mountain in Africa?", ["Kilimanjaro", "Kenya", "Elgon", "Meru"], "A", "D"),
}
GOLD_TEXT = {k: opts["ABCD".index(g)] for k, (_, opts, g, _) in ITEMS.items()}


def bench(keys=ITEMS):
    return Benchmark(Path("scripted.jsonl"), [
        Item(k, q, opts["ABCD".index(g)], options=dict(zip("ABCD", opts)), gold_letter=g)
        for k, (q, opts, g, _) in ITEMS.items() if k in keys])


def _question(messages):
    text = " ".join(m["content"] for m in messages)
    return next(k for k, (q, *_ ) in ITEMS.items() if q in text)


def student(messages, always_right=False, silent=False):
    """Right from the start on `red`; takes the gold once guidance says "hint", except on `peak` (hopeless)."""
    if silent:
        return "I am not sure what to say."
    key = _question(messages)
    gold = ITEMS[key][2]
    user = messages[-1]["content"]
    if always_right:
        return f"It must be this one.\nAnswer: {gold}"
    if "Your teacher's guidance" not in user:
        return f"I think so.\nAnswer: {ITEMS[key][3]}"
    previous = re.findall(r"Answer: ([A-D])", user.split("Your teacher's guidance", 1)[0])[-1]
    guidance = user.split("Your teacher's guidance:", 1)[1]
    letter = gold if "hint" in guidance.lower() and key != "peak" else previous
    return f"Following the guidance.\nAnswer: {letter}"


class Teacher:
    """Knows every gold but `peak`'s; judges the latest solution right; hints at once on `capital`, and on
    any item from its second turn (it reflects); `leak` states the answer, `mute` never judges."""

    def __init__(self, leak=False, mute=False):
        self.leak, self.mute = leak, mute

    def __call__(self, messages):
        key = _question(messages)
        if not messages[0]["content"].startswith("You are a teacher"):  # its own test (AA)
            letter = ITEMS[key][2] if key != "peak" else "B"
            return f"Answer: {letter}"
        if self.mute:
            return "Hmm, let us see."
        chosen = re.findall(r"Answer chosen: (.+)", messages[-1]["content"])[-1].strip()
        right = chosen == GOLD_TEXT[key]
        second = any(m["role"] == "assistant" for m in messages)
        guidance = "Re-read the question." if not (key == "capital" or second) else "A hint: recall the facts."
        if self.leak:
            guidance += f" The answer is {GOLD_TEXT[key]}."
        return f"Correctness of the latest solution: {'Correct' if right else 'Wrong'}\nGuidance: {guidance}"


def models(teacher=None, students=(student,)):
    out = {"teacher": FunctionModel(teacher or Teacher(), "teacher")}
    out.update({f"students.{i}": FunctionModel(s, f"student{i}") for i, s in enumerate(students, 1)})
    return out


def rows(folder):
    return {r["qid"]: r for r in map(json.loads, (folder / "episodes.jsonl").read_text().splitlines())}


def records(folder):
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


OPTS = {"turns": 2, "resamples": 200, "scoring": "geometric", "reflection": False}  # figures below: geometric, and
# the prompts of the layout reference (tests/make_layout_reference.py), written before the reflection prompt


def test_a_lesson_end_to_end_gives_the_hand_computed_abilities(tmp_path):
    right = lambda m: student(m, always_right=True)
    ms = models(students=(student, right))
    result = run_protocol("teach2eval", bench(), models=ms, config=OPTS, run_dir=tmp_path / "run", cache=False)
    by_item = rows(result.folder)
    lesson = {k: r["lessons"][0] for k, r in by_item.items()}
    assert lesson["red"]["correct"] == [True, True, True] and lesson["capital"]["correct"] == [False, True, True]
    assert lesson["ocean"]["correct"] == [False, False, True] and lesson["peak"]["correct"] == [False, False, False]
    assert lesson["capital"]["judgments"] == [False, True] and lesson["red"]["judgments"] == [True, True]
    s = result.summary
    one, two = s["per_student"]["students.1"], s["per_student"]["students.2"]
    assert one["accuracy_by_turn"] == [0.25, 0.5, 0.75] and two["accuracy_by_turn"] == [1.0, 1.0, 1.0]
    assert one["abilities"]["GA"]["value"] == pytest.approx(1 / 3)  # of 3 wrong at first, 1 right after turn 1
    assert one["abilities"]["RA"]["value"] == pytest.approx(1.5)  # accuracy 2/4 -> 3/4 in turn 2
    assert one["abilities"]["CA"]["value"] == pytest.approx(0.5) and two["abilities"]["CA"]["value"] == 0.0
    assert two["abilities"]["GA"]["value"] is None and two["abilities"]["RA"]["value"] == 1.0
    a = s["abilities"]
    assert a["AA"]["value"] == 0.75 and a["JA"]["value"] == 1.0  # the teacher does not know `peak`
    assert a["CA"]["value"] == pytest.approx(0.25) and a["RA"]["value"] == pytest.approx(1.25)
    assert a["GA"]["value"] == pytest.approx(1 / 3) and s["baseline"] == pytest.approx(0.625)
    lo, hi = a["AA"]["interval"]
    assert lo <= 0.75 <= hi
    assert s["judgments"] == {"right": {"judged_right": 5, "judged_wrong": 0, "no_judgment": 0},
                              "wrong": {"judged_right": 0, "judged_wrong": 3, "no_judgment": 0}}
    assert s["leaks"] == 0 and s["no_letter"] == 0 and s["unparsed_judgments"] == 0
    # the teacher never sees the options and sees its whole history; the student sees the latest guidance
    teacher_calls = [c for c in ms["teacher"].calls if c[0]["content"].startswith("You are a teacher")]
    assert teacher_calls and all("Options:" not in m["content"] for c in teacher_calls for m in c)
    assert max(sum(m["role"] == "assistant" for m in c) for c in teacher_calls) == 1  # turn 2 shows turn 1
    report = (result.folder / "report.md").read_text()
    for heading in ("Teaching abilities", "Student accuracy by turn", "The teacher's judgments", "Lessons"):
        assert f"## {heading}" in report
    assert "| students.1 (student1) | 25.0 | 50.0 | 75.0 |" in report
    assert report.count("*Student, turn 0*") == 2 and "wrong -> right -> right" in report  # a repaired lesson


def test_the_leakage_guard_redacts_and_counts_a_teacher_who_states_the_answer(tmp_path):
    ms = models(teacher=Teacher(leak=True))
    result = run_protocol("teach2eval", bench(), models=ms, config=OPTS, run_dir=tmp_path / "run", cache=False)
    s = result.summary
    assert s["leaks"] == 8 and s["leaks_after_wrong"] == 5  # every guidance; 5 followed a wrong answer
    given = [c[-1]["content"].split("Your teacher's guidance:", 1)[1] for c in ms["students.1"].calls
             if "Your teacher's guidance" in c[-1]["content"]]
    assert len(given) == 8 and all("[withheld]" in g for g in given)
    assert not any(gold in g for g in given for gold in GOLD_TEXT.values())
    teacher_records = [r for r in records(result.folder) if r["meta"].get("stage") == "teacher"]
    assert all(r["meta"]["leaked"] for r in teacher_records) and "The answer is Paris" in \
        next(r["reply"] for r in teacher_records if "capital" in r["episode"])
    assert "(redacted before the student saw it): 8" in (result.folder / "report.md").read_text()


def test_the_authors_can_tell_answer_setting_lets_the_answer_through_and_counts_it(tmp_path):
    """tell_answer=true (the authors' main.sh: can_tell_answer="True"): no instruction to withhold the answer, and
    the teacher's statement of it reaches the student as written; the leaks are still counted."""
    ms = models(teacher=Teacher(leak=True))
    result = run_protocol("teach2eval", bench(), models=ms, config={**OPTS, "tell_answer": True},
                          run_dir=tmp_path / "run", cache=False)
    s = result.summary
    assert s["leaks"] == 8 and s["tell_answer"] is True
    given = [c[-1]["content"].split("Your teacher's guidance:", 1)[1] for c in ms["students.1"].calls
             if "Your teacher's guidance" in c[-1]["content"]]
    assert len(given) == 8 and not any("[withheld]" in g for g in given) and any("The answer is Paris" in g
                                                                                  for g in given)
    systems = {c[0]["content"] for c in ms["teacher"].calls if c[0]["content"].startswith("You are a teacher")}
    assert len(systems) == 1 and "you may state the answer" in systems.pop()
    assert "(given to the student as written: tell_answer=true" in (result.folder / "report.md").read_text()
    assert "tell_answer" not in run_protocol("teach2eval", bench(), models=models(), config=OPTS,
                                             run_dir=tmp_path / "default", cache=False).summary


def test_resume_after_a_kill_repeats_no_finished_call(tmp_path):
    def go(m, folder):
        return run_protocol("teach2eval", bench(), models=m, config=OPTS, run_dir=folder, cache=False)

    k = kill_then_resume(tmp_path, go, models, "students.1", 7)
    assert k.killed >= 1 and k.repeated == 0  # killed calls never finished: only they are made again
    assert k.resumed.summary["abilities"] == json.loads((tmp_path / "clean" / "summary.json").read_text())["abilities"]


def test_a_student_that_never_names_a_letter_and_a_teacher_that_never_judges(tmp_path):
    silent = lambda m: student(m, silent=True)
    result = run_protocol("teach2eval", bench(), models=models(teacher=Teacher(mute=True), students=(silent,)),
                          config={**OPTS, "turns": 1}, run_dir=tmp_path / "run", cache=False)
    s = result.summary
    assert s["no_letter"] == 8 and s["per_student"]["students.1"]["accuracy_by_turn"] == [0.0, 0.0]
    assert s["unparsed_judgments"] == 4 and s["abilities"]["JA"]["value"] == 0.0  # silence is a wrong judgment
    assert s["judgments"]["wrong"] == {"judged_right": 0, "judged_wrong": 0, "no_judgment": 4}
    shown = [r["prompt"] for r in records(result.folder) if r["meta"].get("stage") == "teacher"]
    assert all("Answer chosen: (the student named no option)" in p for p in shown)
    given = [r["meta"]["guidance"] for r in records(result.folder) if r["meta"].get("stage") == "teacher"]
    assert given == ["Hmm, let us see."] * 4  # unparsable, but still what the student is given


@pytest.mark.parametrize("reply, judged", [
    ("Correctness of the latest solution: Wrong\nGuidance: check the year", False),
    ("Correctness of the latest solution: **Correct**", True),
    ("Correctness: not correct. Look again.", False),
    ("Correctness of the latest solution: [Correct/Wrong]\nGuidance: ...", None),
    ("Wrong. The second step is off.", False),
    ("The student's first solution is correct.", True),
    ("I see the problem: the answer is not right, since the river is longer.", False),
    ("Let me think about the river first.", None),
    ("", None),
])
def test_the_teachers_judgment_is_read_or_left_unread(reply, judged):
    assert parse_judgment(reply) is judged


def test_items_whose_gold_is_not_among_the_options_are_refused(tmp_path):
    lost = Item("lost", "Which city?", "Lyon", options={"A": "Paris", "B": "Nice"})
    with pytest.raises(JudgeAgentError, match="item 'lost': its gold 'Lyon' is not among its options \\(A, B\\)"):
        run_protocol("teach2eval", Benchmark(Path("b.jsonl"), [lost]), models=models(), run_dir=tmp_path / "run")
    twice = Item("twice", "Which city?", "Paris", options={"A": "Paris", "B": "paris"}, gold_letter="A")
    with pytest.raises(JudgeAgentError, match="two of its options read the same"):
        run_protocol("teach2eval", Benchmark(Path("b.jsonl"), [twice]), models=models(), run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def _cli(argv, capsys):
    from judgeagent.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("record, extra, message", [
    ({"qid": "1", "question": "Who?", "answer": "Ann"}, [], ("has 1 free-text items and teach2eval asks "
     "multiple-choice questions: give --graph")),
    ({"qid": "1", "question": "Who?", "answer": "Ann", "options": ["Bob", "Cy"]}, [],
     "its gold 'Ann' is not among its options (A, B)"),
    ({"qid": "1", "question": "Who?", "answer": "Bob", "options": ["Bob", "Cy"]}, ["-o", "turns=0"],
     "option turns of protocol teach2eval"),
    ({"qid": "1", "question": "Who?", "answer": "Bob", "options": ["Bob", "Cy"]}, ["--role", "student=local"],
     "protocol teach2eval has no role student"),
])
def test_bad_input_through_the_cli_is_one_line(tmp_path, capsys, record, extra, message):
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, _, err = _cli(["evaluate", "--protocol", "teach2eval", "--target", "nobody:model", "--benchmark", str(path),
                         "--run-dir", str(tmp_path / "run"), "-q", *extra], capsys)
    assert code == 1 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_the_teacher_is_the_target_and_students_default_to_the_embedded_model(capsys):
    protocol = PROTOCOLS["teach2eval"]
    assert protocol.resolve_roles({"target": "big"}) == {"teacher": "big", "students.1": "local"}
    assert protocol.resolve_roles({"target": "big", "students": "local,other"}) == \
        {"teacher": "big", "students.1": "local", "students.2": "other"}
    assert protocol.resolve_roles({"teacher": "t", "students": ["s"]}) == {"teacher": "t", "students.1": "s"}
    # models given seat by seat (as from Python) are kept, not replaced by the default
    assert protocol.resolve_roles({"teacher": "t", "students.2": "b", "students.1": "a"}) == \
        {"teacher": "t", "students.1": "a", "students.2": "b"}
    with pytest.raises(JudgeAgentError, match="needs a model for its teacher role"):
        protocol.resolve_roles({"students": "local"})
    code, out, _ = _cli(["protocols"], capsys)
    assert code == 0 and "students: weak models taught over T turns (one or more models, comma-separated)" \
        " (default: local)" in " ".join(out.split())


def test_free_text_items_are_taught_as_multiple_choice_from_the_graph(mhr_slice_graph, tmp_path):
    """MultiHop-RAG small with a graph of its articles (the slice): free-text items get graph-built options, checked, recorded."""
    from judgeagent.benchmark import load_benchmark

    free = load_benchmark(DATA / "multihop_rag" / "small.questions.jsonl", limit=6)

    def any_student(messages):
        return "Answer: A"

    def any_teacher(messages):
        if not messages[0]["content"].startswith("You are a teacher"):
            return "Answer: B"
        return "Correctness of the latest solution: Wrong\nGuidance: compare the sources again."

    ms = {"teacher": FunctionModel(any_teacher, "t"), "students.1": FunctionModel(any_student, "s")}
    result = run_protocol("teach2eval", free, mhr_slice_graph, models=ms, config={"turns": 1, "resamples": 100},
                          run_dir=tmp_path / "run", cache=False)
    manifest = json.loads((result.folder / "manifest.json").read_text())
    conversion = manifest["mcq"]
    assert conversion["items"] == 6 and conversion["taught"] == result.summary["items"] >= 4
    assert sum(conversion["options_from"].values()) == conversion["taught"]
    assert sum(conversion["skipped"].values()) == 6 - conversion["taught"]
    by_qid = {i.qid: i for i in free.items}
    for row in rows(result.folder).values():
        options, letter = row["options"], row["gold_letter"]
        assert options[letter] == by_qid[row["qid"]].gold.strip() and len(set(options.values())) == len(options)
        assert len(options) == (2 if row["options_from"] == "yes_no" else 4)
    # seeded: the same seed builds the same options (the run is found finished, not run again), another does not
    from judgeagent.protocols.teach2eval.config import Teach2EvalConfig
    from judgeagent.protocols.teach2eval.items import as_choice

    other = as_choice(free, mhr_slice_graph, Teach2EvalConfig(seed=1)).items
    assert {i.qid: i.options for i in other} != {q: r["options"] for q, r in rows(result.folder).items()}
    again = run_protocol("teach2eval", free, mhr_slice_graph, models=ms, config={"turns": 1, "resamples": 100},
                         run_dir=tmp_path / "run", cache=False)
    assert again.resumed and not again.usage


def test_the_embedded_model_teaches_itself(tmp_path, capsys):
    """SmolLM2-135M as teacher and (default) student on 4 multiple-choice items, one turn, short replies."""
    path = tmp_path / "mcq.jsonl"
    path.write_text("".join(json.dumps({"qid": k, "question": q, "options": opts, "answer_letter": g}) + "\n"
                            for k, (q, opts, g, _) in ITEMS.items()))
    code, out, err = _cli(["evaluate", "--protocol", "teach2eval", "--target", "local", "--benchmark", str(path),
                           "-o", "turns=1", "-o", "max_tokens=48", "--run-dir", str(tmp_path / "run"), "--no-cache", "-q"],
                          capsys)
    assert code == 0, err
    assert "items 4, students 1, turns 1" in out and "CA " in out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["teacher_turns"] == 4 and summary["answers"] == 8
    assert set(summary["per_student"]) == {"students.1"} and summary["per_student"]["students.1"]["model"] == "local"
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["models"]["students.1"]["name"] == "local" and manifest["models"]["teacher"]["name"] == "local"
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Teaching abilities" in report and "| Comprehensive (CA) |" in report and "## Lessons" in report
    assert len(records(tmp_path / "run")) == 4 + 4 * 3


def test_a_make_mcq_file_is_taught_as_it_is_and_keeps_where_its_options_came_from(tmp_path):
    from judgeagent.benchmark import load_benchmark
    from judgeagent.grading.mcq import to_record

    made = [Item(i.qid, i.question, i.gold, options=i.options, gold_letter=i.gold_letter,
                 meta={"options_from": "graph"}) for i in bench().items]
    path = tmp_path / "mcq.jsonl"
    path.write_text("".join(json.dumps(to_record(i)) + "\n" for i in made))
    result = run_protocol("teach2eval", load_benchmark(path), models=models(), config=OPTS, run_dir=tmp_path / "run",
                          cache=False)
    manifest = json.loads((result.folder / "manifest.json").read_text())
    assert manifest["mcq"]["options_from"] == {"graph": 4} and result.summary["options_from"] == {"graph": 4}
    assert manifest["mcq"]["taught"] == manifest["mcq"]["items"] == 4 and not manifest["mcq"]["skipped"]
