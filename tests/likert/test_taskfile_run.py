"""A new data set on a 1-7 scale, as a task file: the README's example, run end to end through the CLI with
`likert-lm` (a tiny random transformers model) and `embedding-ridge` (leave-one-group-out, a hash embedder),
its report page, fit/predict, and `senso tasks` / `senso systems`."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from senso.backends.embedders import Embedder
from senso.cli import app

REPO = Path(__file__).resolve().parents[2]
GROUPS = ("dog", "idea", "table", "freedom")
# (group, sentence, rating 1-7): 12 rows, 4 groups, 2 domains
ROWS = [
    ("dog", "The dog sleeps on the mat.", 6.8), ("dog", "A dog is a loyal friend.", 4.9),
    ("dog", "Every dog needs a walk.", 5.5), ("idea", "She had an idea at noon.", 2.1),
    ("idea", "The idea of progress is old.", 1.2), ("idea", "That idea sounds good.", 2.6),
    ("table", "Put the cup on the table.", 6.9), ("table", "The table is made of oak.", 6.4),
    ("table", "A table needs four legs.", 5.1), ("freedom", "Freedom matters to all.", 1.4),
    ("freedom", "They fought for freedom.", 1.9), ("freedom", "Freedom of speech is law.", 2.4),
]


def readme_task_file() -> str:
    """The TOML block after the task-file-example marker in README.md (the documented example, run as is)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- task-file-example[^\n]*-->\n```toml\n(.*?)```", text, re.S)
    assert match, "README.md lost its task-file example"
    return match.group(1)


def write_dataset(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "items.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "text", "word", "rating", "lemma", "domain"])
        for k, (group, text, rating) in enumerate(ROWS):
            word = next(w for w in (group, group.capitalize()) if w in text)
            writer.writerow([f"item{k}", text, word, rating, group, "fiction" if k % 2 else "news"])
    path = folder / "concreteness.toml"
    path.write_text(readme_task_file(), encoding="utf-8")
    return path


def _hash_embed(texts, kind):
    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.sha256(f"{kind}|{text}".encode()).digest()[:8], "little")
        rows.append(np.random.default_rng(seed).normal(size=16))
    return np.asarray(rows, dtype=np.float32)


