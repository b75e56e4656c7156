"""AdMIRe metrics: the official Top-1 and DCG by hand, the analytic random baseline, the parity-only
name correlation, NDCG@k and the sentence-type macro-F1, the per-group estimates, and the paired permutation
test."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from senso.admire.metrics import (
    admire_dcg,
    admire_expected_random_dcg,
    admire_top1,
    METRICS,
    grouped_estimates,
    macro_f1,
    ndcg_at,
    official_name_corr,
)
from senso.core.stats import UndefinedMetric, paired_permutation_test

GOLD = ["a.png", "b.png", "c.png", "d.png", "e.png"]


def test_perfect_and_worst_dcg_match_the_reference_values():
    assert admire_dcg(GOLD, GOLD) == pytest.approx(3 + 1 / math.log2(3))
    assert round(admire_dcg(GOLD, GOLD), 4) == 3.6309
    worst = ["e.png", "d.png", "c.png", "b.png", "a.png"]  # gold first last, gold second fourth
    assert admire_dcg(worst, GOLD) == pytest.approx(3 / math.log2(6) + 1 / math.log2(5))
    assert round(admire_dcg(worst, GOLD), 4) == 1.5912


@pytest.mark.parametrize(
    "predicted, expected",
    [
        (["b.png", "a.png", "c.png", "d.png", "e.png"], 3 / math.log2(3) + 1 / math.log2(2)),  # first two swapped
        (["c.png", "d.png", "a.png", "e.png", "b.png"], 3 / math.log2(4) + 1 / math.log2(6)),  # gold1 at 2, gold2 at 4
        (["a.png", "c.png", "d.png", "b.png", "e.png"], 3 / math.log2(2) + 1 / math.log2(5)),  # only positions 0 and 3 count
        (["a.png", "b.png", "e.png", "d.png", "c.png"], 3 + 1 / math.log2(3)),  # the last three do not matter
    ],
)
def test_dcg_by_hand(predicted, expected):
    assert admire_dcg(predicted, GOLD) == pytest.approx(expected, abs=1e-12)


def test_top1():
    assert admire_top1(GOLD, GOLD) == 1.0
    assert admire_top1(["b.png", "a.png", "c.png", "d.png", "e.png"], GOLD) == 0.0


@pytest.mark.parametrize("bad", [GOLD[:4], GOLD[:4] + ["x.png"], GOLD[:4] + ["a.png"]])
def test_metrics_refuse_a_prediction_that_is_not_a_permutation(bad):
    with pytest.raises(ValueError, match="not a permutation"):
        admire_dcg(bad, GOLD)
    with pytest.raises(ValueError, match="not a permutation"):
        admire_top1(bad, GOLD)


def test_expected_random_dcg_is_exact_and_matches_enumeration():
    assert round(admire_expected_random_dcg(), 4) == 2.3588
    assert METRICS["top1"].random_baseline == 0.2 and METRICS["dcg"].random_baseline == admire_expected_random_dcg()
    perms = list(itertools.permutations(GOLD))
    mean_dcg = sum(admire_dcg(p, GOLD) for p in perms) / len(perms)
    mean_top1 = sum(admire_top1(p, GOLD) for p in perms) / len(perms)
    assert admire_expected_random_dcg() == pytest.approx(mean_dcg, abs=1e-12)
    assert mean_top1 == pytest.approx(0.2)


def test_official_name_corr_is_about_names_not_ranking_quality():
    assert official_name_corr(GOLD, GOLD) == pytest.approx(1.0)
    # alphabetical ranks of this gold list are [4, 1, 2, 3, 5]; reversing it leaves rho = 1 - 6*10/120 = 0.5
    gold = ["d.png", "a.png", "b.png", "c.png", "e.png"]
    reversed_ = gold[::-1]
    assert official_name_corr(reversed_, gold) == pytest.approx(0.5)
    assert admire_dcg(reversed_, gold) == pytest.approx(admire_dcg(GOLD[::-1], GOLD))  # the worst DCG all the same


def test_paired_permutation_exact_by_hand():
    result = paired_permutation_test([1, 1, 1], [0, 0, 0])
    assert result.p_value == pytest.approx(2 / 8)  # only all-plus and all-minus reach |mean| = 1
    assert result.difference == 1.0 and result.mean_a == 1.0 and result.mean_b == 0.0
    assert "exact" in result.method
    # two non-zero differences of +1 among four items: 4 sign assignments, 2 reach |mean| 0.5
    assert paired_permutation_test([1, 0, 1, 0], [0, 0, 0, 0]).p_value == pytest.approx(0.5)
    assert paired_permutation_test([0.3, 0.2], [0.3, 0.2]).p_value == 1.0


def test_paired_permutation_monte_carlo_for_many_items():
    result = paired_permutation_test([1.0] * 30, [0.0] * 30, n_resamples=2000, seed=3)
    assert "Monte Carlo" in result.method
    assert result.p_value < 0.01
    assert result.ci_low == result.ci_high == 1.0
    again = paired_permutation_test([1.0] * 30, [0.0] * 30, n_resamples=2000, seed=3)
    assert again == result


def test_paired_permutation_refuses_bad_input():
    with pytest.raises(ValueError):
        paired_permutation_test([1, 2], [1])
    with pytest.raises(UndefinedMetric):
        paired_permutation_test([], [])


def test_ndcg_and_macro_f1():
    gold = ["a", "b", "c", "d", "e"]
    assert ndcg_at(gold, gold, (3, 1, 0, 0, 0), 5) == 1.0
    assert ndcg_at(["b", "a", "c", "d", "e"], gold, (3, 1, 0, 0, 0), 1) == pytest.approx(1 / 3)
    assert ndcg_at(["c", "d", "a", "b", "e"], gold, (3, 1, 0, 0, 0), 2) == 0.0
    assert macro_f1(np.array([1.0, 1.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0])) == pytest.approx((2 / 3 + 0.8) / 2)


def test_grouped_estimates_leave_macro_f1_undefined_within_a_gold_type():
    rows = [{"top1": 1.0, "sentence_type": "idiomatic", "predicted_sentence_type": "idiomatic"},
            {"top1": 0.0, "sentence_type": "idiomatic", "predicted_sentence_type": "literal"},
            {"top1": 1.0, "sentence_type": "literal", "predicted_sentence_type": "literal"}]
    overall, by_group = grouped_estimates(rows, ["sentence_type_macro_f1", "top1"])
    assert list(overall) == ["sentence_type_macro_f1", "top1"]
    assert overall["sentence_type_macro_f1"].value == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert list(by_group) == ["idiomatic", "literal"] and list(by_group["idiomatic"]) == ["top1", "sentence_type_macro_f1"]
    assert by_group["idiomatic"]["top1"].value == 0.5 and by_group["literal"]["top1"].value == 1.0
    assert by_group["literal"]["sentence_type_macro_f1"].value is None
    assert "one gold sentence type" in by_group["literal"]["sentence_type_macro_f1"].reason
