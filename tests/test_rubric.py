"""Aspect scores and the decay-weighted dialogue score (KIEval), and evaluator agreement: arithmetic
checked against hand-computed cases and against independent implementations (scikit-learn)."""
import math

import pytest
from sklearn.metrics import cohen_kappa_score

from judgeagent.protocols.kieval.agreement import agreement, cohen_kappa
from judgeagent.protocols.kieval.rubric import ASPECTS, decay_weights, dialogue_score, parse_evaluation


def evaluation(score=3, overall=3, stop=False, reason="none"):
    return {**{a: {"comment": f"{a} ok", "score": score} for a in ASPECTS}, "overall_comment": "fine",
            "overall_score": overall, "stop_conversation": stop, "stop_reason": reason}


def test_decay_weights_by_hand():
    assert decay_weights(1) == [math.exp(-1)]
    assert decay_weights(2) == pytest.approx([math.exp(-0.5), math.exp(-1)])


def test_all_strong_is_one_and_all_poor_is_zero():
    assert dialogue_score([4, 4, 4, 4, 4], 5, "linear") == pytest.approx(1.0)
    assert dialogue_score([1, 1, 1, 1, 1], 5, "linear") == pytest.approx(0.0)


def test_a_hand_computed_dialogue():
    # two rounds, scores 4 then 2: weights e^-0.5, e^-1; normalised 1.0 and 1/3
    w1, w2 = math.exp(-0.5), math.exp(-1)
    assert dialogue_score([4, 2], 2, "linear") == pytest.approx((w1 * 1.0 + w2 / 3) / (w1 + w2))


def test_an_early_stop_after_turn_one_scores_the_missing_rounds_as_poorest():
    w = decay_weights(5)
    assert dialogue_score([4], 5, "linear") == pytest.approx(w[0] / sum(w))
    assert dialogue_score([4], 5, "linear") < dialogue_score([4, 4], 5, "linear") < 1.0


def test_a_failed_evaluation_counts_as_poorest_not_as_a_score():
    assert dialogue_score([4, None], 2, "linear") == dialogue_score([4, 1], 2, "linear")


def test_parse_evaluation_refuses_out_of_range_and_missing_scores():
    ok, why = parse_evaluation(evaluation(4, 4, stop=True, reason="off_topic"))
    assert why == "" and ok.scores()["accuracy"] == 4 and ok.stop_reason == "off_topic"
    bad, why = parse_evaluation(evaluation(5))
    assert bad is None and "accuracy.score" in why
    bad, why = parse_evaluation({"accuracy": {"score": 3}})
    assert bad is None and why
    bad, why = parse_evaluation("not json")
    assert bad is None and why
    bad, why = parse_evaluation(evaluation(3, 3, stop=True, reason="bored"))
    assert bad is None and "stop_reason" in why


def test_agreement_matches_independent_implementations():
    first = [4, 3, 3, 2, 1, 4, 2, 3, 1, 4]
    second = [4, 3, 2, 2, 1, 3, 2, 4, 1, 4]
    out = agreement(first, second)
    assert out["n"] == 10 and out["exact_agreement"] == pytest.approx(0.7)
    assert out["kappa"] == pytest.approx(cohen_kappa_score(first, second))
    assert out["kappa_quadratic"] == pytest.approx(cohen_kappa_score(first, second, weights="quadratic"))
    assert 0.8 < out["pearson"]["r"] < 1 and out["spearman"]["r"] > 0.8 and out["kendall"]["r"] > 0.7


def test_agreement_is_undefined_not_zero_for_constant_scores():
    out = agreement([3, 3, 3], [3, 4, 2])
    assert out["pearson"]["r"] is None and out["kappa"] == pytest.approx(0.0)
    assert cohen_kappa([], []) is None and cohen_kappa([2, 2], [2, 2]) is None
    with pytest.raises(ValueError, match="differ in length"):
        agreement([1, 2], [1])
