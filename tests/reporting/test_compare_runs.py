"""`senso compare TASK RUN_A RUN_B` for Likert runs: the paired difference of Pearson r (and every other
metric), overall and per domain, with its bootstrap CI; the same numbers as the comparison page."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from senso.cli import app
from senso.core.errors import SensoError
from senso.core.records import load_results
from senso.reporting.compare import pairwise_tests
from senso.reporting.compare_runs import compare_runs
from senso.reporting.run_folder import load_run


def test_pearson_difference_with_a_paired_ci_overall_and_per_domain(abricot_runs):
    result = compare_runs("abricot-abs", abricot_runs["A"], abricot_runs["B"], n_resamples=500)
    rows = {(g, m): r for g, m, r in result.rows}
    assert {g for g, _ in rows} == {"all", "opensub", "wikihow"} and result.n == 10
    a, b = (load_results(abricot_runs[k]) for k in ("A", "B"))
    pearson = rows[("all", "pearson")]
    assert pearson.value_a == pytest.approx(a["metrics"]["pearson"]["value"])
    assert pearson.value_b == pytest.approx(b["metrics"]["pearson"]["value"])
    assert pearson.difference == pytest.approx(pearson.value_a - pearson.value_b)
    assert pearson.ci_low <= pearson.difference <= pearson.ci_high and 0 <= pearson.p_value <= 1
    for domain in ("opensub", "wikihow"):
        assert rows[(domain, "pearson")].value_a == pytest.approx(a["metrics_by_group"][domain]["pearson"]["value"])
    page = {t.metric: t.result for t in pairwise_tests([load_run(abricot_runs["A"]), load_run(abricot_runs["B"])],
                                                       n_resamples=500)}
    for metric, test in page.items():  # the command and the page agree
        assert rows[("all", metric)].difference == pytest.approx(test.difference)
        assert rows[("all", metric)].ci_low == pytest.approx(test.ci_low)


def test_the_command_prints_the_table(abricot_runs):
    result = CliRunner().invoke(app, ["compare", "abricot-abs", str(abricot_runs["A"]), str(abricot_runs["B"]),
                                      "--resamples", "200"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Pearson r (official: predicted vs gold label)" in result.output and "wikihow" in result.output


@pytest.mark.parametrize("task, run, phrase", [
    ("abricot-inc", "A", "is a run of 'abricot-abs', not abricot-inc"),
    ("abricot-abs", "A5", "are not on the same items"),
])
def test_runs_that_cannot_be_paired_are_refused(abricot_runs, task, run, phrase):
    with pytest.raises(SensoError, match=phrase):
        compare_runs(task, abricot_runs["A"], abricot_runs[run], n_resamples=100)


def test_an_admire_run_is_not_a_likert_run(abricot_runs, admire_runs):
    with pytest.raises(SensoError, match="is a run of 'admire-a', not abricot-abs"):
        compare_runs("abricot-abs", abricot_runs["A"], admire_runs["A0"], n_resamples=100)


def test_gold_is_refused_for_likert_runs(abricot_runs):
    result = CliRunner().invoke(app, ["compare", "abricot-abs", str(abricot_runs["A"]), str(abricot_runs["B"]),
                                      "--gold", "x.tsv"])
    assert result.exit_code != 0
