"""Teach2Eval as the paper and the authors' code (zhiqix/Teach2Eval@292dc02) run it: the reflection prompt
from the second guidance turn (code/teach2eval/prompt_teacher.py), the transcript history
(code/teach2eval/dialogue_teacher.py with utils/function.py `format_conversation`), and items with several
correct options (utils/check_answer.py: right when `set(answer) == set(label)`), on the authors' own jecQA file."""
import re

import pytest

from judgeagent.benchmark import ItemFields, load_benchmark
from judgeagent.grading.choice import check_choice
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from judgeagent.protocols.teach2eval.prompts import REFLECT
from tests.conftest import DATA
from tests.test_teach2eval import GOLD_TEXT, ITEMS, _question, bench, rows, student

JECQA = DATA / "papers" / "teach2eval" / "Teach2Eval" / "dataset" / "dataset_test" / "knowledge" / "domain" / "law" / \
    "jecQA.json"


class Reflector:
    """Hints only when asked to reflect on its previous guidance; thinks aloud in <think> tags."""

    def __call__(self, messages):
        key = _question(messages)
        if not messages[0]["content"].startswith("You are a teacher"):
            return f"Answer: {ITEMS[key][2]}"
        chosen = re.findall(r"Answer chosen: (.+)", messages[-1]["content"])[-1].strip()
        verdict = "Correct" if chosen == GOLD_TEXT[key] else "Wrong"
        guide = "A hint: recall the facts." if REFLECT in messages[-1]["content"] else "Re-read the question."
        return f"<think>private musing {len(messages)}</think>\nCorrectness of the latest solution: {verdict}\n" \
               f"Guidance: {guide}"


def _run(tmp_path, name, **options):
    ms = {"teacher": FunctionModel(Reflector(), "teacher"), "students.1": FunctionModel(student, "student1")}
    config = {"turns": 3, "resamples": 100, **options}
    return run_protocol("teach2eval", bench(["capital", "ocean"]), models=ms, config=config, run_dir=tmp_path / name,
                        cache=False), ms["teacher"]


def test_the_teacher_is_asked_to_reflect_from_its_second_turn_and_sees_a_transcript_on_request(tmp_path):
    plain, _ = _run(tmp_path, "plain", reflection=False)
    reflecting, _ = _run(tmp_path, "reflect", history="transcript")
    # without the reflection prompt this teacher never hints: both students stay wrong; asked to reflect at
    # turn 2 it hints and `capital`'s and `ocean`'s students are right from turn 2 on
    assert plain.summary["per_student"]["students.1"]["accuracy_by_turn"] == [0.0, 0.0, 0.0, 0.0]
    assert reflecting.summary["per_student"]["students.1"]["accuracy_by_turn"] == [0.0, 0.0, 1.0, 1.0]
    assert reflecting.summary["abilities"]["RA"]["value"] is None  # accuracy 0 at turn 1: no ratio to multiply
    prompts = {r["turn"]: r["prompt"] for r in map(__import__("json").loads,
               (reflecting.folder / "records.jsonl").read_text().splitlines())
               if r["role"] == "teacher" and r["episode"].endswith("ocean")}
    assert REFLECT not in prompts[1] and REFLECT in prompts[2] and REFLECT in prompts[3]
    # the transcript holds the question once, every solution and the teacher's guidance without its reasoning
    assert prompts[3].count("Question:") == 1 and prompts[3].count("The student's") == 3
    assert "Your guidance 2:\nCorrectness of the latest solution: Wrong" in prompts[3]
    assert "private musing" not in prompts[3] and "Options:" not in prompts[3]


def test_several_correct_options_are_read_as_the_authors_code_reads_them():
    items = load_benchmark(JECQA, ItemFields(qid="index", answer_letter="label")).items
    several = [i for i in items if len(i.gold_letter) > 1]
    assert len(items) == 231 and len(several) == 117  # the authors' file: 117 of 231 items have several answers
    item = items[0]
    assert item.gold_letter == "CD"  # its label ["C", "D"]
    for reply, right in [("Both hold.\nThe answer is C, D.", True), ("The answer is D, C.", True),
                         ("Answer: C", False), ("Answer: A, C, D", False), ("Thinking...\nC and D", True)]:
        assert check_choice(reply, item).correct is right, reply
    assert check_choice("I cannot tell.", item).method == "no_letter"


def test_a_lesson_on_a_several_answer_item_scores_the_set_of_letters(tmp_path):
    item = load_benchmark(JECQA, ItemFields(qid="index", answer_letter="label"), limit=1)
    said = {"n": 0}

    def learner(messages):
        said["n"] += 1
        assert "One or more options are correct" in messages[-1]["content"]
        return "Answer: C" if "guidance" not in messages[-1]["content"] else "Answer: C, D"

    def teacher(messages):
        if not messages[0]["content"].startswith("You are a teacher"):
            return "Answer: C, D"
        assert "Options:" not in messages[-1]["content"] and "Answer chosen: C. " in messages[-1]["content"]
        return "Correctness of the latest solution: Wrong\nGuidance: consider the mentally ill agent and the gift."

    result = run_protocol("teach2eval", item, models={"teacher": FunctionModel(teacher, "t"),
                                                      "students.1": FunctionModel(learner, "s")},
                          config={"turns": 2, "resamples": 100}, run_dir=tmp_path / "run", cache=False)
    lesson = next(iter(rows(result.folder).values()))["lessons"][0]
    assert lesson["correct"] == [False, True, True] and lesson["judgments"] == [False, False]
    a = result.summary["abilities"]
    assert a["AA"]["value"] == 1.0 and a["GA"]["value"] == 1.0 and a["CA"]["value"] == pytest.approx(1.0)
    assert said["n"] == 3
