"""Calibration of P(idiomatic): admire-sense and Subtask B's sense, by hand."""

from __future__ import annotations

import math

import pytest

import senso
from senso.admire.scoring import sense_calibration
from senso.admire.systems.base import SequenceChoice

pytestmark = pytest.mark.real_data


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "senso-cache"))


def test_sense_calibration_by_hand():
    # P(idiomatic) = 0.8 on four items, three idiomatic: calibrated; Brier (two labels) 2 * mean (p - y)^2
    calibration = sense_calibration([0.8] * 4, ["idiomatic"] * 3 + ["literal"], seed=0)
    assert calibration["metrics"]["ece"]["value"] == pytest.approx(0.05)
    assert calibration["metrics"]["brier"]["value"] == pytest.approx(2 * (3 * 0.2 ** 2 + 0.8 ** 2) / 4)
    assert calibration["metrics"]["log_loss"]["value"] == pytest.approx(-(3 * math.log(0.8) + math.log(0.2)) / 4)
    assert set(calibration["by_group"]) == {"idiomatic", "literal"}
    assert sum(b["n"] for b in calibration["reliability"]["bins"]) == 4
    assert sense_calibration([0.5, None], ["idiomatic", "literal"]) is None
    assert sense_calibration([0.5], [None]) is None


def test_admire_sense_run_reports_calibration(data_dir):
    class Seventy:
        def classify(self, items):
            return [0.7 for _ in items]

    run = senso.evaluate("admire-sense", system=Seventy(), split="dev", data_dir=data_dir)
    metrics = run.results["calibration"]["metrics"]
    # dev: 7 idiomatic of 15; P(idiomatic) 0.7 everywhere: |0.7 - 7/15| in both columns
    assert metrics["ece"]["value"] == pytest.approx(0.7 - 7 / 15)
    assert metrics["brier"]["value"] == pytest.approx((7 * 2 * 0.3 ** 2 + 8 * 2 * 0.7 ** 2) / 15)
    assert metrics["log_loss"]["value"] == pytest.approx(-(7 * math.log(0.7) + 8 * math.log(0.3)) / 15)


def test_subtask_b_sense_is_calibrated_when_the_chooser_gives_p_idiomatic(data_dir):
    class Half:
        def choose(self, items):
            return [SequenceChoice(item.candidates[0].name, "literal", extra={"p_idiomatic": 0.5}) for item in items]

    class NoProbability:
        def choose(self, items):
            return [(item.candidates[0].name, "literal") for item in items]

    half = senso.evaluate("admire-b", system=Half(), split="train", data_dir=data_dir).results["calibration"]
    assert half["metrics"]["log_loss"]["value"] == pytest.approx(math.log(2))
    assert half["metrics"]["brier"]["value"] == pytest.approx(0.5)
    assert "calibration" not in senso.evaluate("admire-b", system=NoProbability(), split="train",
                                               data_dir=data_dir).results
