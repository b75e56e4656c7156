"""What the command line does with finished runs, from Python (`senso.results`): `senso.compare` gives typed paired
differences (calibration included) that `senso compare --json` prints; runs of different tasks or items are
refused saying which; the tidy table holds every metric, calibration included, as Estimates do."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

import senso
from senso.cli import app
from senso.core.comparison import Comparison, MetricDifference, format_p
from senso.core.errors import SensoError
from senso.core.stats import Estimate


class Oracle:
    """A Likert system that answers each item's gold mean, and a sharp distribution around it (`sharp=False`:
    one flat distribution for every item)."""

    def __init__(self, sharp: bool = True):
        self.sharp = sharp
        self.name = "oracle" if sharp else "flat"

    def predict(self, items, task):
        if not self.sharp:
            return [[0.2] * 5 for _ in items]
        answers = []
        for item in items:
            label = task.gold_label(item.gold)
            answers.append([0.9 if k + 1 == label else 0.025 for k in range(5)])
        return answers


@pytest.fixture(scope="module")
def likert_pair(data_dir):
    oracle = senso.evaluate("abricot-abs", system=Oracle(), data_dir=data_dir, limit=40)
    flat = senso.evaluate("abricot-abs", system=Oracle(sharp=False), data_dir=data_dir, limit=40)
    return oracle, flat


def test_compare_gives_typed_differences_with_calibration(likert_pair):
    oracle, flat = likert_pair
    comparison = senso.compare(oracle, flat, n_resamples=2000)
    assert isinstance(comparison, Comparison) and comparison.task == "abricot-abs" and comparison.n == 40
    assert (comparison.system_a, comparison.system_b) == ("user:oracle", "user:flat")
    accuracy = comparison["accuracy"]
    assert isinstance(accuracy, MetricDifference) and accuracy.difference > 0.5 and accuracy.p_value < 0.001
    assert accuracy.value_a == pytest.approx(oracle.metrics["accuracy"].value)
    brier = comparison["brier"]
    assert brier.calibration and brier.value_a == pytest.approx(oracle.calibration["brier"].value)
    assert brier.difference < 0 and brier.ci_high < 0
    frame = comparison.to_pandas()
    assert list(frame.columns[:4]) == ["metric", "group", "n", "value_a"]
    assert set(frame[frame.calibration].metric) == {"ece", "brier", "log_loss"}
    assert json.loads(json.dumps(comparison.to_json()))["differences"][0]["metric"] == comparison.differences[0].metric


def test_calibration_metrics_are_estimates_and_rows_of_the_tidy_table(likert_pair, tmp_path):
    oracle, flat = likert_pair
    assert isinstance(oracle.calibration["ece"], Estimate) and oracle.calibration["ece"].ci_low is not None
    assert set(oracle.calibration_by_group) == set(oracle.metrics_by_group)
    folder = flat.save(tmp_path / "flat")
    table = senso.results_table([oracle, folder])
    assert list(table.columns) == ["run", "task", "system", "metric", "group", "value", "ci_low", "ci_high", "reason"]
    ece = table[(table.system == "user:oracle") & (table.metric == "ece") & (table.group == "all")]
    assert list(ece.value) == [oracle.calibration["ece"].value]
    assert set(table[table.run == str(folder)].metric) >= {"pearson", "accuracy", "brier"}
    undefined = table[(table.system == "user:flat") & (table.metric == "pearson") & (table.group == "all")]
    assert undefined.value.isna().all() and "constant" in undefined.reason.iloc[0]


def test_runs_of_different_tasks_or_items_are_refused_saying_which(likert_pair, data_dir, tmp_path):
    oracle, _ = likert_pair
    inc = senso.evaluate("abricot-inc", system=Oracle(), data_dir=data_dir, limit=40)
    with pytest.raises(SensoError, match=r"cannot compare runs of different tasks: .* is a run of abricot-abs, "
                                         r".* a run of abricot-inc"):
        senso.compare(oracle, inc)
    fewer = senso.evaluate("abricot-abs", system=Oracle(), data_dir=data_dir, limit=30).save(tmp_path / "fewer")
    with pytest.raises(SensoError, match=r"are not on the same items \(40 vs 30"):
        senso.compare(oracle, fewer)
    with pytest.raises(SensoError, match=r"n_resamples= expects a whole number \(int\), got str"):
        senso.compare(oracle, fewer, n_resamples="100")


def test_the_command_prints_what_compare_returns_and_reads_the_task_from_the_runs(likert_pair, tmp_path):
    oracle, flat = likert_pair
    a, b = oracle.save(tmp_path / "a"), flat.save(tmp_path / "b")
    printed = CliRunner().invoke(app, ["compare", str(a), str(b), "--resamples", "500", "--json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.output) == senso.compare(a, b, n_resamples=500).to_json()
    table = CliRunner().invoke(app, ["compare", "abricot-abs", str(a), str(b), "--resamples", "4000"])
    assert table.exit_code == 0 and "< 0.001" in table.output
    assert "calibration of the label distributions" in table.output
    wrong = CliRunner().invoke(app, ["compare", "abricot-inc", str(a), str(b)])
    assert isinstance(wrong.exception, SensoError) and str(wrong.exception) == f"{a} is a run of abricot-abs, not abricot-inc"


def test_p_values_below_the_printed_precision_say_so():
    assert [format_p(p) for p in (0.0001, 0.001, 0.0456, None)] == ["< 0.001", "0.001", "0.046", "-"]


def test_one_result_type_and_free_functions_for_what_needs_upper_layers(likert_pair):
    from senso.core.evaluation import EvalResult

    assert type(likert_pair[0]) is EvalResult is senso.EvalResult
    assert not hasattr(senso, "Result") and "Result" not in senso.__all__
    assert not any(hasattr(EvalResult, name) for name in ("report", "placement", "compare"))


def test_report_placement_and_model_index_from_python(likert_pair, tmp_path):
    oracle = dataclasses.replace(likert_pair[0], run_dir=None)
    page = senso.report([oracle], tmp_path / "oracle.html")
    assert page == tmp_path / "oracle.html" and "user:oracle" in page.read_text(encoding="utf-8")
    assert oracle.run_dir is None  # reporting an unsaved result leaves it unsaved
    with pytest.raises(SensoError, match=r"senso.report needs a path: <in memory: user:oracle> has no run folder"):
        senso.report([oracle])
    placement = senso.placement(oracle)
    assert placement.boards or placement.notes


class FirstListed:
    def rank(self, items):
        return [list(item.image_names) for item in items]


def test_compare_admire_runs_typed_and_refuses_other_items(data_dir):
    mine = senso.evaluate("admire-a", system=FirstListed(), split="dev", data_dir=data_dir, limit=10)
    chance = senso.evaluate("admire-a", system="random", split="dev", data_dir=data_dir, limit=10)
    comparison = senso.compare(mine, chance, n_resamples=500)
    assert comparison.task == "admire-a" and comparison.n == 10 and comparison.system_b == "random"
    top1 = comparison["top1"]
    assert top1.value_a == pytest.approx(mine.metrics["top1"].value)
    assert top1.difference == pytest.approx(mine.metrics["top1"].value - chance.metrics["top1"].value)
    assert {row.group for row in comparison.differences} == {"all", "idiomatic", "literal"}
    fewer = senso.evaluate("admire-a", system="random", split="dev", data_dir=data_dir, limit=8)
    with pytest.raises(SensoError, match=r"<in memory: user:FirstListed> and .* are not on the same items \(10 vs 8\)"):
        senso.compare(mine, fewer)


def test_senso_export_and_report_are_the_calls_beside_the_exporting_and_reporting_packages(likert_pair, tmp_path):
    import datasets

    import senso.exporting.publish  # noqa: F401 (binds senso.exporting, another name than the call's)
    from senso.reporting import write_report  # noqa: F401

    oracle, flat = likert_pair
    assert callable(senso.export) and callable(senso.report) and senso.exporting.publish.__name__.endswith("publish")
    first = senso.export([oracle, flat], to=tmp_path / "first")
    second = senso.export([oracle], to=tmp_path / "second")
    assert first.configs == ["abricot-abs", "results"] and second.folder == tmp_path / "second"
    rows = datasets.load_dataset(str(first.folder), "abricot-abs", split="latest")
    assert rows.num_rows == 80 and set(rows["system"]) == {"user:oracle", "user:flat"}
    page = senso.report([oracle, flat], tmp_path / "both.html")
    assert "user:flat" in page.read_text(encoding="utf-8")
    assert "model-index" in senso.model_index([oracle], model_name="oracle")
