import pytest
from typer.testing import CliRunner

from senso.cli import app
from senso.core.errors import SensoError
from senso.core.stats import pearson
from senso.reporting.compare import comparison_context, pairwise_tests, write_comparison
from senso.reporting.run_folder import load_run


def test_abricot_comparison_data(abricot_runs):
    runs = [load_run(abricot_runs["A"]), load_run(abricot_runs["B"])]
    context = comparison_context(runs)
    assert context["metric_names"] == ["pearson", "spearman", "pearson_expected_vs_gold", "pearson_expected_vs_mean",
                                       "accuracy"]
    # B differs from A on LUCE_1 (5 vs 1, spread 4), IDEA_1 (2 vs 4) and SALE_1 (1 vs 3); widest first, then id
    disagreements = context["disagreements"]
    assert [d["id"] for d in disagreements] == ["LUCE_1", "IDEA_1", "SALE_1"]
    assert disagreements[0]["predictions"] == [5, 1] and disagreements[0]["correct"] == [False, True]
    assert "<mark>luce</mark>" in str(disagreements[0]["sentence"])
    tests = {t.metric: t for t in context["tests"]}
    assert set(tests) == {"pearson", "spearman", "pearson_expected_vs_gold", "pearson_expected_vs_mean", "accuracy",
                          "ece", "brier", "log_loss"}  # the last three: paired calibration differences
    brier = [results["calibration"]["metrics"]["brier"]["value"] for results in (r.results for r in runs)]
    assert tests["brier"].result.difference == pytest.approx(brier[0] - brier[1])
    assert tests["ece"].result.value_a == pytest.approx(runs[0].results["calibration"]["metrics"]["ece"]["value"])
    gold = [s["gold"] for s in runs[0].samples]
    r_a = pearson([s["prediction"] for s in runs[0].samples], gold)
    r_b = pearson([s["prediction"] for s in runs[1].samples], gold)
    assert tests["pearson"].result.difference == pytest.approx(r_a - r_b)
    assert tests["pearson"].result.difference == pytest.approx(-0.7 / (20.1 * 18.9) ** 0.5 - 9.3 / (16.1 * 18.9) ** 0.5)
    assert "exact paired permutation (all 2^10" in tests["pearson"].result.method
    # accuracy: A right on 3 items (CANE_1-3), B on 6 -> -0.3; differences on 3 items -> exact sign-flip test
    assert tests["accuracy"].result.difference == pytest.approx(-0.3)
    assert tests["accuracy"].result.p_value == pytest.approx(2 / 8)  # only all-same signs reach |-0.3|
    assert len(context["plots"]) == 5


def test_undefined_correlation_is_not_tested(abricot_runs):
    runs = [load_run(abricot_runs["A"]), load_run(abricot_runs["const"])]
    tests = {t.metric: t.result for t in pairwise_tests(runs)}
    assert tests["pearson"].difference is None and "undefined for B" in tests["pearson"].reason
    assert tests["accuracy"].difference is not None


def test_runs_must_share_task_split_and_items(abricot_runs, admire_runs):
    with pytest.raises(SensoError, match="different tasks"):
        comparison_context([load_run(abricot_runs["A"]), load_run(abricot_runs["inc"])])
    with pytest.raises(SensoError, match="not on the same items"):
        comparison_context([load_run(abricot_runs["A"]), load_run(abricot_runs["A5"])])
    with pytest.raises(SensoError, match="different tasks"):
        comparison_context([load_run(abricot_runs["A"]), load_run(admire_runs["A0"])])
    with pytest.raises(SensoError, match="at least two"):
        comparison_context([load_run(abricot_runs["A"])])


def test_admire_comparison_agrees_with_senso_compare(admire_runs):
    from senso.admire.paired import compare

    runs = [load_run(admire_runs["A0"]), load_run(admire_runs["A1"])]
    context = comparison_context(runs)
    expected = {d.metric: d for d in compare("admire-a", runs[0].path, runs[1].path).differences if d.group == "all"}
    for test in context["tests"]:
        mine, theirs = test.result, expected[test.metric]
        assert (mine.difference, mine.ci_low, mine.ci_high, mine.p_value) == \
            (theirs.difference, theirs.ci_low, theirs.ci_high, theirs.p_value)
    tops = [[s["predicted_order"][0] for s in run.samples] for run in runs]
    differing = [s["compound"] for s, a, b in zip(runs[0].samples, *tops) if a != b]
    assert [d["compound"] for d in context["disagreements"]] == differing
    for d in context["disagreements"]:
        assert [c.name for c in d["choices"]] == [t[[s["compound"] for s in runs[0].samples].index(d["compound"])]
                                                  for t in tops]
    assert len(context["plots"]) == 2  # Top-1 and DCG; the parity-only name correlation is not plotted


def test_admire_b_comparison(admire_runs):
    runs = [load_run(admire_runs["B0"]), load_run(admire_runs["B1"])]
    context = comparison_context(runs)
    assert {t.metric for t in context["tests"]} == {"image_accuracy", "sentence_type_accuracy"}
    for d in context["disagreements"]:
        k = [s["compound"] for s in runs[0].samples].index(d["compound"])
        assert d["chosen"] == [run.samples[k]["predicted_item"] for run in runs]


def test_admire_b_runs_without_gold_are_shown_by_their_disagreements(admire_runs, tmp_path):
    """Subtask B's file without its gold columns: no metrics and no paired test (nothing to score against), the
    page says so and lists where the runs chose differently."""
    import csv
    import shutil

    from report_fixtures import write_tsv

    from senso.api import run as run_admire
    from senso.catalog import RunOptions

    data = shutil.copytree(admire_runs["data"], tmp_path / "data")
    path = data / "admire" / "subtask_b" / "en" / "train" / "subtask_b_train.tsv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    write_tsv(path, list(rows[0]), [{**row, "sentence_type": "", "expected_item": ""} for row in rows])
    runs = [load_run(run_admire(RunOptions(task="admire-b", data_dir=data, out=tmp_path / f"B{seed}", split="train",
                                           lang="en", system="random", seed=seed, no_cache=True))) for seed in (0, 1)]
    context = comparison_context(runs)
    assert (context["tests"], context["metric_names"], context["no_gold"]) == ([], [], ["A", "B"])
    answers = [[(s["predicted_item"], s["predicted_sentence_type"]) for s in run.samples] for run in runs]
    differing = [s["compound"] for s, a, b in zip(runs[0].samples, *answers) if a != b]
    assert differing and [d["compound"] for d in context["disagreements"]] == differing
    page = write_comparison([run.path for run in runs], tmp_path / "b.html").read_text(encoding="utf-8")
    assert "No paired test: A, B have no gold for these items" in page


def test_cli_comparison_page(abricot_runs, admire_runs, tmp_path):
    out = tmp_path / "cmp" / "compare.html"
    result = CliRunner().invoke(app, ["report", str(abricot_runs["A"]), str(abricot_runs["B"]), "-o", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "Paired tests" in html and "LUCE_1" in html and html.count("data:image/png;base64,") == 5
    result = CliRunner().invoke(app, ["report", str(abricot_runs["A"]), str(abricot_runs["B"])])
    assert result.exit_code != 0 and "needs -o" in str(result.exception)
    page = write_comparison([admire_runs["A0"], admire_runs["A1"]], tmp_path / "a.html").read_text()
    assert "<script" not in page and "https://" not in page
