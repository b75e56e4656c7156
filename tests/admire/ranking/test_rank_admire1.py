"""`admire-a` is AdMIRe 1's shipped ranking task files run by the ranking engine: on EN train, dev, test and xeval
it writes the samples.jsonl and submission file the built-in Subtask A path wrote before it was folded in (the
sha256 below were measured on that code, commit bf446dd, by `scripts/ranking_parity.py`, which compares every
system, part combination and embedder the same way)."""

from __future__ import annotations

import hashlib

import pytest

import senso
from senso.admire.rankfile import builtin_task_file, load_ranking_task, shipped_task

pytestmark = pytest.mark.real_data

# (split) -> (sha256 of samples.jsonl, submission file name, its sha256): `senso run admire-a --lang en --split S
# --system random` on bf446dd
RANDOM_BEFORE = {
    "train": ("21308ed8a50fa33ad3a4ebebb21605ca2a1c644453e4e4d9fa27ad567c5bfd10", "submission_EN.tsv",
              "38f39ca134f095528a6e22813764d637d9af1b3819ffec99ad38ae0b8f7fc443"),
    "dev": ("18aff7d80a300d92b50d5d3b8bd7051d97a165ed4fd6b35bea84d3200f1d155d", "submission_EN.tsv",
            "aed12d57f5cd8ead44629069a6fe4ac0739030de1b94c5d1c418fad7c645c13d"),
    "test": ("89acc2e62982379ef71dfc70f5dcc7dada28403a370eac5cfe562149df66a884", "submission_EN.tsv",
             "175176909aa4484a70742347948d69060ffc45898ac87b2ce39c420d8584d217"),
    "xeval": ("5be61eccb11cd62f1f53d2d2815858e354cf9cdc19a9e4de5ad2b01931daa510", "submission_XE.tsv",
              "bd1a323d22b62d69b08a2f05efae3764aeda2ca3898814a674eb4a4e5da5cda0"),
}


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("split", list(RANDOM_BEFORE))
def test_admire_a_writes_the_samples_and_submission_of_the_builtin_path(data_dir, tmp_path, split):
    samples, name, submission = RANDOM_BEFORE[split]
    result = senso.evaluate("admire-a", system="random", lang="en", split=split, data_dir=data_dir, out=tmp_path)
    assert result.task == "admire-a" and result.results["ranking_task"]["name"] == "admire1-a-en"
    assert _sha(tmp_path / "samples.jsonl") == samples
    assert _sha(tmp_path / name) == submission
    assert result.results["n_official"] == {"train": 70, "dev": 15, "test": 15, "xeval": 100}[split]


def test_the_shipped_files_name_every_split_and_the_official_keys(data_dir):
    for lang, rows in (("en", [70, 15, 15, 100]), ("pt", [32, 10, 13, 55])):
        task = load_ranking_task(builtin_task_file(f"admire1-a-{lang}"))
        assert task.splits == ("train", "dev", "test", "xeval") and task.languages == (lang,)
        assert [d.rows for d in task.data] == rows and task.training == ("train", "dev")
        assert task.default_system == "fitted-pipeline" and task.leaderboard_splits == ("test", "xeval")
    en = shipped_task("admire-a", "en")
    assert [d.submission for d in en.data] == ["submission_EN.tsv"] * 3 + ["submission_XE.tsv"]
    assert [d.targets for d in en.data][-1] == "admire/reference/a_xe_test_targets.tsv"
