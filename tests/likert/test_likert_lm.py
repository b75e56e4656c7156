import math

import pytest

from senso.likert.systems.likert_lm import argmax_choice, expected_score, prediction_from_logprobs


def test_argmax_ties_go_to_lower_choice():
    assert argmax_choice([-1.0, -0.5, -0.5, -3.0, -9.0]) == 2
    assert argmax_choice([-2.0] * 5) == 1


def test_expected_score_renormalises():
    assert expected_score([math.log(0.5), math.log(0.5), -math.inf, -math.inf, -math.inf]) == pytest.approx(1.5)
    # unnormalised log-probs: same answer after renormalisation
    assert expected_score([math.log(0.1)] * 5) == pytest.approx(3.0)


def test_prediction_checks_length():
    with pytest.raises(ValueError, match="ITEM: expected 5"):
        prediction_from_logprobs("ITEM", [0.0, 1.0])
