"""AdMIRe loaders on the real data in ../shared/data (skipped when absent)."""

from __future__ import annotations

import pytest

from senso.admire.data import load_subtask_b, read_targets
from admire_fixtures import load_a
from senso.admire.submission import official_sizes

pytestmark = pytest.mark.real_data


@pytest.mark.parametrize("split", ["train", "dev", "test", "xeval"])
def test_english_subtask_a_splits_load_with_all_images(data_dir, split):
    items = load_a(data_dir, "en", split, need_images=True)
    assert len(items) == official_sizes()[("a", "en", split)]
    assert all(len(i.images) == 5 and all(img.path is not None for img in i.images) for i in items)
    has_gold = split in ("train", "dev")
    assert all((i.expected_order is not None) == has_gold and (i.sentence_type is not None) == has_gold for i in items)


def test_apostrophe_compounds_find_their_underscore_folders(data_dir):
    items = {i.compound: i for i in load_a(data_dir, "en", "xeval", need_images=True)}
    for compound in ("devil's advocate", "dog's dinner", "cat's eyes", "pig's ear"):
        assert items[compound].images[0].path.parent.name == compound.replace("'", "_")


@pytest.mark.parametrize("split", ["train", "dev"])
def test_reference_targets_agree_with_the_gold_in_the_inputs(data_dir, split):
    gold = data_dir / "admire" / "reference" / f"a_en_{split}_targets.tsv"
    inline = load_a(data_dir, "en", split)
    joined = load_a(data_dir, "en", split, gold=gold)  # raises if anything contradicts
    assert [(i.compound, i.expected_order, i.sentence_type) for i in joined] == [
        (i.compound, i.expected_order, i.sentence_type) for i in inline
    ]


def test_portuguese_targets(data_dir):
    train = read_targets(data_dir / "admire" / "reference" / "a_pt_train_targets.tsv")
    dev = read_targets(data_dir / "admire" / "reference" / "a_pt_dev_targets.tsv")
    assert (len(train), len(dev)) == (32, 10)
    assert {t.sentence_type for t in train + dev} == {"idiomatic", "literal"}


def test_subtask_b(data_dir):
    train = load_subtask_b(data_dir, "en", "train")
    assert len(train) == 20 and all(i.expected_item in [c.name for c in i.candidates] for i in train)
    dev = load_subtask_b(data_dir, "en", "dev", gold=data_dir / "admire" / "reference" / "b_en_dev_targets.tsv")
    assert len(dev) == 5 and all(i.expected_item and i.sentence_type for i in dev)
