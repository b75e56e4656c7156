"""The four shipped tasks read from the real data: the release's counts, targets where the files put them."""

from __future__ import annotations

import pytest

from senso.wic.data import read_split
from senso.wic.taskfile import shipped_task

COUNTS = {("wic-en", "train"): 5428, ("wic-en", "dev"): 638, ("wic-en", "test"): 1400,
          ("wicita-binary", "train"): 2805, ("wicita-binary", "dev"): 500, ("wicita-binary", "test"): 1000,
          ("wicita-ranking", "train"): 3820, ("wicita-ranking", "dev"): 500, ("wicita-ranking", "test"): 1000}


@pytest.mark.real_data
@pytest.mark.parametrize("task, split", sorted(COUNTS))
def test_shipped_splits_read_whole(data_dir, task, split):
    pairs = read_split(shipped_task(task), split, data_dir)
    assert len(pairs) == COUNTS[task, split]
    assert all(p.first.target.strip() and p.second.target.strip() for p in pairs)
    if split == "test":
        assert {p.langs for p in pairs} == ({"en"} if task == "wic-en" else {"it", "it-en"})
        assert all(p.label is None and p.score is None for p in pairs)


@pytest.mark.real_data
def test_wicita_binary_and_ranking_agree_and_dwug_reads(data_dir):
    binary = read_split(shipped_task("wicita-binary"), "dev", data_dir)
    ranking = {p.pair_id: p.score for p in read_split(shipped_task("wicita-ranking"), "dev", data_dir)}
    assert all(p.label == int(ranking[p.pair_id] >= 3) for p in binary)  # label 1 exactly when score >= 3
    dwug = read_split(shipped_task("dwug-en"), "all", data_dir)
    assert len({p.lemma for p in dwug}) == 46 and len(dwug) == 43784
    assert all(1 <= p.score <= 4 for p in dwug)
