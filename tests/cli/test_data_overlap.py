"""`senso data overlap`: AdMIRe's xeval against train+dev (the real inputs), and a Likert task file's groups and
texts against another data file, a supervised run's own overlap record, and a fitted model file."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from senso.backends.embedders import Embedder
from senso.cli import app

sys.path.insert(0, str(Path(__file__).parents[1] / "likert"))
from test_taskfile_run import _hash_embed, readme_task_file  # noqa: E402

ROWS = [  # (id, group, text, word, rating)
    ("a1", "dog", "The dog sleeps on the table.", "dog", 6.5), ("a2", "dog", "A dog is a loyal friend.", "dog", 4.9),
    ("a3", "dog", "Every dog needs a walk.", "dog", 5.5), ("b1", "table", "The dog sleeps on the table.", "table", 6.8),
    ("b2", "table", "The table is made of oak.", "table", 6.4), ("b3", "table", "A table needs four legs.", "table", 5.1),
    ("c1", "idea", "She had an idea at noon.", "idea", 2.1), ("c2", "idea", "The idea of progress is old.", "idea", 1.2),
    ("c3", "idea", "That idea sounds good.", "idea", 2.6),
]


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    assert result.exit_code == 0, (result.output, result.exception)
    return " ".join(result.output.split())


def write_items(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "text", "word", "rating", "lemma", "domain"])
        for k, (item_id, group, text, word, rating) in enumerate(rows):
            writer.writerow([item_id, text, word, rating, group, "news" if k % 2 else "fiction"])
    return path


@pytest.fixture()
def task(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: _hash_embed(texts, kind))
    write_items(tmp_path / "data" / "items.csv", ROWS)
    path = tmp_path / "data" / "concreteness.toml"
    path.write_text(readme_task_file(), encoding="utf-8")
    return path


@pytest.mark.real_data
def test_admire_xeval_shares_85_compounds_and_their_captions_with_train_dev(data_dir):
    output = invoke("data", "overlap", "admire-a", "--train", "train+dev", "--eval", "xeval", "--data-dir", data_dir)
    assert "85 of the 100 items of en xeval share material with en train+dev" in output
    assert "85 shared compounds, 0 shared sentences, 425 identical captions." in output
    test = invoke("data", "overlap", "admire-a", "--train", "train+dev", "--eval", "test", "--data-dir", data_dir)
    assert "0 shared compounds" in test


def test_likert_task_file_lists_shared_groups_and_texts(task, tmp_path):
    new = write_items(tmp_path / "new.csv", [("n1", "dog", "A dog barks.", "dog", 5.0),
                                            ("n2", "tree", "The dog sleeps on the table.", "dog", 5.0),
                                            ("n3", "tree", "A tree grows.", "tree", 6.0)])
    output = invoke("data", "overlap", task, "--train", task.parent / "items.csv", "--eval", new)
    assert "2 of the 3 items" in output and "1 shared groups (dog); 1 items share their text." in output
    assert "a1, b1" in output  # the training items with n2's text


def test_supervised_run_records_overlap_and_unseen(task, tmp_path):
    out = tmp_path / "run"
    invoke("run", task, "--system", "embedding-ridge", "--embedder", "st:fake", "--out", out)
    results = json.loads((out / "results.json").read_text())
    # leave-one-lemma-out: no item shares its lemma; a1 and b1 share their text with the other's fold
    assert results["overlap"]["shared"] == {"group": 0, "text": 2} and results["overlap"]["n_seen"] == 2
    assert results["unseen"]["n"] == 7 and {"value", "ci_low", "ci_high"} <= set(results["unseen"]["pearson"])
    samples = {json.loads(line)["id"]: json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()}
    assert samples["a1"]["overlap"] == {"group": False, "text": True}
    model = tmp_path / "model.json"
    invoke("fit", task, "--system", "embedding-ridge", "--embedder", "st:fake", "-o", model)
    output = invoke("data", "overlap", task, "--train", model)
    assert "9 of the 9 items" in output and "3 shared groups" in output


def test_a_missing_file_is_named_with_its_flag(task, tmp_path):
    result = CliRunner().invoke(app, ["data", "overlap", str(task), "--train", str(tmp_path / "none.csv")])
    assert result.exit_code != 0 and "--train" in str(result.exception) and "none.csv: no such file" in str(result.exception)
    result = CliRunner().invoke(app, ["data", "overlap", str(task), "--train", str(task.parent / "items.csv"),
                                      "--eval", str(tmp_path / "gone.csv")])
    assert result.exit_code != 0 and "--eval" in str(result.exception) and "gone.csv: no such file" in str(result.exception)
