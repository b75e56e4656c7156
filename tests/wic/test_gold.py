"""The organisers' gold given apart (`--gold`, `senso score --wic-gold`): WiC-ITA's gold_truth folder joined by
pair id, WiC's gold lines by row; gold for too few or unknown pairs refused."""

from __future__ import annotations

import json

import pytest

import senso
from senso.core.errors import DataError, SensoError
from wic_fixtures import SPLITS, make_pairs, write_jsonl, write_wicita


def test_wicita_gold_truth_folder_joined_by_id(tmp_path):
    files = write_wicita(tmp_path / "data")
    truth = tmp_path / "gold_truth" / "binary"
    for split in ("test", "test_eng"):  # the inputs without gold, the gold apart, as the release keeps them
        n, seed, english = SPLITS[split]
        rows = make_pairs(n, seed, f"{split}.", english)
        write_jsonl(tmp_path / "data" / "binary" / f"{split}.jsonl", rows, None)
        write_jsonl(truth / f"{split}.jsonl", [{"id": r["id"], "label": r["label"]} for r in rows], "label")
    blind = senso.evaluate(files["binary"], system="lemma-prior", split="test")
    assert not blind.metrics
    scored = senso.evaluate(files["binary"], system="lemma-prior", split="test", gold=truth)
    assert scored.n == 36 and set(scored.metrics_by_group) == {"it", "it-en"}
    (truth / "test_eng.jsonl").write_text(json.dumps({"id": "nope", "label": 1}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"test_eng\.jsonl: gold for 1 pairs: 16 pair\(s\) .* 1 id\(s\) name no pair"):
        senso.evaluate(files["binary"], system="lemma-prior", split="test", gold=truth)
    with pytest.raises(SensoError, match="the split has 2 files, so give the folder"):
        senso.evaluate(files["binary"], system="lemma-prior", split="test", gold=truth / "test.jsonl")


def test_gold_lines_joined_by_row(tmp_path):
    (tmp_path / "test.txt").write_text("bank\tN\t1-1\tThe bank closed .\tA bank .\n", encoding="utf-8")
    (tmp_path / "t.toml").write_text('kind = "pairs"\nname = "t"\nformat = "tsv"\nheader = false\nnames = ["lemma", '
                                     '"pos", "index", "sentence1", "sentence2"]\ntarget = "tokens"\nsame = "T"\n'
                                     'different = "F"\n[splits]\ntest = ["test.txt"]\n', encoding="utf-8")
    (tmp_path / "test.gold.txt").write_text("T\n", encoding="utf-8")
    result = senso.evaluate(tmp_path / "t.toml", system="word-overlap", gold=tmp_path / "test.gold.txt")
    assert result.samples[0].label == 1 and result.metrics["accuracy"].value is not None
