"""Train anywhere, test anywhere: a ranking task file whose training rows are AdMIRe 1's English train rows and
whose test rows are Russian, Greek and Chinese (AdMIRe 2's layout, tiny PNGs). A fitted system fits on the file's
training rows and ranks every language its embedders serve, saying so; `senso report` and `senso export` read the
run per language through its task file."""

from __future__ import annotations

import csv
import re

import pytest

import senso
from senso.admire.data import read_tsv

from rank_fixtures import COLUMNS, write_dataset, write_rows

pytestmark = pytest.mark.real_data
N_TRAIN = 20  # AdMIRe 1 EN train rows the test fits on (the first ones: a fit on all 70 is the benchmark's job)


@pytest.fixture()
def task(tmp_path, data_dir):
    _, rows = read_tsv(data_dir / "admire" / "subtask_a" / "en" / "train" / "subtask_a_train.tsv", ("compound",))
    english = write_rows(tmp_path / "admire2" / "en" / "train.tsv", [row for _, row in rows[:N_TRAIN]],
                         [c for c in COLUMNS if c != "idiom_id"])
    path = write_dataset(tmp_path / "admire2")
    text = path.read_text(encoding="utf-8").replace('split = "train"', 'split = "train-own"')
    text = text.replace('pair = "idiom_id"', 'training = ["train"]')
    path.write_text(text + f'\n[[data]]\nfile = "{english.relative_to(path.parent)}"\nlanguage = "en"\n'
                           'split = "train"\n', encoding="utf-8")
    return path


def _rows(path):
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_fitted_pipeline_fits_on_the_english_training_rows_and_ranks_three_other_languages(task, tmp_path):
    result = senso.evaluate(task, system="fitted-pipeline", split="test", lang="ru+el+zh", out=tmp_path / "run",
                            role_features="relations")
    fitting = result.results["fitting"]
    assert fitting["fit_on"] == "EN train" and fitting["cross_validated"] is False
    assert any("was fit on the task file's EN train rows and ranks ru, el, zh" in n for n in result.notes)
    assert any("meaning source of this run is none" in n for n in result.notes)
    assert result.results["overlap"]["training"].startswith("EN train")
    for lang in ("RU", "EL", "ZH"):  # each submission has its file's rows, in order
        given = _rows(task.parent / lang.lower() / "test.tsv")
        written = _rows(tmp_path / "run" / f"submission_{lang}.tsv")
        assert [(r["compound"], r["sentence"]) for r in written] == [(r["compound"], r["sentence"]) for r in given]


def test_report_and_export_read_a_multilingual_run_per_language(task, tmp_path):
    from senso.exporting.publish import export_runs
    from senso.reporting import write_report

    result = senso.evaluate(task, system="caption-similarity", split="train-own", out=tmp_path / "run")
    page = write_report([result.run_dir]).read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "could not read" not in text and "(no caption available)" not in text
    assert "белая птица на снегу" in text and "草原上的一匹马" in text  # captions of each language, read again
    folder = export_runs([result.run_dir], to=tmp_path / "export").folder
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "tiny-admire2" in card


def test_a_fitted_sense_fits_on_the_task_files_training_rows(task, tmp_path):
    """`--sense fitted` in a ranking task file's run learns from the file's training rows (read when it asks)."""
    result = senso.evaluate(task, system="sense-pipeline", sense="fitted", split="test", lang="ru", out=tmp_path / "run")
    sense = result.results["model"]["sense"]
    assert sense["name"] == "fitted" and sense["n_fitted_compounds"] == N_TRAIN
    assert result.results["model"]["training_free"] is False
