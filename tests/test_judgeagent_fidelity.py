"""JudgeAgent as the paper reports it and the authors' code (DataArcTech/JudgeAgent@2b1b921) runs it.

- Algorithm 2's rates recompute the paper's Table 1 from its own counts: every rate there is over N_total, so
  ACC2 = ACC1 + CR - CtE; MultiHop-RAG's rows are counts over its 2556 queries, each MedQA row counts over the
  fewest questions that fit it, and our `metrics.rates` gives back each published figure to the printed 0.01.
- Validation after every extension round (the authors' `--eval_all_rounds`, evaluate_target.py).
- Unlabelled questions score 1.5 as in the authors' `DifficultyController` (judge_agent.py), 1 as the paper's text.
"""
import json

import pytest

from judgeagent import EvalConfig
from judgeagent.benchmark import load_benchmark
from judgeagent.metrics import rates
from judgeagent.protocols.judgeagent.scoring import points, tier_of
from judgeagent.protocols.judgeagent.validate import render_validation, validate
from tests.test_validate import Helpful, make_run

# The paper's Table 1 (seed paper /work/shared/seeds/judgeagent.txt): target -> (ACC1, ACC2, CR, CtE), in %.
TABLE1_MEDQA = {"Qwen3": (91.71, 96.38, 5.02, 0.35), "GLM4-Flash": (80.09, 92.82, 13.46, 0.73),
                "GPT-4.1": (84.97, 92.44, 7.65, 0.18), "Gemini-2.5-pro": (91.04, 94.60, 4.03, 0.47)}
TABLE1_MULTIHOPRAG = {"Qwen3": (63.65, 70.07, 17.49, 11.07), "GLM4-Flash": (51.25, 65.92, 24.26, 9.59),
                      "GPT-4.1": (68.94, 75.55, 12.36, 5.75), "Gemini-2.5-pro": (62.25, 71.83, 15.41, 5.83)}
MULTIHOPRAG_QUERIES = 2556


def _pairs(n, acc1, cr, cte):
    """Before/after pairs with the counts a table row implies: right->right, right->wrong, wrong->right, rest."""
    right, fixed, broken = (round(x * n / 100) for x in (acc1, cr, cte))
    return ([(True, True)] * (right - broken) + [(True, False)] * broken + [(False, True)] * fixed
            + [(False, False)] * (n - right - fixed))


@pytest.mark.parametrize("target", list(TABLE1_MULTIHOPRAG))
def test_table1_multihoprag_rows_come_back_from_their_counts(target):
    acc1, acc2, cr, cte = TABLE1_MULTIHOPRAG[target]
    r = rates(_pairs(MULTIHOPRAG_QUERIES, acc1, cr, cte))
    assert [round(100 * r[k], 2) for k in ("acc1", "acc2", "cr", "cte")] == [acc1, acc2, cr, cte]


# The fewest MedQA questions whose counts give back each published row to the printed 0.01 (found by search; the
# rows fit no single count, so each model's run had its own N, or dropped items).
MEDQA_QUESTIONS = {"Qwen3": 856, "GLM4-Flash": 1783, "GPT-4.1": 1098, "Gemini-2.5-pro": 1686}


@pytest.mark.parametrize("target", list(TABLE1_MEDQA))
def test_table1_medqa_rows_come_back_from_their_counts_with_rates_over_the_total(target):
    """The paper's Table 1, MedQA rows (seed paper, Section 4.2): the counts a row implies at its N go through
    `metrics.rates` and give back ACC1, ACC2, CR and CtE as printed; CR over the initially wrong (the conditional
    reading) does not give the printed CR. Seen to fail with `"cr": share(fixed, n - right1)` in metrics.rates
    (CR over the initially wrong), and with `"acc2": share(right2 + broken, n)`."""
    acc1, acc2, cr, cte = TABLE1_MEDQA[target]
    r = rates(_pairs(MEDQA_QUESTIONS[target], acc1, cr, cte))
    assert [round(100 * r[k], 2) for k in ("acc1", "acc2", "cr", "cte")] == [acc1, acc2, cr, cte]
    assert round(100 * r["cr_given_wrong"], 2) != cr


