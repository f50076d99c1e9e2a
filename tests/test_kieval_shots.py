"""KIEval's first answer with solved examples (the paper's 5-shot benchmark accuracy; zhuohaoyu/KIEval@0543f69
config/template-basic.json `fewshot_num: 5`): drawn from the benchmark's other items, seen only by that call."""
import json

import pytest

from judgeagent.errors import JudgeAgentError
from judgeagent.models.testing import FunctionModel
from judgeagent.protocols import run_protocol
from tests.test_kieval import bench, evaluator, gold_of, interactor, thing_of

ASK = "Put your final answer alone on the first line"


def learner(messages):
    """Right on the first answer only after solved examples; any later turn is a plain reply."""
    last = messages[-1]["content"]
    if ASK in last:
        examples = sum(m["role"] == "assistant" for m in messages)
        return f"{gold_of(last) if examples else 'Paris'}\nIt is well known."
    return f"Strong reply about the {thing_of(messages[1]['content'])} festival."


def _run(tmp_path, name, **options):
    cand = FunctionModel(learner, "cand")
    ms = {"candidate": cand, "interactor": FunctionModel(interactor, "int"),
          "evaluator": FunctionModel(evaluator(), "eval")}
    config = {"rounds": 1, "judge_policy": "off", **options}
    return run_protocol("kieval", bench(), models=ms, config=config, run_dir=tmp_path / name, cache=False), cand


def test_the_first_answer_sees_solved_examples_of_other_items_and_the_dialogue_does_not(tmp_path):
    zero, _ = _run(tmp_path, "zero")
    four, cand = _run(tmp_path, "four", shots=4)
    assert zero.summary["benchmark_accuracy"] == 0.0 and four.summary["benchmark_accuracy"] == 1.0
    answers = [c for c in cand.calls if ASK in c[-1]["content"]]
    assert len(answers) == 3  # the verified items (two of five are dropped by verification)
    for call in answers:
        asked = call[-1]["content"]
        shown = [m["content"] for m in call[1:-1:2]]
        assert len(shown) == 4 and all(m["role"] == "user" for m in call[1:-1:2])
        assert asked not in shown  # never the item itself
        assert [m["content"] for m in call[2:-1:2]] == [gold_of(q) for q in shown]  # each with its gold
    later = [c for c in cand.calls if ASK not in c[-1]["content"]]
    assert later and all(sum(m["role"] == "assistant" for m in c) == 1 for c in later)  # the dialogue: no examples
    record = next(json.loads(x) for x in (four.folder / "records.jsonl").read_text().splitlines()
                  if json.loads(x)["meta"].get("stage") == "answer")
    assert len(record["meta"]["shots"]) == 4


def test_more_shots_than_other_items_is_refused_in_one_line(tmp_path):
    with pytest.raises(JudgeAgentError, match="shots=5 draws its examples from the benchmark's other items"):
        _run(tmp_path, "five", shots=5)
    assert not (tmp_path / "five").exists()
