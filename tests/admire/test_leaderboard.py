"""Leaderboard placement: the shipped tables, the official rule, choosing the table, inserting runs."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from typer.testing import CliRunner

from senso.cli import app
from senso.core.errors import SensoError
from senso.admire.leaderboard import leaderboards, published_entries, read_resource
from senso.core.placement import place, rank_key

SHIPPED = ("admire_leaderboard.csv", "admire_leaderboard_b.csv", "admire_human.csv", "abricot_results.csv")


@pytest.mark.real_data
@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_tables_are_the_reference_files(reference_dir, name):
    shipped = resources.files("senso").joinpath("resources", name).read_bytes()
    assert shipped == (reference_dir / name).read_bytes()


TABLES = [("a", lang, split, track) for lang in ("en", "pt") for split in ("test", "xeval") for track in ("text+images", "text-only")]
TABLES += [("b", "en", split, track) for split in ("test", "xeval") for track in ("text+images", "text-only")]


@pytest.mark.parametrize("table", TABLES)
def test_official_rule_reproduces_every_published_rank(table):
    entries = published_entries(*table)
    assert entries, f"no entries for {table}"
    assert [e.published_rank for e in entries] == list(range(1, len(entries) + 1))
    keys = [rank_key(e.scores) for e in entries]
    assert keys == sorted(keys)  # published order never contradicts "first metric, second breaking ties"


def _rank(rows, scores):
    where = place(rows, scores)
    return where.rank, where.tied


def test_place_by_hand():
    entries = [e.scores for e in published_entries("a", "en", "test", "text+images")]  # PALI-NLP 0.93/3.52, ...
    assert _rank(entries, (0.9333, 3.50)) == (2, False)  # behind PALI-NLP only
    assert _rank(entries, (0.95, 1.0)) == (1, False)  # Top-1 first, whatever the DCG
    assert _rank(entries, (0.9333, 3.4643)) == (2, True)  # rounds to dutir914's 0.93 / 3.46: a tie
    assert place(entries, (0.9333, 3.4643)).after == 2 and place(entries, (0.9333, 3.4643)).label == "=2"
    assert _rank(entries, (0.0, 0.0)) == (len(entries) + 1, False)
    b = [e.scores for e in published_entries("b", "en", "test", "text+images")]  # all three at 0.60 image accuracy
    assert _rank(b, (0.6, 0.9)) == (2, False)


def _run(tmp_path, name, task="admire-a", split="test", lang="en", track="text-only", metrics=None, n=15, n_official=15):
    run = tmp_path / name
    run.mkdir()
    metrics = {"top1": {"value": 0.6667}, "dcg": {"value": 3.2}} if metrics is None else metrics
    (run / "results.json").write_text(json.dumps({"task": task, "system": "demo", "lang": lang, "split": split,
                                                  "track": track, "metrics": metrics, "n": n, "n_official": n_official}))
    return run


def test_runs_are_inserted_into_the_table_their_track_and_split_choose(tmp_path):
    boards = leaderboards([_run(tmp_path, "r1"), _run(tmp_path, "r2", split="xeval", track="text+images", n=100, n_official=100)])
    assert [(b.lang, b.split, b.track) for b in boards] == [("en", "test", "text-only"), ("en", "xeval", "text+images")]
    text_only = boards[0]
    labels = [entry.label for _, entry, _ in text_only.rows]
    # 0.67 / 3.20 beats PoliTo and daalft (0.67 / 3.07), trails CTYUN-AI (0.87)
    assert labels[:2] == ["CTYUN-AI", "▶ demo (r1)"]
    rank, entry, tied = text_only.rows[1]
    assert rank == 2 and not tied and entry.exact == (0.6667, 3.2)
    assert [who for who, _ in boards[1].references] == ["annotator average", "best individual annotator", "pool of experts (mean rank)"]


def test_leaderboard_refusals(tmp_path):
    with pytest.raises(SensoError, match="gold is needed"):
        leaderboards([_run(tmp_path, "nogold", metrics={})])
    with pytest.raises(SensoError, match="test and xeval splits only"):
        leaderboards([_run(tmp_path, "dev", split="dev")])
    with pytest.raises(SensoError, match="partial run is not comparable"):
        leaderboards([_run(tmp_path, "part", n=3)])
    assert leaderboards([tmp_path / "part"], allow_partial=True)[0].rows
    with pytest.raises(SensoError, match="no results.json"):
        leaderboards([tmp_path / "missing"])


def test_subtask_b_run(tmp_path):
    run = _run(tmp_path, "b", task="admire-b", metrics={"image_accuracy": {"value": 0.8}, "sentence_type_accuracy": {"value": 1.0}},
               n=5, n_official=5)
    board = leaderboards([run])[0]
    assert board.metrics == ("image_accuracy", "sentence_type_accuracy")
    assert [e.label for _, e, _ in board.rows][:2] == ["daalft", "▶ demo (b)"]  # text-only: daalft 1.00, then 0.80/1.00 ahead of Transformer25 0.80/0.60


def test_cli_prints_the_table(tmp_path):
    result = CliRunner().invoke(app, ["leaderboard", str(_run(tmp_path, "r1"))], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Subtask A | en | text-only | test set" in result.output and "demo (r1)" in result.output
    assert "0.67 (0.6667)" in result.output


def test_cli_says_a_tie_on_both_rows_and_explains_a_shared_rank(tmp_path):
    """0.9333 / 3.4643 rounds to dutir914's 0.93 / 3.46 (rank 2): both rows read `=2`, never two plain 2s;
    0.9333 / 3.50 ranks 2 ahead of dutir914 without a tie: the shared number is explained."""
    tie = _run(tmp_path, "tie", track="text+images", metrics={"top1": {"value": 0.9333}, "dcg": {"value": 3.4643}})
    result = CliRunner().invoke(app, ["leaderboard", str(tie)], terminal_width=200)
    assert result.exit_code == 0, result.output
    rank_cells = [line.split("│")[1].strip() for line in result.output.splitlines()
                  if "dutir914" in line or "demo (tie)" in line]
    assert rank_cells == ["=2", "=2"], result.output
    assert "=N: tied at rank N" in result.output
    ahead = _run(tmp_path, "ahead", track="text+images", metrics={"top1": {"value": 0.9333}, "dcg": {"value": 3.5}})
    result = CliRunner().invoke(app, ["leaderboard", str(ahead)], terminal_width=200)
    assert "ranks 2: ahead of the published entry ranked 2, which it would push to 3" in " ".join(result.output.split())


def test_human_table_is_readable():
    rows = read_resource("admire_human.csv")
    assert rows[0]["set"] == "A en xeval" and rows[0]["top1"] == "0.71"
