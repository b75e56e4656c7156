"""The calibration section of a run page: metrics, the reliability diagram, or why a run has none."""

from __future__ import annotations

import pytest

import senso
from likert_fakes import ConstantModel
from senso.reporting.run_page import calibration_block, write_run_report


class Point:
    def predict(self, items, task):
        return [0.5 for _ in items]


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))


def test_likert_lm_page_shows_calibration_and_its_reliability_diagram(data_dir, tmp_path):
    run = senso.evaluate("abricot-abs", model=ConstantModel(), data_dir=data_dir, out=tmp_path / "lm")
    block = calibration_block(run.results)
    assert block["groups"] == ["opensub", "wikihow"] and [r["label"].split()[0] for r in block["rows"]] == [
        "ECE", "Brier", "log-loss"]
    assert block["plot"].startswith("data:image/png;base64,")
    html = write_run_report(tmp_path / "lm").read_text()
    assert 'id="calibration"' in html and 'alt="reliability diagram"' in html
    assert f"{run.results['calibration']['metrics']['ece']['value']:.3f}" in html


def test_a_point_system_page_says_why_it_has_no_calibration(data_dir, tmp_path):
    senso.evaluate("abricot-abs", system=Point(), data_dir=data_dir, out=tmp_path / "point")
    html = write_run_report(tmp_path / "point").read_text()
    assert "Not measured: the system answers a point on the scale" in html


def test_a_run_without_calibration_has_no_section():
    assert calibration_block({"metrics": {}}) is None


class Uniform:
    def predict(self, items, task):
        return [[1 / len(task.labels)] * len(task.labels) for _ in items]


def test_comparison_page_has_paired_calibration_differences(data_dir, tmp_path):
    import math

    from senso.reporting.compare import write_comparison

    senso.evaluate("abricot-abs", model=ConstantModel(), data_dir=data_dir, out=tmp_path / "lm")
    senso.evaluate("abricot-abs", system=Uniform(), data_dir=data_dir, out=tmp_path / "uniform")
    html = write_comparison([tmp_path / "lm", tmp_path / "uniform"], tmp_path / "compare.html").read_text()
    assert "ECE (all labels" in html and "Brier (multiclass" in html and "log-loss (-ln P(gold)" in html
    # the uniform side: log-loss ln 5 on every item, so A - B is the constant model's log-loss - ln 5
    p = 1 / (1 + 4 * math.exp(-2))
    log_loss = -(7 * math.log(p) + 120 * math.log((1 - p) / 4)) / 127
    assert f"{log_loss - math.log(5):+.3f}" in html
