import numpy as np
import pytest

from senso.core.stats import (
    paired_statistic_difference, pearson, rowwise_mean, rowwise_pearson, rowwise_spearman, spearman,
)


def test_rowwise_statistics_match_the_scalar_ones():
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, size=(4, 20)).astype(float)
    y = rng.random((4, 20))
    for k in range(4):
        assert rowwise_pearson(x, y)[k] == pytest.approx(pearson(x[k], y[k]))
        assert rowwise_spearman(x, y)[k] == pytest.approx(spearman(x[k], y[k]))
    assert rowwise_mean(np.array([[1, 0, 0, 1]]))[0] == 0.5
    # a constant row has no r
    assert np.isnan(rowwise_pearson(np.array([[2, 2, 2]]), np.array([[1, 2, 3]]))[0])


def test_exact_permutation_hand_computed():
    # gold 1,2,3; A = 1,2,3 (r=1); B = 3,2,1 (r=-1): d = 2.
    # Swapping item 1 changes nothing (both 2). Swapping item 0 alone gives A=3,2,3 and B=1,2,1,
    # both r=0 (symmetric about the middle), d'=0; same for item 2 alone; swapping 0 and 2 gives d'=-2.
    # |d'| >= 2 for 4 of the 8 patterns -> p = 0.5.
    result = paired_statistic_difference(rowwise_pearson, [1, 2, 3], [3, 2, 1], [1, 2, 3])
    assert result.value_a == pytest.approx(1.0) and result.value_b == pytest.approx(-1.0)
    assert result.difference == pytest.approx(2.0)
    assert result.p_value == pytest.approx(0.5)
    assert "exact" in result.method and "2^3" in result.method


def test_identical_systems_have_p_one():
    gold = [1, 2, 3, 4, 5, 1, 2]
    pred = [1, 3, 3, 4, 4, 2, 2]
    result = paired_statistic_difference(rowwise_pearson, pred, pred, gold)
    assert result.difference == 0.0 and result.p_value == 1.0
    assert result.ci_low == 0.0 and result.ci_high == 0.0


def test_undefined_statistic_gives_reason_not_crash():
    result = paired_statistic_difference(rowwise_pearson, [1, 1, 1, 1], [1, 2, 3, 4], [1, 2, 3, 4])
    assert result.difference is None and result.p_value is None and result.value_a is None
    assert "undefined for A" in result.reason and "constant" in result.reason
    result = paired_statistic_difference(rowwise_pearson, [1, 2, 3, 4], [2, 2, 2, 2], [1, 2, 3, 4])
    assert result.value_a == pytest.approx(1.0) and "undefined for B" in result.reason


def test_monte_carlo_is_seeded_and_separates_clear_difference():
    rng = np.random.default_rng(5)
    gold = rng.integers(1, 6, size=60)
    good = np.clip(gold + rng.integers(-1, 2, size=60), 1, 5)
    bad = rng.integers(1, 6, size=60)
    first = paired_statistic_difference(rowwise_pearson, good, bad, gold, n_resamples=500, seed=3)
    again = paired_statistic_difference(rowwise_pearson, good, bad, gold, n_resamples=500, seed=3)
    assert first == again
    assert first.difference == pytest.approx(pearson(good, gold) - pearson(bad, gold))
    assert first.ci_low <= first.difference <= first.ci_high and first.ci_low > 0
    # no random swap pattern reaches the observed gap: p = (1 + 0) / (1 + 500)
    assert first.p_value == pytest.approx(1 / 501)
    assert "500 random swap patterns" in first.method


def test_mean_statistic_without_shared_columns():
    # with a mean this is the paired sign-flip test: differences 1, 1, 0 -> d = 2/3;
    # swapping items 0/1 gives d' in {2/3, 0, 0, -2/3} (item 2 irrelevant) -> p = 4/8
    result = paired_statistic_difference(rowwise_mean, [1, 1, 0], [0, 0, 0])
    assert result.difference == pytest.approx(2 / 3) and result.p_value == pytest.approx(0.5)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="equal length"):
        paired_statistic_difference(rowwise_pearson, [1, 2, 3], [1, 2], [1, 2, 3])


@pytest.mark.parametrize("n", [13, 40])
def test_a_paired_difference_drawn_in_blocks_is_the_one_drawn_at_once(n, monkeypatch):
    """Permutations and bootstrap resamples drawn block by block (memory bounded at any number of items) are the
    draws of one call: the same p-value and interval to the last bit."""
    from senso.core import stats

    rng = np.random.default_rng(n)
    gold = rng.integers(1, 5, n).astype(float)
    a, b = gold + rng.normal(size=n), gold + rng.normal(size=n) * 2
    cases = [(stats.rowwise_spearman, a, b, gold), (stats.rowwise_pearson, a, b, gold), (stats.rowwise_mean, a, b)]
    monkeypatch.setattr(stats, "RESAMPLE_BLOCK", 10**9)
    at_once = [stats.paired_statistic_difference(f, *c, n_resamples=250, seed=2) for f, *c in cases]
    monkeypatch.setattr(stats, "RESAMPLE_BLOCK", 7)
    assert [stats.paired_statistic_difference(f, *c, n_resamples=250, seed=2) for f, *c in cases] == at_once
