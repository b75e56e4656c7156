"""Fixtures of the report tests: small data folders and real run folders written by the runners."""

from __future__ import annotations

import csv
import functools
import shutil
from pathlib import Path

import pytest
from report_fixtures import (
    A_COLUMNS, A_ITEMS, ABRICOT_ROWS, ANSWERS_A, ANSWERS_B, B_COLUMNS, COLOURS, AnswerModel, write_tsv,
)

from senso.api import evaluate
from senso.catalog import RunOptions
from senso.likert.scoring import likert_metrics as ORIGINAL_LIKERT_METRICS


def write_abricot_data(data_dir: Path) -> Path:
    """A data folder holding abricot/dataset_it.csv with the 10 items of ABRICOT_ROWS (UTF-8 with BOM, end inclusive)."""
    path = data_dir / "abricot" / "dataset_it.csv"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["ID", "domain", "begin", "end", "text", "target_token", "target_lemma",
                         "inc_mean", "inc_std", "abs_mean", "abs_std"])
        for item_id, domain, text, token, lemma, abs_mean in ABRICOT_ROWS:
            begin = text.index(token)
            writer.writerow([item_id, domain, begin, begin + len(token) - 1, text, token, lemma,
                             0.5, 0.1, abs_mean, 0.1])
    return data_dir


def make_abricot_run(monkeypatch: pytest.MonkeyPatch, data_dir: Path, out: Path, answers: dict[str, int],
                     task: str = "abricot-abs", limit: int | None = None) -> Path:
    """A real ABRICOT run folder written by the runner, with the answers given; bootstrap intervals from
    100 resamples instead of 1000 (the only change, to keep the tests fast)."""
    from senso.likert import run as runner
    from senso.likert import scoring as abricot_scoring

    fast = functools.partial(ORIGINAL_LIKERT_METRICS, n_resamples=100)
    monkeypatch.setattr(abricot_scoring, "likert_metrics", fast)
    monkeypatch.setattr(runner, "likert_metrics", fast)
    return evaluate(task, model=AnswerModel(answers), data_dir=data_dir, out=out, limit=limit, no_cache=True).run_dir


@pytest.fixture(scope="session")
def abricot_runs(tmp_path_factory) -> dict[str, Path]:
    """Runs "A" and "B" (ANSWERS_A / ANSWERS_B), "const" (always 1) and "A10" (A with --limit 5) on the
    10 items, made once per session; tests that change a run copy it first."""
    root = tmp_path_factory.mktemp("abricot_runs")
    data_dir = write_abricot_data(root / "data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SENSO_CACHE_DIR", str(root / "cache"))
        return {
            "A": make_abricot_run(mp, data_dir, root / "A", ANSWERS_A),
            "B": make_abricot_run(mp, data_dir, root / "B", ANSWERS_B),
            "const": make_abricot_run(mp, data_dir, root / "const", {k: 1 for k in ANSWERS_A}),
            "A5": make_abricot_run(mp, data_dir, root / "A5", ANSWERS_A, limit=5),
            "inc": make_abricot_run(mp, data_dir, root / "inc", ANSWERS_A, task="abricot-inc"),
        }


@pytest.fixture()
def run_copy(tmp_path):
    """copy(run_dir) -> a copy of a run folder under tmp_path, free to change."""
    def copy(run_dir: Path) -> Path:
        target = tmp_path / run_dir.name
        shutil.copytree(run_dir, target)
        return target
    return copy


def write_admire_data(root: Path) -> Path:
    """admire/subtask_a/en/dev: 4 items, 5 real 64x64 PNG images each (folder names with `'` as `_`);
    admire/subtask_b/en/train: 3 items without images. Gold order: image names in file order."""
    from PIL import Image

    split_dir = root / "admire" / "subtask_a" / "en" / "dev"
    rows = []
    for k, (compound, sense, sentence) in enumerate(A_ITEMS):
        names = [f"{k}{n}.png" for n in range(5)]
        row = {"compound": compound, "subset": "Dev", "sentence_type": sense, "sentence": sentence,
               "expected_order": repr(names)}
        folder = split_dir / compound.replace("'", "_")
        folder.mkdir(parents=True)
        for n, name in enumerate(names, 1):
            row[f"image{n}_name"] = name
            row[f"image{n}_caption"] = f"Picture {n} of {compound}: a <b>plain</b> square.\\nSecond line."
            Image.new("RGB", (64, 64), COLOURS[n - 1]).save(folder / name)
        rows.append(row)
    write_tsv(split_dir / "subtask_a_dev.tsv", A_COLUMNS, rows)
    b_rows = []
    for k, (compound, sense) in enumerate([("cold turkey", "idiomatic"), ("seal of approval", "literal"),
                                           ("best man", "idiomatic")]):
        names = [f"b{k}{n}.png" for n in range(4)]
        row = {"compound": compound, "subset": "Train", "sentence_type": sense, "expected_item": names[1],
               "sequence_caption1": f"first picture of {compound}", "sequence_caption2": f"second picture of {compound}"}
        for n, name in enumerate(names, 1):
            row[f"image{n}_name"] = name
            row[f"image{n}_caption"] = f"candidate {n} of {compound}"
        b_rows.append(row)
    write_tsv(root / "admire" / "subtask_b" / "en" / "train" / "subtask_b_train.tsv", B_COLUMNS, b_rows)
    return root


@pytest.fixture(scope="session")
def admire_runs(tmp_path_factory) -> dict[str, Path]:
    """Runs of the seeded random systems on the small AdMIRe data: "A0", "A1" (Subtask A dev, seeds 0 and 1),
    "B0", "B1" (Subtask B train), made once per session; the data folder is under "data"."""
    from senso.api import run as run_admire

    root = tmp_path_factory.mktemp("admire_runs")
    data_dir = write_admire_data(root / "data")
    runs = {"data": data_dir}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SENSO_CACHE_DIR", str(root / "cache"))
        for name, task, split, seed in (("A0", "admire-a", "dev", 0), ("A1", "admire-a", "dev", 1),
                                        ("B0", "admire-b", "train", 0), ("B1", "admire-b", "train", 1)):
            runs[name] = run_admire(RunOptions(task=task, data_dir=data_dir, out=root / name, split=split, lang="en",
                                               system="random", seed=seed, no_cache=True))
    return runs
