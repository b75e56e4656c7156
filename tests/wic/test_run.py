"""A pairs task file written by a test runs end to end: `senso run` prints a table with intervals and writes a run
folder that `senso report`, `senso compare` and `senso export` read; a fitted system's unseen-lemma headline,
leave-lemma-out on a task without a training split, a researcher's own system, and its answers checked."""

from __future__ import annotations

import json

import pytest

import senso
from senso.core.errors import SensoError
from wic_fixtures import write_wicita


@pytest.fixture
def mini(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    return write_wicita(tmp_path / "data")


def test_a_binary_task_file_runs_with_intervals_and_an_unseen_headline(mini):
    result = senso.evaluate(mini["binary"], system="lemma-prior", split="test")
    assert result.task == "mini-binary" and result.n == 36
    assert list(result.metrics) == ["macro_f1", "accuracy", "positive_f1"]
    f1 = result.metrics["macro_f1"]
    assert f1.ci_low <= f1.value <= f1.ci_high
    assert set(result.metrics_by_group) == {"it", "it-en"}  # the two test sets, reported apart
    assert result.results["unseen"]["n"] == 0  # every test lemma is among the training rows
    assert result.results["overlap"]["n_seen"] == 36 and "calibration" in result.results
    assert sorted(result.files) == ["binary.jsonl", "binary_eng.jsonl"]


class SameFirstWord:
    """A researcher's own system: the same meaning when both sentences start alike."""

    def judge(self, pairs):
        return [float(p.first.text.split()[0] == p.second.text.split()[0]) for p in pairs]

    def describe(self):
        return {"rule": "first words equal"}


def test_a_researchers_system_and_its_answers_checked(mini):
    result = senso.evaluate(mini["binary"], system=SameFirstWord(), split="dev")
    assert result.system == "user:SameFirstWord" and result.results["model"]["rule"] == "first words equal"
    assert result.results["evaluation"].startswith("no training")

    class Wrong:
        def judge(self, pairs):
            return [1.5] * len(pairs)

    with pytest.raises(SensoError, match=r"judge\(pairs\) answered 1.5 for pair dev.0 .*a P\(same meaning\) is in"):
        senso.evaluate(mini["binary"], system=Wrong(), split="dev")
    with pytest.raises(SensoError, match=r"has no relate\(pairs\) method"):
        senso.evaluate(mini["ranking"], system=SameFirstWord(), split="dev")


def test_a_graded_task_on_its_training_split_is_leave_lemma_out(mini):
    from senso.wic.data import read_split
    from senso.wic.run import lemma_folds
    from senso.wic.taskfile import parse_task_file

    result = senso.evaluate(mini["ranking"], system="lemma-prior", split="train")
    assert result.results["evaluation"] == "leave-lemma-out (5 folds of lemmas)"
    assert list(result.metrics) == ["spearman", "pearson"] and "unseen" not in result.results
    assert [fold["name"] for fold in result.results["fold_models"]] == ["lemma-prior"] * 5  # each fold's own copy
    pairs = read_split(parse_task_file(mini["ranking"]), "train")
    for fold in lemma_folds(pairs):  # a held-out lemma gets the overall mean of the other folds' pairs
        others = [p.score for k, p in enumerate(pairs) if k not in set(fold)]
        assert {round(result.samples[k].relatedness, 9) for k in fold} == {round(sum(others) / len(others), 9)}


def test_options_it_does_not_read_are_refused(mini):
    with pytest.raises(SensoError, match="mini-binary has no split 'val' \\(split\\); choose from train, dev, test"):
        senso.evaluate(mini["binary"], split="val")
    with pytest.raises(SensoError, match="unknown word-in-context system 'nope'; choose from pair-fitted, "
                                         "target-similarity, tuned-similarity, pair-lm, word-overlap, lemma-prior, submission"):
        senso.evaluate(mini["binary"], system="nope")
    with pytest.raises(SensoError, match="embedder is not used by .*system word-overlap"):
        senso.evaluate(mini["binary"], system="word-overlap", embedder="e5-f64")
    with pytest.raises(SensoError, match="model is not used by .*system target-similarity"):
        senso.evaluate(mini["binary"], system="target-similarity", model="gemma3-270m")


@pytest.mark.parametrize("task, split, evaluation", [("binary", "dev", "fitted on train"),
                                                     ("ranking", "train", "leave-lemma-out")])
def test_the_default_system_is_the_encoder_pair_model_fit_by_the_run(mini, task, split, evaluation):
    result = senso.evaluate(mini[task], split=split)
    assert result.system == "pair-fitted" and result.results["evaluation"].startswith(evaluation)
    assert result.results["model"]["encoder"] == "multilingual-e5-small"
    answers = [s.p_same if task == "binary" else s.relatedness for s in result.samples]
    assert all(a is not None for a in answers) and len(set(answers)) > 1


def test_the_command_line_runs_reports_compares_and_exports(mini, tmp_path):
    from typer.testing import CliRunner

    from senso.cli import app

    runner = CliRunner()
    for system in ("word-overlap", "lemma-prior"):
        ran = runner.invoke(app, ["run", str(mini["binary"]), "--split", "dev", "--system", system,
                                  "--out", str(tmp_path / system)], terminal_width=100, env={"COLUMNS": "100"})
        assert ran.exit_code == 0, ran.output
        assert "macro F1" in ran.output and "[" in ran.output  # a value with its interval
    results = json.loads((tmp_path / "lemma-prior" / "results.json").read_text(encoding="utf-8"))
    assert results["family"] == "wic" and "macro_f1" in results["metrics"]
    reported = runner.invoke(app, ["report", str(tmp_path / "lemma-prior")])
    assert reported.exit_code == 0, reported.output
    page = (tmp_path / "lemma-prior" / "report.html").read_text(encoding="utf-8")
    assert 'id="wic-pairs"' in page and "<mark>" in page and "reliability diagram" in page
    compared = runner.invoke(app, ["compare", str(tmp_path / "word-overlap"), str(tmp_path / "lemma-prior")],
                             terminal_width=200, env={"COLUMNS": "200"})
    assert compared.exit_code == 0 and "macro F1" in compared.output, compared.output
    both = runner.invoke(app, ["report", str(tmp_path / "word-overlap"), str(tmp_path / "lemma-prior"), "-o",
                               str(tmp_path / "cmp.html")])
    assert both.exit_code == 0 and 'id="wic-disagreements"' in (tmp_path / "cmp.html").read_text(encoding="utf-8")
    exported = runner.invoke(app, ["export", str(tmp_path / "word-overlap"), str(tmp_path / "lemma-prior"), "--to",
                                   str(tmp_path / "export")])
    assert exported.exit_code == 0, exported.output
    import datasets

    from senso.exporting.dataset import SPLIT

    rows = datasets.load_dataset(str(tmp_path / "export"), "mini-binary", split=SPLIT).to_list()
    assert len(rows) == 2 * 24 and {r["system"] for r in rows} == {"word-overlap", "lemma-prior"}
    table = senso.results_table([tmp_path / "word-overlap", tmp_path / "lemma-prior"])
    assert len(table) >= 2


class SaysYes:
    """A language model that finds " yes" (and " sì") likelier than " no" for every pair."""

    fingerprint = "says-yes"

    def loglikelihood_choices(self, prompts):
        return [[-2.0, -1.0] for _ in prompts]


def test_pair_lm_keeps_no_lemma_it_answers_so_no_pair_is_seen(mini):
    result = senso.evaluate(mini["binary"], system="pair-lm", model=SaysYes(), split="dev")
    assert result.system == "pair-lm" and "never of the scored pair's lemma" in result.results["evaluation"]
    assert "unseen" not in result.results and "overlap" not in result.results
    assert {s.decision for s in result.samples} == {1} and result.metrics["accuracy"].value > 0


def test_a_task_file_names_the_system_a_run_uses_by_default(mini):
    text = mini["binary"].read_text(encoding="utf-8").replace('name = "mini-binary"', 'name = "mini-default"')
    task = mini["binary"].with_name("mini-default.toml")
    task.write_text(text.replace('train = "train"\n', 'train = "train"\ndefault_system = "lemma-prior"\n', 1),
                    encoding="utf-8")
    assert senso.evaluate(task, split="dev").system == "lemma-prior"
    assert senso.evaluate(task, split="dev", system="word-overlap").system == "word-overlap"
    task.write_text(text.replace('train = "train"\n', 'train = "train"\ndefault_system = "nope"\n', 1),
                    encoding="utf-8")
    with pytest.raises(SensoError, match="mini-default.toml, key 'default_system': unknown word-in-context system "
                                         "'nope'; choose from"):
        senso.evaluate(task, split="dev")
