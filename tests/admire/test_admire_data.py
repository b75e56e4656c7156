"""AdMIRe loaders on fixtures the tests write: layout, Portuguese captions, gold joining, validation."""

from __future__ import annotations

import pytest

from admire_fixtures import a_row, b_row, load_a, write_a_split, write_a_targets, write_b_split, write_tsv
from senso.admire.data import (
    image_folder,
    items_from_targets_a,
    load_splits_b,
    load_subtask_b,
    official_targets,
    read_targets,
    AdmireATarget,
    AdmireBTarget,
)
from senso.core.errors import DataError, DataNotFound, SensoError


def test_loads_a_split_with_gold_and_images(tmp_path):
    write_a_split(tmp_path, "en", "train", [a_row("night owl"), a_row("devil's advocate", first=20, sentence_type="literal")])
    items = load_a(tmp_path, "en", "train", need_images=True)
    assert [i.compound for i in items] == ["night owl", "devil's advocate"]
    owl = items[0]
    assert owl.image_names == ("10.png", "11.png", "12.png", "13.png", "14.png")
    assert owl.expected_order == ("14.png", "13.png", "12.png", "11.png", "10.png")
    assert owl.sentence_type == "idiomatic" and owl.lang == "en"
    assert owl.caption("12.png") == "English caption 3 of night owl"
    # the apostrophe compound's images are found in the `_` folder
    assert items[1].images[0].path == tmp_path / "admire/subtask_a/en/train/devil_s advocate/20.png"


def test_image_folder_prefers_the_exact_name(tmp_path):
    (tmp_path / "dog's dinner").mkdir()
    (tmp_path / "dog_s dinner").mkdir()
    assert image_folder(tmp_path, "dog's dinner") == tmp_path / "dog's dinner"
    assert image_folder(tmp_path, "pig's ear") is None


def test_portuguese_captions_follow_caption_lang(tmp_path):
    write_a_split(tmp_path, "pt", "train", [a_row("cerca viva", pt=True)])
    pt_items = load_a(tmp_path, "pt", "train")
    assert pt_items[0].lang == "pt"
    assert pt_items[0].caption("10.png") == "Legenda 1 de cerca viva"
    en_items = load_a(tmp_path, "pt", "train", caption_lang="en")
    assert en_items[0].caption("10.png") == "English caption 1 of cerca viva"


def test_portuguese_xeval_file_is_the_xp_one(tmp_path):
    write_a_split(tmp_path, "pt", "xeval", [a_row("livro aberto", gold=False, pt=True)])
    items = load_a(tmp_path, "pt", "xeval")
    assert items[0].expected_order is None and items[0].sentence_type is None


def test_english_file_has_no_portuguese_captions(tmp_path):
    write_a_split(tmp_path, "en", "train", [a_row("night owl")])
    with pytest.raises(SensoError, match=r"--caption-lang 'pt': choose from en"):
        load_a(tmp_path, "en", "train", caption_lang="pt")


def test_empty_portuguese_caption_is_refused(tmp_path):
    row = a_row("cerca viva", pt=True)
    row["image3_caption_pt"] = ""
    write_a_split(tmp_path, "pt", "dev", [row])
    with pytest.raises(DataError, match=r"row 1, field 'image3_caption_pt': empty caption"):
        load_a(tmp_path, "pt", "dev")


def test_missing_column(tmp_path):
    path = write_tsv(tmp_path / "admire/subtask_a/en/dev/subtask_a_dev.tsv", [{"compound": "x", "sentence": "y"}])
    with pytest.raises(DataError, match=r"subtask_a_dev.tsv: missing column\(s\) image1_name, image1_caption"):
        load_a(tmp_path, "en", "dev")
    assert path.exists()


