"""WiC-ITA's submission zip, exactly as its organisers specify it, scored by `senso score` and by a
re-implementation of the organisers' scorer (scikit-learn's macro F1, scipy's Spearman, per test set): the same
numbers. WiC's answers as T/F lines, scored back."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from senso.cli import app
from wic_fixtures import write_wicita

RUNNER = CliRunner()


def organisers_scores(zip_path: Path, gold: dict[str, Path]) -> dict[str, float]:
    """The organisers' scorer, re-implemented: per file of the zip, macro F1 (binary) or Spearman's rho (ranking)
    of the answers against the gold file of the same name (joined by id)."""
    from scipy.stats import spearmanr
    from sklearn.metrics import f1_score

    scores = {}
    with zipfile.ZipFile(zip_path) as archive:
        for name in archive.namelist():
            answers = {r["id"]: r for r in map(json.loads, archive.read(name).decode("utf-8").splitlines())}
            truth = [json.loads(line) for line in gold[name].read_text(encoding="utf-8").splitlines()]
            if name.startswith("binary"):
                scores[name] = f1_score([t["label"] for t in truth], [answers[t["id"]]["label"] for t in truth],
                                        average="macro")
            else:
                scores[name] = spearmanr([t["score"] for t in truth], [answers[t["id"]]["score"] for t in truth])[0]
    return scores


def run(*args: str) -> str:
    result = RUNNER.invoke(app, list(args), terminal_width=200, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_zip_scored_by_senso_equals_the_organisers_scorer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = write_wicita(tmp_path / "data")
    # word-overlap finds no shared word across languages: every it-en pair "different" (a class never predicted)
    run("run", str(files["binary"]), "--split", "test", "--system", "word-overlap", "--out", str(tmp_path / "b"))
    run("run", str(files["ranking"]), "--split", "test", "--system", "lemma-prior", "--out", str(tmp_path / "r"))
    run("wic-submission", str(tmp_path / "b"), str(tmp_path / "r"), "-o", str(tmp_path / "submission.zip"))
    with zipfile.ZipFile(tmp_path / "submission.zip") as archive:
        assert archive.namelist() == ["binary.jsonl", "binary_eng.jsonl", "ranking.jsonl", "ranking_eng.jsonl"]
        first = json.loads(archive.read("binary_eng.jsonl").decode("utf-8").splitlines()[0])
        assert set(first) == {"id", "label"} and first["label"] in (0, 1)
    gold = {f"{part}{suffix}.jsonl": tmp_path / "data" / part / f"test{suffix}.jsonl"
            for part in ("binary", "ranking") for suffix in ("", "_eng")}
    official = organisers_scores(tmp_path / "submission.zip", gold)
    for part, metric in (("binary", "macro_f1"), ("ranking", "spearman")):
        scored = json.loads(run("score", str(files[part]), str(tmp_path / "submission.zip"), "--wic-split", "test",
                                "--json", "--out", str(tmp_path / f"scored-{part}")))
        assert scored["n"] == 36
        assert scored["by_langs"]["it"][metric]["value"] == pytest.approx(official[f"{part}.jsonl"], abs=1e-12)
        assert scored["by_langs"]["it-en"][metric]["value"] == pytest.approx(official[f"{part}_eng.jsonl"], abs=1e-12)
    ran = json.loads((tmp_path / "b" / "results.json").read_text(encoding="utf-8"))
    assert ran["metrics_by_group"]["it-en"]["macro_f1"]["value"] == pytest.approx(official["binary_eng.jsonl"])


def test_a_submission_missing_a_pair_or_a_file_is_refused(tmp_path, monkeypatch):
    from senso.core.errors import SensoError

    files = write_wicita(tmp_path / "data")
    partial = tmp_path / "partial.zip"
    with zipfile.ZipFile(partial, "w") as archive:
        archive.writestr("binary.jsonl", json.dumps({"id": "dev.0", "label": 1}) + "\n")
    refused = RUNNER.invoke(app, ["score", str(files["binary"]), str(partial), "--wic-split", "test"])
    assert isinstance(refused.exception, SensoError)
    assert "no binary_eng.jsonl, which holds the answers to the split's Italian-English pairs" in str(refused.exception)
    refused = RUNNER.invoke(app, ["score", str(files["binary"]), str(partial), "--wic-split", "dev"])
    assert "23 pair(s) of the split have no answer (dev.1" in str(refused.exception)


@pytest.mark.real_data
def test_wic_answers_are_t_f_lines_and_score_back(data_dir, tmp_path):
    run("run", "wic-en", "--split", "dev", "--system", "word-overlap", "--data-dir", str(data_dir), "--out",
        str(tmp_path / "en"))
    lines = (tmp_path / "en" / "answers.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 638 and set(lines) <= {"T", "F"}
    scored = json.loads(run("score", "wic-en", str(tmp_path / "en" / "answers.txt"), "--wic-split", "dev", "--json",
                            "--data-dir", str(data_dir), "--out", str(tmp_path / "scored")))
    ran = json.loads((tmp_path / "en" / "results.json").read_text(encoding="utf-8"))
    assert scored["metrics"]["accuracy"]["value"] == ran["metrics"]["accuracy"]["value"]


@pytest.mark.real_data
def test_wicita_dev_zip_equals_the_organisers_scorer(data_dir, tmp_path):
    for task in ("wicita-binary", "wicita-ranking"):
        run("run", task, "--split", "dev", "--system", "lemma-prior", "--data-dir", str(data_dir), "--out",
            str(tmp_path / task))
    run("wic-submission", str(tmp_path / "wicita-binary"), str(tmp_path / "wicita-ranking"), "-o",
        str(tmp_path / "dev.zip"))
    gold = {f"{part}.jsonl": data_dir / "wic" / "it" / part / "dev.jsonl" for part in ("binary", "ranking")}
    official = organisers_scores(tmp_path / "dev.zip", gold)
    for task, part, metric in (("wicita-binary", "binary", "macro_f1"), ("wicita-ranking", "ranking", "spearman")):
        scored = json.loads(run("score", task, str(tmp_path / "dev.zip"), "--json", "--data-dir", str(data_dir),
                                "--out", str(tmp_path / f"s-{part}")))
        assert scored["n"] == 500 and scored["metrics"][metric]["value"] == pytest.approx(official[f"{part}.jsonl"],
                                                                                          abs=1e-12)
