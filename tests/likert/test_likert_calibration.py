"""Calibration of Likert runs: the label distribution of likert-lm (softmax of the choices' log-probs) and of a
researcher's distribution-answering system; a point-answering system says why it has none."""

from __future__ import annotations

import math

import pytest

import senso
from likert_fakes import ConstantModel
from senso.likert.scoring import label_distribution
from senso.likert.task import LikertPrediction


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))


def test_label_distribution_is_the_softmax_of_the_logprobs():
    probs = label_distribution(LikertPrediction("x", 1, 1.0, [0.0, math.log(3.0)]))
    assert probs == pytest.approx([0.25, 0.75])
    assert label_distribution(LikertPrediction("x", 1, 1.0, None, {"distribution": [0.5, 0.5]})) == [0.5, 0.5]
    assert label_distribution(LikertPrediction("x", 1, 1.0)) is None


def test_likert_lm_run_reports_calibration_by_hand(data_dir):
    # The constant model gives every item log-probs (-1, -3, -3, -3, -3): P(1) = 1 / (1 + 4 e^-2), the others
    # q = e^-2 / (1 + 4 e^-2). Abstractness gold: 7 of the 127 items are label 1.
    run = senso.evaluate("abricot-abs", model=ConstantModel(), data_dir=data_dir)
    calibration = run.results["calibration"]
    p = 1 / (1 + 4 * math.exp(-2))
    q = (1 - p) / 4
    n, n1 = 127, 7
    # ECE: the 127 pairs at p (label 1; 7 hits) in one bin, the 508 pairs at q (120 hits) in another
    ece = (n / (5 * n)) * abs(p - n1 / n) + (4 * n / (5 * n)) * abs(q - (n - n1) / (4 * n))
    brier = (n1 * ((1 - p) ** 2 + 4 * q ** 2) + (n - n1) * (p ** 2 + (1 - q) ** 2 + 3 * q ** 2)) / n
    log_loss = -(n1 * math.log(p) + (n - n1) * math.log(q)) / n
    metrics = calibration["metrics"]
    assert metrics["ece"]["value"] == pytest.approx(ece)
    assert metrics["brier"]["value"] == pytest.approx(brier)
    assert metrics["log_loss"]["value"] == pytest.approx(log_loss)
    assert metrics["ece"]["ci_low"] is not None and calibration["n"] == 127
    assert set(calibration["by_group"]) == {"opensub", "wikihow"}
    bins = calibration["reliability"]["bins"]
    assert sum(b["n"] for b in bins) == 5 * 127 and bins[0]["n"] == 4 * 127  # q < 0.1 lands in the first bin


class Distribution:
    """Answers the gold label's own distribution (one-hot on the gold label, a little mass elsewhere)."""

    name = "near-gold"

    def predict(self, items, task):
        out = []
        for item in items:
            gold = task.labels.index(task.gold_label(item.gold))
            out.append([0.96 if k == gold else 0.01 for k in range(len(task.labels))])
        return out


class Point:
    name = "point"

    def predict(self, items, task):
        return [0.5 for _ in items]


def test_user_distributions_are_calibrated_and_points_say_why_not(data_dir):
    near_gold = senso.evaluate("abricot-abs", system=Distribution(), data_dir=data_dir).results["calibration"]
    assert near_gold["metrics"]["log_loss"]["value"] == pytest.approx(-math.log(0.96))
    assert near_gold["metrics"]["ece"]["value"] < 0.05
    point = senso.evaluate("abricot-abs", system=Point(), data_dir=data_dir).results["calibration"]
    assert "metrics" not in point and "not a distribution" in point["reason"]
