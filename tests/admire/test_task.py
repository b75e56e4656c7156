"""The steps every AdMIRe plan shares (`senso.admire.task`): splits named once, why a run is partial and what its
PARTIAL warning says, where its gold came from."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from senso.admire.task import gold_source, partial_reason, partial_warnings, split_names
from senso.core.errors import SensoError


def test_split_names_each_once_each_of_admire():
    assert split_names("train+dev") == ["train", "dev"]
    with pytest.raises(SensoError, match=r"split 'dev\+dev' names a split twice"):
        split_names("dev+dev")
    with pytest.raises(SensoError, match="unknown AdMIRe split 'validation'; choose from train, dev, test, xeval"):
        split_names("train+validation")


def test_partial_reason_is_the_limit_else_what_the_system_answers():
    submission = SimpleNamespace(partial_reason="the submission has 3 rows")
    assert partial_reason(2, submission, 2, 5) == "--limit 2"
    assert partial_reason(None, submission, 3, 5) == "the submission has 3 rows"
    assert partial_reason(None, submission, 5, 5) is None
    assert partial_reason(None, object(), 3, 5) is None


def test_partial_warnings_with_and_without_an_official_size():
    assert partial_warnings(15, 15, 15, None, "en", "dev") == []
    assert partial_warnings(2, 15, 15, "--limit 2", "en", "dev") == [
        "PARTIAL: 2 of the 15 items of the official en dev split (--limit 2); not comparable to the leaderboard"]
    assert partial_warnings(10, 15, 10, None, "en", "dev") == [
        "PARTIAL: the data file has 10 items, the official split 15; not comparable to the leaderboard"]
    assert partial_warnings(5, None, 15, "--limit 5", "pt", "dev") == [
        "PARTIAL: the first 5 items (--limit 5) of pt dev"]
    assert partial_warnings(15, None, 15, None, "pt", "dev") == []


def test_gold_source_names_the_targets_else_the_data_files(tmp_path):
    data, targets = tmp_path / "data.tsv", tmp_path / "targets.tsv"
    assert gold_source([data], [targets]) == str(targets.resolve())
    assert gold_source([data], []) == f"{data.resolve()} (gold columns)"