def test_unlabelled_questions_score_as_the_authors_code_or_as_the_paper_says():
    assert points(True, None) == 1.5 and points(True, None, unlabelled_points=1.0) == 1.0
    assert points(True, "hard", unlabelled_points=1.0) == 2.0 and points(False, "hard", 0.2) == -0.2
    # all five unlabelled base questions right: hard with the code's 1.5, medium with the text's +1
    assert tier_of(5 * points(True, None), 5) == "hard"
    assert tier_of(5 * points(True, None, unlabelled_points=1.0), 5) == "medium"
    assert EvalConfig(unlabelled_points="1").unlabelled_points == 1.0


class Extended(Helpful):
    """The interviewer names the key facts only once it has seen extension questions; the target is helped by
    suggestions that name them (on the questions Helpful is helped on)."""

    def _feedback(self, prompt):
        reply = json.loads(super()._feedback(prompt))
        if "(extension," not in prompt:
            reply["suggestions"] = "Read the question carefully."
        return json.dumps(reply)

    def target(self, request):
        prompt = request["messages"][-1]["content"]
        if "left these suggestions" in prompt and "key facts" not in prompt:
            request = {**request, "messages": [*request["messages"][:-1], {
                **request["messages"][-1], "content": prompt.split("\n\nAn interviewer who reviewed")[0]}]}
        return super().target(request)


def test_validation_after_every_round_as_the_authors_eval_all_rounds(tmp_path, mhr_slice_graph, monkeypatch):
    monkeypatch.setattr("tests.test_validate.Helpful", Extended)
    roles, result = make_run(tmp_path, mhr_slice_graph, config=EvalConfig(rounds=2))
    try:
        v = validate(result.folder, registry=roles.registry(), cache=False, all_rounds=True)
    finally:
        roles.__exit__(None, None, None)
    rounds = v["by_round"]
    assert [r["round"] for r in rounds] == [0, 1, 2] and all(r["n"] == 10 for r in rounds)
    assert rounds[-1] == {"round": 2, "feedback_failed": 0, **v["overall"]}  # the last is the run's own feedback
    assert rounds[0]["wrong_to_right"] == 0  # from the base questions alone the feedback names no key facts
    assert rounds[1]["wrong_to_right"] > 0 and rounds[1]["acc1"] == rounds[0]["acc1"] == v["overall"]["acc1"]
    assert "after round 0: n 10" in render_validation(v)


def test_the_authors_setting_batches_by_three_and_keeps_the_grading_tier(tmp_path, mhr_slice_graph):
    """`setting=authors`: batches of 3 (evaluate_target.py `--bs 3`) and every extension round at the tier after
    grading (judge_agent.py `stage_interactive_extension` reads `current_difficulty` once, before the rounds). A
    target right on the base questions (hard after grading) and wrong on every extension question: ours (the
    paper's Algorithm 1) re-tiers to medium by round 3, the authors' stays hard. Seen to fail with the authors'
    tier read as `state.trajectory[-1]` (round 3 medium), and without the batch size of 3 (one batch of 6).
    The default setting's records are checked against the code before it in tests/test_protocols.py."""
    from judgeagent.config import CheckerConfig
    from tests.scripted import Roles, Script
    from tests.test_evaluate import MHR, records, run

    base = {i.question for i in load_benchmark(MHR, limit=6).items}
    found = {}
    for setting, extra in (("authors", {}), ("ours", {"batch_size": 3})):
        config = EvalConfig(setting=setting, rounds=3, checker=CheckerConfig(judge_policy="off"), **extra)
        with Roles(Script(target_right=base)) as roles:
            found[setting] = records(run(roles, tmp_path, mhr_slice_graph, config, name=setting, limit=6).folder)
    authors = found["authors"]
    assert sorted((r["batch"], r["stage"]) for r in authors if r["stage"] == "grading") == \
        [(0, "grading")] * 3 + [(1, "grading")] * 3
    tiers = {s: [r["difficulty"] for r in sorted(recs, key=lambda r: r["round"])
                 if r["stage"] == "extension" and r["batch"] == 0] for s, recs in found.items()}
    assert tiers == {"authors": ["hard", "hard", "hard"], "ours": ["hard", "hard", "medium"]}
    # MultiHop-RAG has no options: free-text extension questions under either setting (the authors' QTYPE.KQA)
    assert all(r["options"] is None and r["gold_letter"] is None for r in authors if r["stage"] == "extension")