@pytest.mark.parametrize(
    "change, match",
    [
        ({"image2_name": "10.png"}, r"row 2, field 'image2_name': image name '10.png' appears twice"),
        ({"expected_order": "10.png, 11.png"}, r"row 2, field 'expected_order': not a Python list literal"),
        ({"expected_order": "['10.png', '11.png']"}, r"row 2, field 'expected_order': expected 5 image names, got 2"),
        ({"expected_order": "['10.png', '11.png', '12.png', '13.png', '99.png']"}, r"row 2, field 'expected_order': not a permutation"),
        ({"sentence_type": "figurative"}, r"row 2, field 'sentence_type': unknown sentence type 'figurative'"),
        ({"sentence": "  "}, r"row 2, field 'sentence': empty sentence"),
    ],
)
def test_validation_names_file_row_and_field(tmp_path, change, match):
    """(A row that repeats an expression and sentence is an item of its own, kept with a warning:
    tests/admire/ranking/test_rank_admire2.py.)"""
    bad = a_row("ghost town")
    bad.update(change)
    write_a_split(tmp_path, "en", "train", [a_row("night owl", first=30), bad], images=False)
    with pytest.raises(DataError, match=r"subtask_a_train.tsv, " + match):
        load_a(tmp_path, "en", "train")


def test_missing_image_only_matters_when_images_are_needed(tmp_path):
    write_a_split(tmp_path, "en", "dev", [a_row("night owl")])
    (tmp_path / "admire/subtask_a/en/dev/night owl/13.png").unlink()
    items = load_a(tmp_path, "en", "dev")
    assert items[0].images[3].path is None and items[0].images[0].path is not None
    with pytest.raises(DataError, match=r"row 1, field 'image4_name': image file missing: .*night owl/13.png"):
        load_a(tmp_path, "en", "dev", need_images=True)


def test_gold_from_targets_is_joined_on_compound(tmp_path):
    rows = [a_row("night owl", gold=False), a_row("ghost town", first=20, gold=False)]
    write_a_split(tmp_path, "en", "test", rows)
    targets = [a_row("ghost town", first=20, sentence_type="literal"), a_row("night owl")]  # other row order
    gold = write_a_targets(tmp_path / "a_en_test_targets.tsv", targets)
    items = load_a(tmp_path, "en", "test", gold=gold)
    assert items[1].compound == "ghost town" and items[1].sentence_type == "literal"
    assert items[1].expected_order == ("24.png", "23.png", "22.png", "21.png", "20.png")


def test_gold_and_inputs_must_agree_on_compounds(tmp_path):
    write_a_split(tmp_path, "en", "test", [a_row("night owl", gold=False), a_row("ghost town", first=20, gold=False)])
    gold = write_a_targets(tmp_path / "gold.tsv", [a_row("night owl"), a_row("bad apple", first=20)])
    with pytest.raises(DataError, match=r"gold.tsv: gold and inputs .* disagree.*gold but not the inputs: \['bad apple'\].*inputs but not the gold: \['ghost town'\]"):
        load_a(tmp_path, "en", "test", gold=gold)


def test_gold_order_must_use_the_item_images(tmp_path):
    write_a_split(tmp_path, "en", "test", [a_row("night owl", gold=False)])
    gold = write_a_targets(tmp_path / "gold.tsv", [a_row("night owl", first=11)])
    with pytest.raises(DataError, match=r"gold.tsv, row 1, field 'expected_order': not a permutation"):
        load_a(tmp_path, "en", "test", gold=gold)


def test_gold_may_not_contradict_gold_in_the_inputs(tmp_path):
    write_a_split(tmp_path, "en", "train", [a_row("night owl")])
    gold = write_a_targets(tmp_path / "gold.tsv", [a_row("night owl", sentence_type="literal")])
    with pytest.raises(DataError, match=r"gold sentence_type 'literal' contradicts 'idiomatic'"):
        load_a(tmp_path, "en", "train", gold=gold)


def test_targets_reader_tells_a_from_b(tmp_path):
    a = write_a_targets(tmp_path / "a.tsv", [a_row("night owl")])
    b = write_tsv(tmp_path / "b.tsv", [{"compound": "x", "subset": "Dev", "sentence_type": "literal", "expected_item": "1.png"}])
    assert isinstance(read_targets(a)[0], AdmireATarget)
    assert read_targets(b) == [AdmireBTarget("x", "Dev", "literal", "1.png", 1)]
    c = write_tsv(tmp_path / "c.tsv", [{"compound": "x", "other": "y"}])
    with pytest.raises(DataError, match="not an AdMIRe targets file"):
        read_targets(c)
    d = write_tsv(tmp_path / "d.tsv", [{"compound": "x", "subset": "Dev", "sentence_type": "", "expected_item": "1.png"}])
    with pytest.raises(DataError, match=r"d.tsv, row 1, field 'sentence_type': missing sentence_type"):
        read_targets(d)


