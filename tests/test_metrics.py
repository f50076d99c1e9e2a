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


def test_every_rate_is_reported_under_its_name():
    """The whole dict, so a renamed or dropped key fails (readers take them by name)."""
    pairs = [(True, True)] * 4 + [(False, True)] * 3 + [(True, False)] + [(False, False)] * 2
    assert rates(pairs) == {
        "n": 10, "right_before": 5, "right_after": 7, "wrong_to_right": 3, "right_to_wrong": 1,
        "acc1": 0.5, "acc2": 0.7, "cr": 0.3, "cte": 0.1, "delta": 0.2,
        "cr_given_wrong": 0.6, "cte_given_right": 0.2, "mcnemar_p": pytest.approx(0.625)}


def test_bootstrap_percentiles_by_hand():
    """The interval is the 2.5th and 97.5th percentiles of the statistic over `resamples` resamples (2000 by
    default, seed 0), recomputed here from the same draws; a 50% level narrows it."""
    import numpy as np

    # Many questions, so that the percentiles fall between resampled values (another seed, count or level moves them)
    pairs = [(False, True)] * 271 + [(True, True)] * 389 + [(True, False)] * 97 + [(False, False)] * 243
    arr = np.array(pairs, dtype=bool)
    idx = np.random.default_rng(0).integers(0, len(arr), size=(2000, len(arr)))
    a, b = arr[idx, 0], arr[idx, 1]
    delta = (~a & b).mean(1) - (a & ~b).mean(1)
    ci = bootstrap(pairs)

    def interval(values):
        return pytest.approx((float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))), rel=1e-12)

    assert ci["delta"] == interval(delta) and ci["acc1"] == interval(a.mean(1))
    assert ci["acc2"] == interval(b.mean(1)) and ci["cr"] == interval((~a & b).mean(1))
    assert ci["cte"] == interval((a & ~b).mean(1))
    narrow = bootstrap(pairs, level=0.5)["delta"]
    assert ci["delta"][0] < narrow[0] <= narrow[1] < ci["delta"][1]


def test_mean_interval_at_its_edges_and_convergence_at_its_bounds():
    from judgeagent.metrics import converged, mean_interval

    assert mean_interval([5.0]) == {"n": 1, "mean": 5.0, "half_width": None, "interval": None}
    assert mean_interval([]) == {"n": 0, "mean": None, "half_width": None, "interval": None}
    two = mean_interval([1.0, 3.0])  # sd 1.414..., n 2: the first case with an interval
    half = 1.96 * 2 ** 0.5 / 2 ** 0.5
    assert two["n"] == 2 and two["half_width"] == pytest.approx(half) and two["interval"] == pytest.approx(
        [2.0 - half, 2.0 + half])
    assert mean_interval([1.0, 3.0], z=1.0)["half_width"] == pytest.approx(1.0)
    values = [1.0, 3.0, 2.0]  # half-width 1.96 * 1 / sqrt(3) = 1.1316
    width = mean_interval(values)["half_width"]
    assert converged({"a": values}, width + 1e-9) is True and converged({"a": values}, width) is False
    assert converged({"a": values}, 10.0, min_runs=3) is True and converged({"a": values}, 10.0, min_runs=4) is False
    assert converged({}, 0.5) is False


def test_an_empty_run_has_no_interval_for_any_rate():
    assert bootstrap([]) == {"acc1": None, "acc2": None, "cr": None, "cte": None, "delta": None}


@pytest.mark.parametrize("k, n", [(98, 105), (0, 10), (10, 10), (3, 7)])
def test_the_wilson_interval_is_scipys(k, n):
    # an independent implementation (scipy's, with z = 1.95996 where ours takes 1.96): the bounds to 1e-4, and
    # clipped to [0, 1] at k = 0 and k = n
    from scipy.stats import binomtest

    from judgeagent.metrics import wilson

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson(k, n)
    assert low == pytest.approx(ci.low, abs=1e-4) and high == pytest.approx(ci.high, abs=1e-4)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert wilson(0, 0) == []
