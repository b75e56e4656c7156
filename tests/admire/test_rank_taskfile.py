"""Ranking task files: every key checked, every data problem named by file, row and field."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from senso.admire.languages import LanguageCodeError, check_language
from senso.admire.rankdata import load_entries
from senso.admire.rankfile import RankingTaskFileError, load_ranking_task
from senso.core.errors import DataError

sys.path.insert(0, str(Path(__file__).parent / "ranking"))
from rank_fixtures import COLUMNS, rows, write_dataset, write_rows  # noqa: E402



def test_language_codes_are_iso_639_with_an_optional_region():
    assert check_language("el") == "el"
    assert check_language("pt_br") == "pt-BR"
    assert check_language("es-EC") == "es-EC"
    assert check_language("yue") == "yue"
    for bad in ("xx", "english", "e", 3, "zz-BR"):
        with pytest.raises(LanguageCodeError):
            check_language(bad)


def test_the_fixture_is_a_ranking_file_and_reads(tmp_path):
    path = write_dataset(tmp_path)
    task = load_ranking_task(path)
    assert task.languages == ("ru", "el", "zh") and task.splits == ("train", "test")
    items, files, warnings = load_entries(task, task.data, None, need_images=True)
    assert len(files) == 6 and len(items) == 18 and not warnings
    train = [i for i in items if i.split == "train"]
    assert all(i.expected_order and i.sentence_type for i in train)
    assert all(i.expected_order is None and i.sentence_type is None for i in items if i.split == "test")
    assert all(o.path is not None and o.path.is_file() for i in items for o in i.images)
    assert {i.pair for i in items} == {"i1", "i2", "i3"}


@pytest.mark.parametrize("extra, key, phrase", [
    ('language_typo = 1', "language_typo", "unknown key"),
    ('metrics = ["top5"]', "metrics", "unknown 'top5'"),
    ('gains = [1, 2]', "gains", "expected 5 gains"),
    ('ndcg_k = 9', "ndcg_k", "from 1 to 5"),
    ('subtask = "pictures"', "subtask", "'images' or 'captions'"),
    ('gold_order = "sorted"', "gold_order", "'column' or 'listed'"),
    ('delimiter = "x"', "delimiter", "write one of"),
])
def test_bad_keys_name_the_key(tmp_path, extra, key, phrase):
    path = write_dataset(tmp_path)
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith(f"{key} =")]
    path.write_text("\n".join(lines[:2] + [extra] + lines[2:]), encoding="utf-8")
    with pytest.raises(RankingTaskFileError, match=rf"key '{key}'.*{phrase}"):
        load_ranking_task(path)


def test_an_unknown_language_code_names_the_data_table(tmp_path):
    path = write_dataset(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace('language = "el"', 'language = "gr"', 1), encoding="utf-8")
    with pytest.raises(RankingTaskFileError, match=r"key 'data\[3\]\.language'.*'gr' is not an ISO 639-1 code"):
        load_ranking_task(path)


def test_sentence_type_metrics_need_the_task_to_ask_for_them(tmp_path):
    path = write_dataset(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("sentence_type = true", "sentence_type = false"),
                    encoding="utf-8")
    with pytest.raises(RankingTaskFileError, match="add sentence_type = true"):
        load_ranking_task(path)


def _broken(tmp_path: Path, edit) -> tuple:
    path = write_dataset(tmp_path, langs=("ru",))
    data = rows("ru", gold=True, which="train")
    columns = list(COLUMNS)
    data, columns = edit(data, columns)
    tsv = write_rows(tmp_path / "ru" / "train.tsv", data, columns)
    task = load_ranking_task(path)
    return task, tsv


def _load(task):
    return load_entries(task, [d for d in task.data if d.split == "train"], None, need_images=False)


@pytest.mark.parametrize("edit, phrase", [
    (lambda d, c: (d, [x for x in c if x != "image3_caption"]), r"missing column\(s\) image3_caption"),
    (lambda d, c: ([{**d[0], "expected_order": "['i1_1.png', 'i1_2.png', 'i1_3.png', 'i1_4.png', 'x.png']"}] + d[1:], c),
     r"row 1, field 'expected_order'.*not a permutation.*unknown \['x.png'\]"),
    (lambda d, c: ([{**d[0], "expected_order": "['i1_1.png']"}] + d[1:], c), r"row 1.*expected 5 image names, got 1"),
    (lambda d, c: ([{**d[0], "sentence_type": "figurative"}] + d[1:], c), r"row 1, field 'sentence_type'.*unknown"),
    (lambda d, c: (d[:1] + [{**d[1], "expected_order": ""}] + d[2:], c), r"row 2, field 'expected_order'.*no expected_order"),
    (lambda d, c: ([{**d[0], "image2_name": d[0]["image1_name"]}] + d[1:], c), r"row 1, field 'image2_name'.*twice"),
    (lambda d, c: ([{**d[0], "sentence": " "}] + d[1:], c), r"row 1, field 'sentence'.*empty sentence"),
])
def test_bad_rows_name_file_row_and_field(tmp_path, edit, phrase):
    task, tsv = _broken(tmp_path, edit)
    with pytest.raises(DataError, match=phrase) as info:
        _load(task)
    assert str(tsv) in str(info.value)


def test_a_repeated_expression_and_sentence_is_an_item_per_row_with_one_warning(tmp_path):
    task, tsv = _broken(tmp_path, lambda d, c: (d + [d[0], d[1], d[0]], c))
    items, _, warnings = _load(task)
    assert len(items) == 7 and [i.row for i in items] == list(range(1, 8))
    assert len({(i.file, i.row) for i in items}) == 7  # each item known by its position
    assert warnings == [f"{tsv}: the same expression and sentence in several rows ('белая ворона' at rows 1, 5, 7; "
                        "'белая ворона' at rows 2, 6): each row is an item of its own and a row of the submission"]


def test_a_data_table_may_come_from_the_data_folder(tmp_path):
    path = write_dataset(tmp_path, langs=("ru",))
    shutil.move(tmp_path / "ru", tmp_path / "data" / "ru")
    text = path.read_text(encoding="utf-8").replace('split = "train"', 'split = "train"\ndata_from = "data-dir"')
    path.write_text(text, encoding="utf-8")
    task = load_ranking_task(path)
    assert [d.data_from for d in task.data] == ["data-dir", "task-file"]
    assert len(load_entries(task, task.data[:1], tmp_path / "data", need_images=True)[0]) == 4
    with pytest.raises(RankingTaskFileError, match=r"key 'data\[2\]\.file'.*relative to the task file"):
        load_entries(task, task.data[1:], tmp_path / "data", need_images=False)


def test_a_missing_image_is_named_when_the_system_reads_pictures(tmp_path):
    path = write_dataset(tmp_path, langs=("zh",))
    next((tmp_path / "zh" / "images").rglob("i1_4.png")).unlink()
    task = load_ranking_task(path)
    with pytest.raises(DataError, match=r"row 1, field 'image4_name'.*image file missing"):
        load_entries(task, task.data, None, need_images=True)
    assert len(load_entries(task, task.data, None, need_images=False)[0]) == 6


def test_columns_are_mappable_and_csv_is_read(tmp_path):
    data = [{("idiom" if k == "compound" else k): v for k, v in r.items()} for r in rows("el", True, "train")]
    columns = ["idiom" if c == "compound" else c for c in COLUMNS]
    write_rows(tmp_path / "el.csv", data, columns, delimiter=",")
    (tmp_path / "t.toml").write_text('kind = "ranking"\nname = "el"\n[columns]\ncompound = "idiom"\n'
                                     '[[data]]\nfile = "el.csv"\nlanguage = "el"\nsplit = "train"\n', encoding="utf-8")
    task = load_ranking_task(tmp_path / "t.toml")
    items = load_entries(task, task.data, None, need_images=False)[0]
    assert items[0].compound == "μαύρο πρόβατο" and items[0].expected_order[0] == "i1_1.png"


def test_every_registered_system_and_part_declares_its_languages():
    """Each system's options class declares the languages it serves and whether it reads the pictures; each part
    the languages of its choices (a choice it leaves out serves any language)."""
    from senso.admire.languages import ANY
    from senso.admire.systems.parts import (BY_EMBEDDER, BY_MEMBERS, BY_PARTS, MEANINGS, MODALITIES, RANKERS,
                                            ROLE_MIXES, SENSES, RankerOptions, SensePipelineOptions)
    from senso.admire.systems.registry import SYSTEMS

    for table in SYSTEMS.values():
        for name, row in table.items():
            languages = row.options.languages  # an AttributeError for a system that declares none
            assert languages in (ANY, BY_PARTS, BY_MEMBERS, BY_EMBEDDER) or row.options.english_because, name
            assert isinstance(row.options().reads_images, bool), name
    reads = {name: row.options().reads_images for name, row in SYSTEMS["a"].items()}
    assert reads["clip-rank"] and reads["vlm-judge"] and reads["fusion"]
    assert not reads["caption-similarity"] and not reads["sense-pipeline"]
    assert SensePipelineOptions(ranking=RankerOptions(modality="images")).reads_images
    assert SensePipelineOptions(ranking=RankerOptions(ranker="image")).reads_images
    choices = {option: (table, why) for option, (value, table, why) in
               SensePipelineOptions().chosen_languages().items()}
    for part, names in (("sense", SENSES), ("meaning", MEANINGS), ("ranker", RANKERS), ("modality", MODALITIES)):
        assert set(choices[part][0]) <= set(names) and choices[part][1], part
    # fitted parts learn from the task file's training rows, in any language: no roles choice is English-only
    assert "roles" not in choices and set(ROLE_MIXES) >= {"learned", "learned+rules"}
    assert {"fitted", "learned"}.isdisjoint(choices["sense"][0])


def test_the_default_choice_tries_the_candidates_the_systems_declare():
    """The configurations the default choice tries, and which systems read WordNet, are declared on the systems'
    options classes (no table keyed by system name)."""
    from senso.admire.systems.parts import CaptionSimilarityOptions, DefaultCandidate, SensePipelineOptions
    from senso.admire.systems.registry import SYSTEMS, default_candidates

    assert default_candidates(False) == [("sense-pipeline", {}), ("caption-similarity", {}), ("fitted-pipeline", {})]
    assert default_candidates(True) == [("sense-pipeline", {}), ("sense-pipeline", {"ranker": "caption"}),
                                        ("fitted-pipeline", {})]
    assert CaptionSimilarityOptions.candidates == (DefaultCandidate(1, types=False),)
    assert SensePipelineOptions.candidates[1].given == {"ranker": "caption"}
    wordnet = {f"{subtask}/{name}" for subtask, table in SYSTEMS.items() for name, row in table.items()
               if row.options().reads_wordnet}
    assert wordnet == {"a/sense-pipeline", "a/fitted-pipeline", "b/sequence-continuation", "sense/sense-classifier"}
