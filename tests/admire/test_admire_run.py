"""`senso run admire-a/admire-b` end to end on ../shared/data, and the commands that read its run folders."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from senso.cli import app
from senso.core.errors import SensoError
from senso.api import run as run_admire
from senso.catalog import RunOptions
from senso.core.records import load_results, load_samples
from senso.admire.submission import read_submission

pytestmark = pytest.mark.real_data


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "senso-cache"))
    monkeypatch.setenv("COLUMNS", "200")  # rich tables on one line each


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], terminal_width=200)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def test_random_on_dev_end_to_end(data_dir, tmp_path):
    out = tmp_path / "random-dev"
    result = invoke("run", "admire-a", "--lang", "en", "--split", "dev", "--system", "random", "--data-dir", data_dir, "--out", out)
    assert "Top-1" in result.output and f"run folder: {out}" in result.output
    results = load_results(out)
    assert results["n"] == results["n_official"] == 15 and results["track"] == "text-only" and results["split"] == "dev"
    for name in ("top1", "dcg", "official_name_corr"):
        estimate = results["metrics"][name]
        assert estimate["ci_low"] <= estimate["value"] <= estimate["ci_high"]
    assert set(results["metrics_by_group"]) == {"idiomatic", "literal"}
    assert results["fingerprints"]["data"].startswith("sha256:") and results["versions"]["senso"]
    config = json.loads((out / "config.json").read_text())  # the run-config schema shared with the Likert wing
    assert (config["task"], config["system"], config["model"], config["options"]["split"]) == ("admire-a", "random", None, "dev")
    [data_file] = config["data_files"]
    assert data_file["path"] == str((data_dir / "admire" / "subtask_a" / "en" / "dev" / "subtask_a_dev.tsv").resolve())
    assert len(data_file["sha256"]) == 64
    samples = load_samples(out)
    first = samples[0]
    assert set(first) >= {"compound", "scores", "predicted_order", "gold_order", "sentence_type", "top1", "dcg"}
    assert list(first["predicted_order"]) == sorted(first["scores"], key=lambda k: -first["scores"][k])
    # the run's numbers are exactly what `senso score` gives its submission file against the official targets
    sub = read_submission(out / "submission_EN.tsv")
    assert [r.compound for r in sub.rows] == [s["compound"] for s in samples]
    report = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="submission",
                                   gold=data_dir / "admire/reference/a_en_dev_targets.tsv", out=tmp_path / "scored",
                                   system_options={"submission": out / "submission_EN.tsv"}))
    scored = load_results(report)
    assert scored["metrics"] == results["metrics"] and scored["metrics_by_group"] == results["metrics_by_group"]
    assert scored["n"] == 15 and not any(w.startswith("PARTIAL") for w in scored["warnings"])
    assert "partial" not in scored
    assert [s["top1"] for s in load_samples(report)] == [s["top1"] for s in samples]
    # seeded: a second run gives the same orders; another seed changes them
    again = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="random", out=tmp_path / "again"))
    assert [s["predicted_order"] for s in load_samples(again)] == [s["predicted_order"] for s in samples]
    other = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="random", seed=1, out=tmp_path / "seed1"))
    assert [s["predicted_order"] for s in load_samples(other)] != [s["predicted_order"] for s in samples]


def test_caption_similarity_end_to_end_and_resumes_from_the_cache(data_dir, tmp_path):
    out = tmp_path / "caption"
    result = invoke("run", "admire-a", "--split", "dev", "--system", "caption-similarity", "--limit", "2",
                    "--data-dir", data_dir, "--out", out)
    assert "PARTIAL: 2 of the 15 items" in result.output
    results = load_results(out)
    assert results["n"] == 2 and results["model"]["embedder"] == "e5-f64"
    assert results["cache"]["misses"] > 0
    samples = load_samples(out)
    for sample in samples:
        assert all(-1.0 <= v <= 1.0 for v in sample["scores"].values())
        assert sample["predicted_order"] == sorted(sample["scores"], key=lambda k: -sample["scores"][k])
    again = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="caption-similarity", limit=2,
                                  out=tmp_path / "again"))
    assert load_results(again)["cache"]["misses"] == 0  # every embedding came from the cache
    assert load_samples(again) == samples


def test_a_split_left_out_is_recorded_as_chosen_and_said_once(data_dir, tmp_path):
    out = tmp_path / "default-split"
    result = CliRunner().invoke(app, ["run", "admire-a", "--system", "random", "--limit", "2", "--data-dir", data_dir,
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.count("lang en, split dev (not given: the default)") == 1
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["split"] == "dev" and config["chosen_by_default"] == {"lang": "en", "split": "dev"}
    given = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", lang="en", system="random", limit=2,
                                  out=tmp_path / "given"))
    assert json.loads((given / "config.json").read_text(encoding="utf-8"))["chosen_by_default"] == {}


def test_xeval_writes_the_submission_and_no_metrics(data_dir, tmp_path):
    out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="xeval", system="random", out=tmp_path / "xe"))
    assert (out / "submission_XE.tsv").exists()
    assert len(read_submission(out / "submission_XE.tsv").rows) == 100
    results = load_results(out)
    assert results["gold"] is None and results["metrics"]  # an explicit "no gold" result: every metric says why
    assert all(m["value"] is None and m["reason"].startswith("no gold for en xeval") for m in results["metrics"].values())
    assert any("no gold" in note for note in results["notes"])
    import senso

    r = senso.evaluate("admire-a", system="random", split="xeval", data_dir=data_dir)
    assert r.metrics["top1"].value is None and r.metrics["top1"].reason.startswith("no gold for en xeval")
    # leaderboard and compare then say that gold is needed
    with pytest.raises(SensoError, match="gold is needed"):
        from senso.admire.leaderboard import leaderboards

        leaderboards([out])
    with pytest.raises(SensoError, match="gold is needed"):
        from senso.admire.paired import compare

        compare("admire-a", out, out)
    zip_path = tmp_path / "submission.zip"
    invoke("submission", "pack", out, "-o", zip_path)
    with zipfile.ZipFile(zip_path) as zf:
        assert zf.namelist() == ["submission_XE.tsv"]


def test_gold_from_the_reference_targets_gives_the_same_numbers(data_dir, tmp_path):
    inline = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="train", system="random", out=tmp_path / "a"))
    joined = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="train", system="random", out=tmp_path / "b",
                                   gold=data_dir / "admire/reference/a_en_train_targets.tsv"))
    assert load_results(inline)["metrics"] == load_results(joined)["metrics"]
    assert load_results(joined)["gold"].endswith("a_en_train_targets.tsv")


class FittedRanker:
    name = "fitted"
    uses_images = False

    def __init__(self, compounds):
        self.fitted_compounds = frozenset(compounds)

    def describe(self):
        return {"name": self.name}

    def rank(self, items):
        from senso.admire.systems.base import Ranking

        return [Ranking(order=item.image_names) for item in items]


def test_split_hygiene_warning(data_dir, tmp_path):
    import senso

    result = senso.evaluate("admire-a", system=FittedRanker(["monkey business", "grass roots"]), split="dev",
                            data_dir=data_dir, out=tmp_path / "fit")
    warnings = load_results(tmp_path / "fit")["warnings"]
    assert warnings == result.warnings
    assert any(w.startswith("SPLIT HYGIENE") and "system 'user:fitted' was fit on 2 of the 15 compounds" in w
               for w in warnings)
    clean = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="random", out=tmp_path / "clean"))
    assert load_results(clean)["warnings"] == []


def test_subtask_b_random(data_dir, tmp_path):
    out = tmp_path / "b"
    invoke("run", "admire-b", "--split", "train", "--system", "random", "--data-dir", data_dir, "--out", out)
    results = load_results(out)
    assert set(results["metrics"]) == {"image_accuracy", "sentence_type_accuracy"} and results["n"] == 20
    sub = read_submission(out / "submission_EN.tsv")
    assert sub.subtask == "b" and len(sub.rows) == 20
    samples = load_samples(out)
    assert all(s["image_accuracy"] == float(s["predicted_item"] == s["gold_item"]) for s in samples)


def test_unknown_system(data_dir, tmp_path):
    with pytest.raises(SensoError, match="unknown admire-a system 'nope'; choose from caption-similarity, clip-rank, "
                                         "ensemble, fitted-pipeline, fusion, random, sense-pipeline, submission, "
                                         "vlm-judge"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, system="nope", out=tmp_path / "x"))


def test_score_and_compare_commands(data_dir, tmp_path):
    gold = data_dir / "admire/reference/a_en_dev_targets.tsv"
    run_a = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="random", out=tmp_path / "a"))
    run_b = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="random", seed=5, out=tmp_path / "b"))
    from senso.admire.data import read_targets
    from admire_fixtures import write_submission_a

    perfect = write_submission_a(tmp_path / "gold" / "submission_EN.tsv", [(t.compound, t.expected_order) for t in read_targets(gold)])
    result = invoke("score", "admire-a", perfect, "--gold", gold, "--data-dir", data_dir, "--out", tmp_path / "scored")
    assert "1.000 [1.000, 1.000]" in result.output and "3.631 [3.631, 3.631]" in result.output
    assert load_results(tmp_path / "scored")["system"] == "submission"  # a run folder as any run's
    report = json.loads(invoke("score", "admire-a", run_a / "submission_EN.tsv", "--gold", gold, "--json",
                               "--data-dir", data_dir, "--out", tmp_path / "scored-a").output)
    assert report["metrics"]["dcg"]["value"] == pytest.approx(load_results(run_a)["metrics"]["dcg"]["value"])
    assert (report["n"], report["n_expected"], report["partial"]) == (15, 15, False)
    assert report["run_dir"] == str(tmp_path / "scored-a") and len(report["per_item"]) == 15
    result = invoke("compare", "admire-a", run_a, run_b, "--gold", gold, "--resamples", "500")
    assert "A - B" in result.output and "exact" not in result.output
    result = invoke("compare", "admire-a", perfect, run_b, "--gold", gold, "--resamples", "500")
    assert "+1.0" in result.output or "+0." in result.output


def test_score_reads_only_the_submission_and_the_targets(data_dir, tmp_path, monkeypatch):
    """As the official scorer: the targets file and the submission, no data folder anywhere."""
    run_a = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="dev", system="random", out=tmp_path / "a"))
    gold = Path(shutil.copy(data_dir / "admire/reference/a_en_dev_targets.tsv", tmp_path))
    monkeypatch.setenv("SENSO_DATA_DIR", str(tmp_path / "no-such-folder"))  # nor a data folder in the cache
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "empty-cache"))
    report = json.loads(invoke("score", "admire-a", run_a / "submission_EN.tsv", "--gold", gold, "--json",
                               "--out", tmp_path / "scored").output)
    assert not (tmp_path / "no-such-folder").exists() and not (tmp_path / "empty-cache" / "data").exists()
    scored = load_results(run_a)["metrics"]
    assert {k: report["metrics"][k]["value"] for k in ("top1", "dcg")} == {k: scored[k]["value"] for k in ("top1", "dcg")}
    assert (report["n"], report["n_expected"], report["partial"]) == (15, 15, False)


def test_train_plus_dev_is_one_scored_run(data_dir, tmp_path):
    out = run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="train+dev", system="random", out=tmp_path / "td"))
    results = load_results(out)
    assert results["n"] == results["n_official"] == 85 and results["split"] == "train+dev"
    assert set(results["fingerprints"]) == {"data_train", "data_dev"}
    with pytest.raises(SensoError, match="only 70 of 170 items carry a gold order"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="train+xeval", system="random", out=tmp_path / "tx"))
    with pytest.raises(SensoError, match="--gold holds one split"):
        run_admire(RunOptions(task="admire-a", data_dir=data_dir, split="train+dev", system="random", out=tmp_path / "g",
                              gold=data_dir / "admire/reference/a_en_dev_targets.tsv"))


def test_test_split_scored_with_a_targets_file_then_placed_on_the_leaderboard(data_dir, tmp_path):
    from admire_fixtures import write_a_targets
    from admire_fixtures import load_a

    # a synthetic targets file (the listed image order as gold) to exercise the path; test gold is not in ../shared
    items = load_a(data_dir, "en", "test")
    gold = write_a_targets(tmp_path / "a_en_test_targets.tsv", [
        {"compound": i.compound, "subset": "Test", "sentence_type": ("idiomatic", "literal")[n % 2], "sentence": i.sentence,
         "expected_order": repr(list(i.image_names))} for n, i in enumerate(items)])
    out = tmp_path / "test-run"
    invoke("run", "admire-a", "--split", "test", "--system", "random", "--gold", gold, "--data-dir", data_dir, "--out", out)
    results = load_results(out)
    assert results["n"] == 15 and results["gold"] == str(gold) and "top1" in results["metrics"]
    result = invoke("leaderboard", out)
    assert "Subtask A | en | text-only | test set" in result.output and "random (test-run)" in result.output


def test_compare_subtask_b_runs(data_dir, tmp_path):
    from senso.admire.paired import compare

    a = run_admire(RunOptions(task="admire-b", data_dir=data_dir, split="train", system="random", out=tmp_path / "a"))
    b = run_admire(RunOptions(task="admire-b", data_dir=data_dir, split="train", system="random", seed=9, out=tmp_path / "b"))
    result = compare("admire-b", a, b, n_resamples=200)
    assert result.n == 20 and set(result.metrics) == {"image_accuracy", "sentence_type_accuracy"}
    assert result["image_accuracy"].value_a == load_results(a)["metrics"]["image_accuracy"]["value"]


def test_portuguese_runs_on_fixtures(tmp_path):
    from admire_fixtures import a_row, write_a_split

    data = write_a_split(tmp_path / "data", "pt", "xeval", [a_row("cerca viva", pt=True, gold=False), a_row("livro aberto", first=20, pt=True, gold=False)])
    out = run_admire(RunOptions(task="admire-a", data_dir=data, lang="pt", split="xeval", system="random", out=tmp_path / "xp"))
    assert [r.compound for r in read_submission(out / "submission_XP.tsv").rows] == ["cerca viva", "livro aberto"]
    results = load_results(out)
    assert results["caption_lang"] == "pt" and results["n_official"] == 55
    assert any("the data file has 2 items, the official split 55" in w for w in results["warnings"])
    en_captions = run_admire(RunOptions(task="admire-a", data_dir=data, lang="pt", split="xeval", system="random",
                                        caption_lang="en", out=tmp_path / "xp-en"))
    assert load_results(en_captions)["caption_lang"] == "en"
