"""What every AdMIRe plan records alike (`senso.admire.task`): splits named once, where its gold came from."""

from __future__ import annotations

import pytest

from senso.admire.task import gold_source, split_names
from senso.core.errors import SensoError


def test_split_names_each_once_each_of_admire():
    assert split_names("train+dev") == ["train", "dev"]
    with pytest.raises(SensoError, match=r"split 'dev\+dev' names a split twice"):
        split_names("dev+dev")
    with pytest.raises(SensoError, match="unknown AdMIRe split 'validation'; choose from train, dev, test, xeval"):
        split_names("train+validation")


def test_gold_source_names_the_targets_else_the_data_files(tmp_path):
    data, targets = tmp_path / "data.tsv", tmp_path / "targets.tsv"
    assert gold_source([data], [targets]) == str(targets.resolve())
    assert gold_source([data], []) == f"{data.resolve()} (gold columns)"
