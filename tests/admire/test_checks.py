"""The checks of admire-b and admire-sense read their one declaration, the family's `Task`: languages (their
captions' too), splits and default system."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from senso.admire.checks import AdmirePlan, check, check_answers
from senso.admire.family import TASKS
from senso.catalog import RunOptions
from senso.core.errors import SensoError

BY_NAME = {task.name: task for task in TASKS}


def test_defaults_come_from_the_task():
    checked = check(BY_NAME["admire-b"], RunOptions(task="admire-b"))
    assert (checked.options.lang, checked.options.split, checked.splits) == ("en", "dev", ["dev"])
    assert checked.row.name == "random" and checked.row.subtask == "b"
    sense = check(BY_NAME["admire-sense"], RunOptions(task="admire-sense", lang="pt", split="train+dev"))
    assert sense.row.name == "sense-classifier" and sense.splits == ["train", "dev"]


@pytest.mark.parametrize("task, given, message", [
    ("admire-b", {"lang": "pt"}, r"admire-b has no language 'pt' \(--lang\); choose from en"),
    ("admire-b", {"caption_lang": "pt"}, "--caption-lang 'pt': admire-b has en captions"),
    ("admire-sense", {"caption_lang": "de"}, "--caption-lang 'de': admire-sense has en or pt captions"),
    ("admire-sense", {"split": "dev+dev"}, r"split 'dev\+dev' names a split twice"),
    ("admire-b", {"split": "train+dev", "gold": __file__}, "--gold holds one split's targets"),
    ("admire-b", {"system": "nope"}, "unknown admire-b system 'nope'; choose from random, sequence-continuation"),
])
def test_refusals_name_the_task(task, given, message):
    with pytest.raises(SensoError, match=message):
        check(BY_NAME[task], RunOptions(task=task, **given))


def test_one_answer_per_item():
    check_answers("mine", [1, 2], ["a", "b"], "answers")
    with pytest.raises(SensoError, match="system 'mine' returned 1 decisions for 2 items"):
        check_answers("mine", [1], ["a", "b"], "decisions")


def test_overlap_marks_each_sample_and_places_only_on_a_leaderboard_split():
    from senso.admire.overlap import TrainingIndex

    plan = _plan(0)
    plan.items = [SimpleNamespace(compound=c, candidates=()) for c in ("seen", "new")]
    index = TrainingIndex(frozenset({"seen"}), None, None, "the compounds the system was fit on")
    samples = [SimpleNamespace(overlap=None) for _ in plan.items]
    rows = [{"sentence_type": "literal", "image_accuracy": v} for v in (1.0, 0.0)]
    record = plan.overlap(samples, rows, index, ["image_accuracy"], on_board=True)
    assert [s.overlap["compound"] for s in samples] == [True, False]
    assert record["overlap"]["n_seen"] == 1 and record["unseen"]["n"] == 1
    assert record["unseen"]["image_accuracy"]["value"] == 0.0 and record["placement"].startswith("Not ranked")
    assert "placement" not in plan.overlap(samples, None, index, ["image_accuracy"])
    assert plan.overlap(samples, rows, None, ["image_accuracy"], on_board=True) == {}  # a training-free system


def _plan(n_items, limit=None, lang="en", split="dev", system=None):
    items = [SimpleNamespace(compound=f"c{i}") for i in range(n_items)]
    options = RunOptions(task="admire-b", lang=lang, split=split, limit=limit)
    system = system or SimpleNamespace(name="mine")
    return AdmirePlan("admire-b", "mine", items, [], {}, [], system, options, "admire-b")


def test_partial_says_why_the_limit_else_what_the_system_answers():
    submission = SimpleNamespace(name="mine", partial_reason="the submission has 3 rows")
    assert _plan(2, limit=2, system=submission).partial(15, 5) == [
        "PARTIAL: 2 of the 15 items of the official en dev split (--limit 2); not comparable to the leaderboard"]
    assert _plan(3, system=submission).partial(15, 5) == [
        "PARTIAL: 3 of the 15 items of the official en dev split (the submission has 3 rows); not comparable to the "
        "leaderboard"]
    assert _plan(15).partial(15, 15) == []
    assert _plan(10).partial(15, 10) == [
        "PARTIAL: the data file has 10 items, the official split 15; not comparable to the leaderboard"]


def test_partial_without_an_official_size_only_when_limited():
    assert _plan(5, limit=5, lang="pt").partial(None, 15) == ["PARTIAL: the first 5 items (--limit 5) of pt dev"]
    assert _plan(15, lang="pt").partial(None, 15) == []
    assert _plan(3, system=SimpleNamespace(name="mine", partial_reason="fewer rows")).partial(None, 3) == []


def test_hygiene_names_the_compounds_the_system_was_fit_on():
    fitted = SimpleNamespace(name="mine", fitted_compounds=frozenset({"c0", "c1", "other"}))
    assert _plan(4, system=fitted).hygiene() == [
        "SPLIT HYGIENE: system 'mine' was fit on 2 of the 4 compounds of this dev split (c0, c1); its scores here "
        "overstate what it does on unseen compounds (xeval shares every compound, with identical captions, with "
        "train/dev/test)"]
    assert _plan(4).hygiene() == []
