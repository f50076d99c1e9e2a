"""Validation metrics against hand-computed cases."""
import pytest

from judgeagent.metrics import bootstrap, breakdown, mcnemar_exact, rates


def test_hand_computed_case_and_the_identity():
    # 10 questions: 4 right->right, 3 wrong->right, 1 right->wrong, 2 wrong->wrong
    pairs = [(True, True)] * 4 + [(False, True)] * 3 + [(True, False)] + [(False, False)] * 2
    r = rates(pairs)
    assert (r["acc1"], r["acc2"], r["cr"], r["cte"]) == (0.5, 0.7, 0.3, 0.1)
    assert r["acc2"] - r["acc1"] == pytest.approx(r["cr"] - r["cte"]) == pytest.approx(r["delta"])
    assert r["cr_given_wrong"] == 3 / 5 and r["cte_given_right"] == 1 / 5
    assert r["mcnemar_p"] == pytest.approx(0.625)  # b=3, c=1: 2 * (1 + 4) / 16


def test_empty_and_all_correct():
    empty = rates([])
    assert empty["n"] == 0 and empty["acc1"] is None and empty["cr_given_wrong"] is None
    assert empty["mcnemar_p"] == 1.0 and bootstrap([])["cr"] is None
    perfect = rates([(True, True)] * 5)
    assert (perfect["acc1"], perfect["acc2"], perfect["cr"], perfect["cte"]) == (1.0, 1.0, 0.0, 0.0)
    assert perfect["cr_given_wrong"] is None and perfect["cte_given_right"] == 0.0
    assert bootstrap([(True, True)] * 5)["acc2"] == (1.0, 1.0)


def test_mcnemar_exact_values():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(1, 7) == mcnemar_exact(7, 1) == pytest.approx(2 * 9 / 256)


def test_bootstrap_intervals_hold_the_estimate_and_are_seeded():
    pairs = [(False, True)] * 20 + [(True, True)] * 60 + [(True, False)] * 5 + [(False, False)] * 15
    ci = bootstrap(pairs, seed=1)
    r = rates(pairs)
    for k in ("acc1", "acc2", "cr", "cte", "delta"):
        lo, hi = ci[k]
        assert lo <= r[k] <= hi and hi - lo < 0.3
    assert bootstrap(pairs, seed=1) == ci


def test_breakdown_by_key():
    rows = [{"before": False, "after": True, "difficulty": "easy"}, {"before": True, "after": True, "difficulty": "easy"},
            {"before": True, "after": False, "difficulty": None}]
    b = breakdown(rows, "difficulty")
    assert set(b) == {"easy", "unlabelled"} and b["easy"]["cr"] == 0.5 and b["unlabelled"]["cte"] == 1.0


def test_mean_interval_and_the_convergence_rule():
    import random

    from judgeagent.metrics import converged, mean_interval

    out = mean_interval([1.0, 2.0, 3.0])
    assert out["mean"] == 2.0 and out["half_width"] == pytest.approx(1.96 * 1.0 / 3 ** 0.5)
    assert mean_interval([5.0])["half_width"] is None and mean_interval([])["mean"] is None
    # players of known mean payoff and noise: the estimate converges, within its interval, in a seeded
    # number of repetitions that follows from the noise (half-width ~ 1.96 sd / sqrt(n) < epsilon)
    rng = random.Random(7)
    truth, sd, epsilon = {"seat-1": 10.0, "seat-2": 12.0}, 1.0, 0.5
    scores = {k: [] for k in truth}
    while not converged(scores, epsilon):
        for k, mu in truth.items():
            scores[k].append(rng.gauss(mu, sd))
    runs = len(scores["seat-1"])
    assert 8 <= runs <= 30  # (1.96 / 0.5)^2 = 15.4 expected
    for k, mu in truth.items():
        lo, hi = mean_interval(scores[k])["interval"]
        assert lo - epsilon <= mu <= hi + epsilon
    assert not converged({}, 0.5) and not converged({"a": [1.0, 1.0]}, 0.5)  # below min_runs
