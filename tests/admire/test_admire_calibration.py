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


def test_senso_compare_gives_paired_calibration_differences(data_dir, tmp_path):
    from typer.testing import CliRunner

    from senso.admire.paired import compare
    from senso.cli import app

    class Knows:  # P(idiomatic) 0.9 on the idiomatic items, 0.1 on the literal ones
        def choose(self, items):
            return [SequenceChoice(item.candidates[0].name, "literal",
                                   extra={"p_idiomatic": 0.9 if item.sentence_type == "idiomatic" else 0.1})
                    for item in items]

    class Half:
        def choose(self, items):
            return [SequenceChoice(item.candidates[0].name, "literal", extra={"p_idiomatic": 0.5}) for item in items]

    for name, system in (("knows", Knows()), ("half", Half())):
        senso.evaluate("admire-b", system=system, split="train", data_dir=data_dir, out=tmp_path / name)
    result = compare("admire-b", tmp_path / "knows", tmp_path / "half", n_resamples=500)
    rows = {(d.group, d.metric): d for d in result.differences if d.calibration}
    brier = rows[("all", "brier")]
    assert brier.n == 20 and brier.value_a == pytest.approx(2 * 0.1 ** 2) and brier.value_b == pytest.approx(0.5)
    assert brier.difference == pytest.approx(0.02 - 0.5) and brier.ci_high < 0 and brier.p_value < 0.01
    assert rows[("all", "log_loss")].difference == pytest.approx(-math.log(0.9) - math.log(2))
    assert rows[("idiomatic", "ece")].n + rows[("literal", "ece")].n == 20
    assert [d for d in result.to_json()["differences"] if d["calibration"]][0]["metric"] == "ece"
    output = CliRunner().invoke(app, ["compare", "admire-b", str(tmp_path / "knows"), str(tmp_path / "half"),
                                      "--resamples", "200"], env={"COLUMNS": "200"}).output
    assert "calibration of P(idiomatic)" in output and "-0.480" in output
    submission = compare("admire-b", tmp_path / "knows", tmp_path / "half" / "submission_EN.tsv", n_resamples=100,
                         gold=data_dir / "admire" / "reference" / "b_en_train_targets.tsv")
    assert not any(d.calibration for d in submission.differences) and any("not compared" in n for n in submission.notes)


def test_a_fitted_sense_classifier_reports_its_unseen_compounds(data_dir):
    class Fitted:  # says it was fit on three of the dev compounds
        def __init__(self, compounds):
            self.fitted_compounds = frozenset(compounds)

        def classify(self, items):
            return [0.7 for _ in items]

    from admire_fixtures import load_a

    dev = load_a(data_dir, "en", "dev")
    results = senso.evaluate("admire-sense", system=Fitted([i.compound for i in dev[:3]]), split="dev",
                             data_dir=data_dir).results
    assert results["overlap"]["n_seen"] == 3 and results["overlap"]["compared"] == ["compound"]
    assert results["unseen"]["n"] == 12
    gold = [i.sentence_type for i in dev[3:]]
    assert results["unseen"]["sense_accuracy"]["value"] == pytest.approx(gold.count("idiomatic") / 12)
    free = senso.evaluate("admire-sense", system=Fitted([]), split="dev", data_dir=data_dir).results
    assert "overlap" not in free and "unseen" not in free
