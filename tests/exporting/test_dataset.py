"""`senso export RUN ... --to DIR`: the folder `datasets.load_dataset` reads offline, checked against the runs'
own results.json and samples.jsonl (real run folders of ABRICOT and AdMIRe on tiny data)."""

from __future__ import annotations

import json

import pytest
import yaml

from senso.core.errors import SensoError
from senso.core.records import load_results, load_samples
from senso.exporting.dataset import SPLIT, build_export, write_export


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def load(folder, config):
    import datasets

    return datasets.load_dataset(str(folder), config, split=SPLIT).to_list()


def card_metadata(folder):
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1]), text


def test_two_real_runs_load_back_with_datasets(abricot_runs, admire_runs, tmp_path):
    runs = [abricot_runs["A"], admire_runs["A0"], abricot_runs["B"]]
    folder = write_export(build_export(runs), tmp_path / "export")
    metadata, text = card_metadata(folder)
    configs = {c["config_name"]: c for c in metadata["configs"]}
    assert set(configs) == {"abricot-abs", "admire-a", "results"}
    for run in runs:  # the card says each run's exact senso version and command
        results = load_results(run)
        assert results["command"].replace("|", "\\|") in text and results["versions"]["senso"] in text

    abricot = load(folder, "abricot-abs")
    assert [r["run"] for r in abricot] == ["A"] * 10 + ["B"] * 10
    assert {r["model"] for r in abricot} == {"fake:answers"}
    for label in ("A", "B"):
        samples = load_samples(abricot_runs[label])
        rows = [r for r in abricot if r["run"] == label]
        assert [r["id"] for r in rows] == [s["id"] for s in samples]
        assert [r["prediction"] for r in rows] == [s["prediction"] for s in samples]
        assert [r["logprobs"] for r in rows] == [s["logprobs"] for s in samples]
    admire = load(folder, "admire-a")
    assert [r["compound"] for r in admire] == [s["compound"] for s in load_samples(admire_runs["A0"])]
    # per-image scores: (key = image file name, value = score) pairs, whatever the names; a model on every row
    assert [{p["key"]: p["value"] for p in r["scores"]} for r in admire] == [
        s["scores"] for s in load_samples(admire_runs["A0"])]
    assert all(r["model"] for r in admire)

    results = load(folder, "results")
    for run, label in ((abricot_runs["A"], "A"), (admire_runs["A0"], "A0")):
        recorded = load_results(run)
        rows = {(r["metric"], r["group"]): r for r in results if r["run"] == label}
        for metric, estimate in recorded["metrics"].items():
            row = rows[(metric, "all")]
            assert (row["value"], row["ci_low"], row["ci_high"]) == (estimate.get("value"), estimate.get("ci_low"),
                                                                     estimate.get("ci_high"))
            assert row["reason"] == estimate.get("reason") and row["n"] == recorded["n"]
        for group, metrics in recorded["metrics_by_group"].items():
            for metric, estimate in metrics.items():
                assert rows[(metric, group)]["value"] == estimate.get("value")


def test_two_runs_of_one_folder_name_are_told_apart(abricot_runs, run_copy, tmp_path):
    other = tmp_path / "elsewhere" / "A"
    other.parent.mkdir()
    run_copy(abricot_runs["A"]).rename(other)
    export = build_export([abricot_runs["A"], other])
    assert export.labels == ["A", "A-2"]


def test_the_run_folder_keeps_samples_parquet_with_the_same_rows(abricot_runs, admire_runs):
    import pandas as pd

    for run in (abricot_runs["A"], admire_runs["B0"]):
        table = pd.read_parquet(run / "samples.parquet")
        samples = load_samples(run)
        assert list(table.columns) == list(dict.fromkeys(k for s in samples for k in s))
        assert len(table) == len(samples)
        first = json.loads(table.iloc[0].to_json())
        assert first.keys() == samples[0].keys()


@pytest.mark.parametrize("setup, phrase", [
    (lambda tmp: (tmp / "full").mkdir() or (tmp / "full" / "x.txt").write_text("x"), "is not empty"),
    (lambda tmp: (tmp / "full").write_text("x"), "is a file"),
])
def test_the_target_folder_must_be_new_or_empty(abricot_runs, tmp_path, setup, phrase):
    setup(tmp_path)
    with pytest.raises(SensoError, match=phrase):
        write_export(build_export([abricot_runs["A"]]), tmp_path / "full")


def test_a_run_given_twice_is_refused(abricot_runs):
    with pytest.raises(SensoError, match="given twice"):
        build_export([abricot_runs["A"], abricot_runs["A"]])


def test_the_command_writes_the_folder(abricot_runs, tmp_path, capsys, monkeypatch):
    import sys

    from senso.cli import main

    monkeypatch.setattr(sys, "argv", ["senso", "export", str(abricot_runs["A"]), "--to", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code in (0, None)
    assert "configs abricot-abs, results" in capsys.readouterr().err
    assert [r["run"] for r in load(tmp_path / "out", "abricot-abs")] == ["A"] * 10
