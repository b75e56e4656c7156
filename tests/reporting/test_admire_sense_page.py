import json

from typer.testing import CliRunner

from senso.cli import app
from senso.admire.page import admire_sense_rows


def test_sense_rows_mark_the_compound_and_correctness():
    rows = admire_sense_rows([
        {"compound": "bad apple", "sentence": "One bad apple spoils it.", "sentence_type": "idiomatic",
         "predicted_sentence_type": "literal", "p_idiomatic": 0.3},
        {"compound": "bad apple", "sentence": "Bad apples rot.", "sentence_type": None,
         "predicted_sentence_type": "literal", "p_idiomatic": 0.1},
    ])
    assert "<mark>bad apple</mark>" in str(rows[0]["sentence"]) and rows[0]["correct"] is False
    assert rows[1]["correct"] is None


def test_sense_run_gets_a_page(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    # the first 9 dev items: the default system gets most right and one wrong each way (items 8 and 9)
    result = CliRunner().invoke(app, ["run", "admire-sense", "--lang", "en", "--split", "dev", "--limit", "9",
                                      "--data-dir", str(data_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    n_wrong = sum(1 for s in samples if s["predicted_sentence_type"] != s["sentence_type"])
    assert html.count('class="badge no"') == n_wrong and "Literal vs idiomatic" in html


def test_two_sense_runs_are_compared_on_sense_accuracy(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    runs = {}
    for name, sense in (("a", "context-similarity"), ("b", "caption-contrast")):
        runs[name] = tmp_path / name
        result = CliRunner().invoke(app, ["run", "admire-sense", "--split", "dev", "--set", f"sense={sense}",
                                          "--data-dir", str(data_dir), "--out", str(runs[name]), "--quiet"])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["compare", str(runs["a"]), str(runs["b"]), "--json"])
    assert result.exit_code == 0, result.output
    differences = json.loads(result.output)["differences"]
    overall = next(d for d in differences if d["group"] == "all" and d["metric"] == "sense_accuracy")
    accuracy = {name: json.loads((run / "results.json").read_text())["metrics"]["sense_accuracy"]["value"]
                for name, run in runs.items()}
    assert overall["n"] == 15 and overall["value_a"] == accuracy["a"] and overall["value_b"] == accuracy["b"]
    result = CliRunner().invoke(app, ["report", str(runs["a"]), str(runs["b"]), "-o", str(tmp_path / "cmp.html")])
    assert result.exit_code == 0, result.output
    assert "sense accuracy" in (tmp_path / "cmp.html").read_text()
