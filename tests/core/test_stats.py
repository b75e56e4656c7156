import math

import pytest

import numpy as np

from senso.core.stats import (Estimate, UndefinedMetric, bootstrap_estimate, exact_rowwise_pearson, mean, pearson,
                             rowwise_mean, rowwise_spearman, spearman)
from senso.likert.scoring import accuracy, rowwise_accuracy


def test_pearson_hand_computed():
    # x = 1,2,3 ; y = 1,3,2: cov = (−1·−1 + 0 + 1·0)/.. -> r = 1 / sqrt(2·2) = 0.5
    assert pearson([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert pearson([1, 2, 3, 4], [2, 4, 6, 8]) == pytest.approx(1.0)


def test_spearman_with_ties():
    # ranks x: 1, 2.5, 2.5, 4 ; y: 1,2,3,4 -> r = 4.5 / sqrt(4.5 * 5) = 0.9487
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))


def test_constant_series_undefined():
    with pytest.raises(UndefinedMetric, match="predictions are constant"):
        pearson([1, 1, 1], [1, 2, 3], names=("predictions", "gold"))
    with pytest.raises(UndefinedMetric):
        mean([])


def test_bootstrap_undefined_carries_reason():
    est = bootstrap_estimate(pearson, [1, 1, 1, 1], [1, 2, 3, 4])
    assert est.value is None and "constant" in est.reason
    assert est.to_json() == {"value": None, "reason": est.reason}
    assert est.format().startswith("undefined")


def test_bootstrap_interval_contains_value_and_is_seeded():
    x = list(range(30))
    y = [v + (v % 7) for v in x]
    a = bootstrap_estimate(pearson, x, y, seed=1)
    b = bootstrap_estimate(pearson, x, y, seed=1)
    assert a == b
    assert a.ci_low <= a.value <= a.ci_high
    est = bootstrap_estimate(mean, [0.0, 1.0] * 10)
    assert est.value == 0.5 and 0.2 < est.ci_low < 0.5 < est.ci_high < 0.8
    assert isinstance(est, Estimate)


@pytest.mark.parametrize("n", [2, 5, 9, 17, 127, 129])
def test_rowwise_bootstrap_gives_the_same_interval_to_the_last_bit(n):
    """The same resamples and the same floats as one statistic call per resample: labels with ties (constant
    resamples skipped), continuous values; a number of resamples that is not a whole number of blocks."""
    rng = np.random.default_rng(n)
    labels, gold = rng.integers(1, 4, n).astype(float), rng.integers(1, 6, n).astype(float)
    expected = gold + rng.normal(size=n) * 2.3
    for statistic, rowwise, columns in ((pearson, exact_rowwise_pearson, (labels, gold)),
                                        (pearson, exact_rowwise_pearson, (expected, gold)),
                                        (accuracy, rowwise_accuracy, (labels, gold)), (mean, rowwise_mean, (expected,))):
        for n_resamples in (1, 150, 1000):
            one_call_each = lambda *c: statistic(*c)  # noqa: E731  (not in ROWWISE: one call per resample)
            one_by_one = bootstrap_estimate(one_call_each, *columns, n_resamples=n_resamples, seed=3)
            assert bootstrap_estimate(statistic, *columns, n_resamples=n_resamples, seed=3, rowwise=rowwise) == one_by_one


def test_pearson_and_mean_bring_their_rowwise_twins(monkeypatch):
    """bootstrap_estimate finds the block path of `pearson` (also inside a partial) and `mean` by itself."""
    import functools

    from senso.core import stats

    calls = []
    monkeypatch.setattr(stats, "_resampled_one_by_one", lambda *a: calls.append(a) or np.array([0.5]))
    x, y = np.arange(12.0), np.arange(12.0) % 5
    plain = bootstrap_estimate(pearson, x, y, n_resamples=300, seed=1)
    named = bootstrap_estimate(functools.partial(pearson, names=("p", "q")), x, y, n_resamples=300, seed=1)
    averaged = bootstrap_estimate(mean, y, n_resamples=300, seed=1)
    assert calls == [] and plain == named and averaged.ci_low < averaged.value < averaged.ci_high
    assert plain == bootstrap_estimate(pearson, x, y, n_resamples=300, seed=1, rowwise=exact_rowwise_pearson)
    bootstrap_estimate(spearman, x, y, n_resamples=3, seed=1)
    assert len(calls) == 1


@pytest.mark.parametrize("n", [2, 5, 17, 129, 3000])
def test_spearman_bootstrap_on_codes_gives_the_rank_path_to_the_last_bit(n, monkeypatch):
    """Ranks counted from value codes are rankdata's average ranks: the same interval as ranking every resample
    (ties, continuous values, constant resamples skipped); a NaN keeps the values' path."""
    from senso.core import stats

    rng = np.random.default_rng(n)
    ties, gold = rng.integers(1, 4, n).astype(float), rng.integers(1, 9, n) / 2.0
    continuous = gold + rng.normal(size=n) * 2.3
    cases = [(ties, gold), (continuous, gold), (continuous, -continuous)]
    coded = [bootstrap_estimate(spearman, *c, n_resamples=250, seed=5, rowwise=rowwise_spearman) for c in cases]
    monkeypatch.setattr(stats, "CODED", {})
    ranked = [bootstrap_estimate(spearman, *c, n_resamples=250, seed=5, rowwise=rowwise_spearman) for c in cases]
    assert coded == ranked
    codes = rng.integers(0, 7, size=(4, n))
    assert np.array_equal(stats._average_ranks(codes, 7), stats._scipy_stats().rankdata(codes, axis=1))


def test_spearman_bootstrap_with_a_nan_ranks_the_values(monkeypatch):
    from senso.core import stats

    monkeypatch.setattr(stats, "_average_ranks", lambda *a: pytest.fail("a NaN must not take the codes' path"))
    columns = [np.array([1.0, np.nan, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 5.0])]
    values = stats._resampled_rowwise(rowwise_spearman, columns, 50, np.random.default_rng(0))
    assert values.size < 50  # the resamples holding the NaN are undefined, as rankdata makes them