def invoke(args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def check_run_folder(out: Path, system: str) -> tuple[dict, list[dict]]:
    results = json.loads((out / "results.json").read_text())
    config = json.loads((out / "config.json").read_text())
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert results["task"] == "concreteness-en" and results["system"] == system and results["n"] == 12
    assert set(results["metrics"]) == {"pearson", "spearman", "pearson_expected_vs_gold",
                                       "pearson_expected_vs_mean", "accuracy"}
    assert set(results["metrics_by_group"]) == {"fiction", "news"}
    assert results["likert_task"]["labels"] == [1, 2, 3, 4, 5, 6, 7]
    assert set(config) >= {"task", "system", "model", "options", "data_files"}
    assert config["data_files"][0]["path"] == str(out.parent / "data" / "items.csv")
    assert len(config["data_files"][0]["sha256"]) == 64
    gold = {f"item{k}": round(r) for k, (_, _, r) in enumerate(ROWS)}  # gold_range == scale: "round"
    assert {s["id"]: s["gold"] for s in samples} == gold
    assert all(1 <= s["prediction"] <= 7 for s in samples)
    return results, samples


def test_likert_lm_zero_and_few_shot_on_a_1_to_7_task_file(tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    task = write_dataset(tmp_path / "data")
    out = tmp_path / "lm"
    invoke(["run", str(task), "--model", f"hf:{tiny_model}", "--out", str(out), "--batch-size", "4"])
    results, samples = check_run_folder(out, "likert-lm")
    assert results["protocol"] == "zero-shot" and results["shots"] == 0
    assert all(len(s["logprobs"]) == 7 for s in samples)
    for s in samples:  # the answer is the most likely of the seven labels, ties to the lower
        assert s["prediction"] == 1 + int(np.argmax(s["logprobs"]))
    assert json.loads((out / "config.json").read_text())["model"] == f"hf:{tiny_model}"

    few = tmp_path / "few"
    invoke(["run", str(task), "--model", f"hf:{tiny_model}", "--out", str(few), "--protocol", "few-shot",
            "--shots", "2"])
    results, _ = check_run_folder(few, "likert-lm")
    assert results["protocol"] == "few-shot" and results["shots"] == 2
    lemma = {f"item{k}": g for k, (g, _, _) in enumerate(ROWS)}
    for item_id, exemplars in results["exemplar_ids"].items():
        assert len(exemplars) == 2 and all(lemma[e] != lemma[item_id] for e in exemplars)

    page = invoke(["report", str(out)]).output.strip().replace("\n", "")
    html = Path(page).read_text(encoding="utf-8")
    assert "gold 7" in html and "pred 7" in html and "The <mark>dog</mark> sleeps on the mat." in html
    assert "No published figures for concreteness-en" in html


def test_embedding_ridge_leave_one_group_out_fit_and_predict(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: _hash_embed(texts, kind))
    task = write_dataset(tmp_path / "data")
    out = tmp_path / "ridge"
    invoke(["run", str(task), "--system", "embedding-ridge", "--embedder", "st:fake", "--out", str(out)])
    results, samples = check_run_folder(out, "embedding-ridge")
    assert results["supervised"] is True and "leave-one-group-out" in results["protocol"]
    lemma = {f"item{k}": g for k, (g, _, _) in enumerate(ROWS)}
    assert {s["fold"] for s in samples} == set(GROUPS)
    assert all(s["fold"] == lemma[s["id"]] for s in samples)  # each prediction from a model without its group
    assert all(1.0 <= s["pred_clipped"] <= 7.0 and s["prediction"] == round(s["pred_clipped"]) for s in samples)
    html = Path(invoke(["report", str(out)]).output.strip().replace("\n", "")).read_text()
    assert "gold 7" in html
    # the README's file names no group_noun: its groups are "group"s on the page, not ABRICOT's lemmas
    assert "<h2>Per group</h2>" in html and "coloured by group" in html and "<th>group</th>" in html
    assert "Per lemma" not in html and "by lemma" not in html and "<th>lemma</th>" not in html

    model = tmp_path / "conc.model"
    invoke(["fit", str(task), "--embedder", "st:fake", "-o", str(model)])
    new = tmp_path / "new.csv"
    new.write_text("id,text,word\nn1,A cat on the sofa.,cat\n", encoding="utf-8")
    invoke(["predict", str(model), str(new), "-o", str(tmp_path / "scored.csv")])
    with (tmp_path / "scored.csv").open(encoding="utf-8") as fh:
        header, row = list(csv.reader(fh))
    assert header[-2:] == ["concreteness_en_pred", "concreteness_en_pred_label"]
    assert 1.0 <= float(row[-2]) <= 7.0 and int(row[-1]) == round(float(row[-2]))


def test_bad_task_file_is_a_clear_cli_error(tmp_path):
    task = write_dataset(tmp_path / "data")
    task.write_text(task.read_text().replace("scale = [1, 7]", "scale = [4, 4]"))
    result = CliRunner().invoke(app, ["run", str(task)])
    assert result.exit_code != 0
    assert f"{task}, key 'scale'" in str(result.exception) and "at least two labels" in str(result.exception)
    task = write_dataset(tmp_path / "data")
    result = CliRunner().invoke(app, ["run", str(task), "--system", "nope"])
    assert "unknown Likert system 'nope'; choose from likert-lm, embedding-ridge, likert-generate" in str(result.exception)


def test_tasks_and_systems_list_both_families():
    tasks = " ".join(invoke(["tasks"]).output.split())
    for name in ("abricot-abs", "abricot-inc", "admire-a", "admire-b", "admire-sense", "path/to/task.toml"):
        assert name in tasks
    assert "ABRICOT abstractness" in tasks
    systems = " ".join(invoke(["systems"]).output.split())
    for name in ("likert-lm", "embedding-ridge", "likert-generate", "sense-pipeline", "caption-similarity"):
        assert name in systems


def test_tab_separated_data_by_suffix_for_run_fit_and_predict(tmp_path, monkeypatch):
    """data = "items.tsv": read by tabs (a comma inside a sentence is text); predict reads and writes .tsv by tabs."""
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: _hash_embed(texts, kind))
    task = write_dataset(tmp_path / "data")
    with (tmp_path / "data" / "items.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    rows[1][1] = rows[1][1].replace("sleeps", "sleeps, snoring,")
    with (tmp_path / "data" / "items.tsv").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter="\t").writerows(rows)
    (tmp_path / "data" / "items.csv").unlink()
    task.write_text(task.read_text().replace('"items.csv"', '"items.tsv"'))
    out = tmp_path / "ridge"
    invoke(["run", str(task), "--system", "embedding-ridge", "--embedder", "st:fake", "--out", str(out)])
    results = json.loads((out / "results.json").read_text())
    assert results["n"] == 12 and results["likert_task"]["delimiter"] is None
    report_html = Path(invoke(["report", str(out)]).output.strip().replace("\n", "")).read_text()
    assert "The <mark>dog</mark> sleeps, snoring, on the mat." in report_html  # the page read the .tsv too
    model = tmp_path / "conc.model"
    invoke(["fit", str(task), "--embedder", "st:fake", "-o", str(model)])
    (tmp_path / "new.tsv").write_text("id\ttext\tword\nn1\tA cat, asleep, on the sofa.\tcat\n", encoding="utf-8")
    invoke(["predict", str(model), str(tmp_path / "new.tsv"), "-o", str(tmp_path / "scored.tsv")])
    header, row = [line.split("\t") for line in (tmp_path / "scored.tsv").read_text(encoding="utf-8").splitlines()]
    assert header == ["id", "text", "word", "concreteness_en_pred", "concreteness_en_pred_label"]
    assert row[1] == "A cat, asleep, on the sofa." and 1 <= int(row[-1]) <= 7


def test_an_explicit_delimiter_and_a_bad_one(tmp_path):
    from senso.likert.taskfile import TaskFileError, load_task_file

    task = write_dataset(tmp_path / "data")
    text = task.read_text()
    with (tmp_path / "data" / "items.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    with (tmp_path / "data" / "items.txt").open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter=";").writerows(rows)
    task.write_text('delimiter = ";"\n' + text.replace('"items.csv"', '"items.txt"'))
    parsed = load_task_file(task)
    assert parsed.delimiter_for("any.tsv") == ";" and len(parsed.load_items(parsed.locate_data())) == 12
    task.write_text('delimiter = "tab"\n' + text)
    with pytest.raises(TaskFileError, match=r"key 'delimiter': 'tab' is not a field separator senso reads; write one "
                                            r"of ',' \(comma\), '\\t' \(tab\)"):
        load_task_file(task)
