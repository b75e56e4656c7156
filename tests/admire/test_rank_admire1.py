"""AdMIRe 1 Subtask A through its shipped ranking task file gives the built-in admire-a's samples.jsonl and
submission file, byte for byte, on EN train and dev (random and caption-similarity: the fast systems)."""

from __future__ import annotations

import json

import pytest

import senso
from senso.admire.rankfile import builtin_task_file, load_ranking_task

pytestmark = pytest.mark.real_data


def _lines(result) -> list[str]:
    return [json.dumps(s.to_json(), ensure_ascii=False) for s in result.samples]


@pytest.mark.parametrize("system", ["random", "caption-similarity"])
@pytest.mark.parametrize("split", ["train", "dev"])
def test_the_task_file_gives_the_builtin_samples_and_submission(data_dir, tmp_path, split, system):
    builtin = senso.evaluate("admire-a", system=system, split=split, data_dir=data_dir, out=tmp_path / "a")
    through_file = senso.evaluate(builtin_task_file("admire1-a-en"), system=system, split=split, data_dir=data_dir,
                                  out=tmp_path / "b")
    assert _lines(through_file) == _lines(builtin)
    assert (tmp_path / "b" / "samples.jsonl").read_bytes() == (tmp_path / "a" / "samples.jsonl").read_bytes()
    assert (tmp_path / "b" / "submission_EN.tsv").read_bytes() == (tmp_path / "a" / "submission_EN.tsv").read_bytes()
    assert {k: v.value for k, v in through_file.metrics.items()} == {k: v.value for k, v in builtin.metrics.items()}


@pytest.mark.parametrize("split, name", [("test", "submission_EN.tsv"), ("xeval", "submission_XE.tsv")])
def test_without_gold_the_task_file_writes_the_builtin_submission(data_dir, tmp_path, split, name):
    builtin = senso.evaluate("admire-a", system="random", split=split, data_dir=data_dir, out=tmp_path / "a")
    through_file = senso.evaluate(builtin_task_file("admire1-a-en"), system="random", split=split, data_dir=data_dir,
                                  out=tmp_path / "b")
    for result in (builtin, through_file):  # no gold: every metric undefined, saying why
        assert {"top1", "dcg"} <= set(result.metrics)
        assert all(e.value is None and "no gold" in e.reason for e in result.metrics.values())
    assert _lines(through_file) == _lines(builtin)
    assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "a" / name).read_bytes()


def test_the_shipped_files_name_every_split(data_dir):
    for lang in ("en", "pt"):
        task = load_ranking_task(builtin_task_file(f"admire1-a-{lang}"))
        assert task.splits == ("train", "dev", "test", "xeval") and task.languages == (lang,)
    en = load_ranking_task(builtin_task_file("admire1-a-en"))
    assert [d.submission for d in en.data] == ["submission_EN.tsv"] * 3 + ["submission_XE.tsv"]