def test_targets_reader_keeps_to_the_column_asked_for(tmp_path):
    b = write_tsv(tmp_path / "b.tsv", [{"compound": "x", "subset": "Dev", "sentence_type": "literal", "expected_item": "1.png"}])
    with pytest.raises(DataError, match="missing column.s. expected_order"):
        items_from_targets_a(b, "en")
    a = write_a_targets(tmp_path / "a.tsv", [a_row("night owl")])
    [item] = items_from_targets_a(a, "pt")
    assert item.lang == "pt" and item.sentence_type == "idiomatic" and item.images[0].caption == ""
    assert list(item.image_names) == sorted(item.expected_order)


def test_organisers_targets_are_found_beside_the_data(tmp_path):
    write_b_split(tmp_path, "train", [b_row("cold turkey")], images=False)
    assert official_targets(tmp_path, "b", "en", "dev") is None
    reference = tmp_path / "admire" / "reference"
    reference.mkdir()
    targets = write_tsv(reference / "b_en_dev_targets.tsv", [{"compound": "x", "sentence_type": "literal",
                                                              "expected_item": "1.png"}])
    assert official_targets(tmp_path, "b", "en", "dev") == targets
    assert official_targets(tmp_path, "a", "en", "dev") is None


def test_subtask_b_splits_are_read_once_each_in_its_language(tmp_path):
    write_b_split(tmp_path, "train", [b_row("cold turkey")], images=False)
    write_b_split(tmp_path, "dev", [b_row("can of worms", gold=False)], images=False)
    assert [i.compound for i in load_splits_b(tmp_path, "en", "train+dev")] == ["cold turkey", "can of worms"]
    with pytest.raises(SensoError, match="admire-b has no language 'pt'; choose from en"):
        load_splits_b(tmp_path, "pt", "train")
    with pytest.raises(SensoError, match="split 'train\\+train' names a split twice"):
        load_splits_b(tmp_path, "en", "train+train")
    with pytest.raises(SensoError, match="unknown AdMIRe split 'nope'"):
        load_splits_b(tmp_path, "en", "nope+nope")


def test_missing_split_file_says_what_was_looked_for(tmp_path):
    write_a_split(tmp_path, "en", "train", [a_row("night owl")])
    with pytest.raises(DataNotFound, match=r"no admire/subtask_a/pt/train/subtask_a_train.tsv in the data folder"):
        load_a(tmp_path, "pt", "train")
    (tmp_path / "elsewhere").mkdir()  # a data folder without admire/
    with pytest.raises(DataNotFound, match="senso data fetch admire"):
        load_a(tmp_path / "elsewhere", "en", "train")
    with pytest.raises(DataNotFound, match="--data-dir .*nowhere does not exist"):  # a typo never falls back
        load_a(tmp_path / "nowhere", "en", "train")
    with pytest.raises(SensoError, match="--split validation: .* has train, dev, test, xeval"):
        load_a(tmp_path, "en", "validation")


def test_subtask_b_loader(tmp_path):
    write_b_split(tmp_path, "train", [b_row("cold turkey"), b_row("can of worms", first=60, sentence_type="idiomatic")])
    items = load_subtask_b(tmp_path, "en", "train", need_images=True)
    assert items[0].expected_item == "52.png" and items[0].sentence_type == "literal"
    assert [c.name for c in items[1].candidates] == ["60.png", "61.png", "62.png", "63.png"]
    assert items[0].sequence_paths[0].name == "s1.png"


def test_subtask_b_validation(tmp_path):
    bad = b_row("cold turkey")
    bad["expected_item"] = "99.png"
    write_b_split(tmp_path, "train", [bad], images=False)
    with pytest.raises(DataError, match=r"row 1, field 'expected_item': expected_item '99.png' is not one of the candidates"):
        load_subtask_b(tmp_path, "en", "train")
    write_b_split(tmp_path, "dev", [b_row("cold turkey", gold=False)], images=False)
    assert load_subtask_b(tmp_path, "en", "dev")[0].expected_item is None
    with pytest.raises(DataError, match=r"field 'image1_name': image file missing"):
        load_subtask_b(tmp_path, "en", "dev", need_images=True)
