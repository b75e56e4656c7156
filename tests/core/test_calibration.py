"""Calibration metrics on hand-computed cases, and on synthetic predictors calibrated by construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from senso.core.calibration import (
    binary_distribution, brier_score, calibration_metrics, expected_calibration_error, item_brier, item_log_loss,
    label_reliability, log_loss, one_hot, reliability_bins,
)
from senso.core.stats import UndefinedMetric

# Two items, three labels. Item 0: P = (0.7, 0.2, 0.1), gold 0; item 1: P = (0.2, 0.5, 0.3), gold 2.
PROBS = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3]]
GOLD = [0, 2]


def test_brier_by_hand():
    # item 0: 0.3^2 + 0.2^2 + 0.1^2 = 0.14; item 1: 0.2^2 + 0.5^2 + 0.7^2 = 0.78; mean 0.46
    assert item_brier(PROBS, GOLD) == pytest.approx([0.14, 0.78])
    assert brier_score(PROBS, GOLD) == pytest.approx(0.46)


def test_log_loss_by_hand():
    assert item_log_loss(PROBS, GOLD) == pytest.approx([-math.log(0.7), -math.log(0.3)])
    assert log_loss(PROBS, GOLD) == pytest.approx((-math.log(0.7) - math.log(0.3)) / 2)
    assert log_loss([[0.25] * 4], [3]) == pytest.approx(math.log(4))  # uniform: ln K


def test_log_loss_clips_a_zero():
    assert log_loss([[1.0, 0.0]], [1]) == pytest.approx(-math.log(1e-15))


def test_ece_by_hand():
    # the six (item, label) pairs with 10 bins: 0.7 -> bin 7 (hit), 0.2, 0.2 -> bin 2 (miss, miss),
    # 0.1 -> bin 1 (miss), 0.5 -> bin 5 (miss), 0.3 -> bin 3 (hit).
    # ECE = (1/6) * (|0.7 - 1| + 2 * |0.2 - 0| + |0.1 - 0| + |0.5 - 0| + |0.3 - 1|) = (0.3+0.4+0.1+0.5+0.7)/6 = 1/3
    assert expected_calibration_error(PROBS, GOLD) == pytest.approx(2.0 / 6)
    bins = label_reliability(PROBS, GOLD)
    assert [b.n for b in bins] == [0, 1, 2, 1, 0, 1, 0, 1, 0, 0]
    assert bins[2].confidence == pytest.approx(0.2) and bins[2].frequency == 0.0
    assert bins[3].frequency == 1.0


def test_ece_two_bins_by_hand():
    # 2 bins: [0, .5) holds 0.2, 0.1, 0.2, 0.3 (one hit: 0.3): |0.2 - 0.25| = 0.05, weight 4/6;
    # [.5, 1] holds 0.7 (hit), 0.5 (miss): |0.6 - 0.5| = 0.1, weight 2/6. ECE = 0.2/6 + 0.2/6 = 0.4/6
    assert expected_calibration_error(PROBS, GOLD, n_bins=2) == pytest.approx(0.4 / 6)


def test_a_certain_right_predictor_is_perfect():
    probs = one_hot([0, 1, 2], 3)
    assert expected_calibration_error(probs, [0, 1, 2]) == 0.0
    assert brier_score(probs, [0, 1, 2]) == 0.0
    assert log_loss(probs, [0, 1, 2]) == pytest.approx(0.0, abs=1e-12)
    assert brier_score(probs, [1, 2, 0]) == pytest.approx(2.0)  # certain and wrong: the maximum


def test_binary_distribution_and_binary_ece():
    probs = binary_distribution([0.8, 0.8, 0.8, 0.8, 0.8])
    assert probs == pytest.approx(np.array([[0.2, 0.8]] * 5))
    # four of five positives at P = 0.8: calibrated in both columns
    assert expected_calibration_error(probs, [1, 1, 1, 1, 0]) == pytest.approx(0.0, abs=1e-12)
    assert brier_score(probs, [1]*5) == pytest.approx(2 * 0.2 ** 2)


def test_last_bin_is_closed():
    bins = reliability_bins([1.0, 0.0, 0.95], [1, 0, 1], n_bins=10)
    assert bins[9].n == 2 and bins[0].n == 1


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="probability distribution"):
        brier_score([[0.5, 0.6]], [0])
    with pytest.raises(ValueError, match="indices"):
        brier_score([[0.5, 0.5]], [2])
    with pytest.raises(ValueError, match="shapes"):
        brier_score([0.5, 0.5], [0])
    with pytest.raises(UndefinedMetric):
        brier_score(np.zeros((0, 2)), [])


def _synthetic(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Distributions from a Dirichlet, gold drawn from each distribution: calibrated by construction."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(k), size=n)
    gold = np.array([rng.choice(k, p=row) for row in probs])
    return probs, gold


def test_a_calibrated_predictor_scores_ece_near_zero_and_a_shuffled_one_does_not():
    probs, gold = _synthetic(20000, 5, seed=1)
    calibrated = expected_calibration_error(probs, gold)
    shuffled = expected_calibration_error(probs, np.random.default_rng(2).permutation(gold))
    assert calibrated < 0.01
    assert shuffled > 0.1
    assert brier_score(probs, gold) < brier_score(probs, np.random.default_rng(2).permutation(gold))


def test_calibration_metrics_have_bootstrap_intervals():
    probs, gold = _synthetic(300, 5, seed=3)
    metrics = calibration_metrics(probs, gold, n_resamples=200)
    assert set(metrics) == {"ece", "brier", "log_loss"}
    for name in ("brier", "log_loss"):  # means: the value lies inside its interval
        assert metrics[name].ci_low <= metrics[name].value <= metrics[name].ci_high
    assert 0 <= metrics["ece"].ci_low < metrics["ece"].ci_high  # a binned ECE's resamples are biased upwards
    assert metrics["brier"].value == pytest.approx(brier_score(probs, gold))


def test_paired_calibration_differences_by_hand():
    from senso.core.calibration import paired_calibration_differences

    gold = [0, 1, 1, 0, 1, 0]
    perfect = one_hot(gold, 2)
    uniform = np.full((6, 2), 0.5)
    diff = paired_calibration_differences(perfect, uniform, gold, n_resamples=200)
    assert diff["brier"].difference == pytest.approx(0.0 - 0.5)
    assert diff["log_loss"].difference == pytest.approx(0.0 - math.log(2), abs=1e-9)
    assert diff["ece"].difference == pytest.approx(0.0)  # both calibrated: certain-and-right, and 50% at 0.5
    assert diff["brier"].p_value == pytest.approx(2 / 64)  # exact: only the two all-same swap patterns reach |d|
    assert diff["brier"].ci_low == pytest.approx(-0.5) and diff["brier"].ci_high == pytest.approx(-0.5)
    swapped = paired_calibration_differences(uniform, perfect, gold, n_resamples=200)
    assert swapped["brier"].difference == pytest.approx(0.5)


def test_ece_of_resamples_matches_the_binned_definition():
    probs, gold = _synthetic(50, 3, seed=4)
    bins = label_reliability(probs, gold)
    by_bins = sum(b.n / (50 * 3) * abs(b.confidence - b.frequency) for b in bins if b.n)
    assert expected_calibration_error(probs, gold) == pytest.approx(by_bins)
