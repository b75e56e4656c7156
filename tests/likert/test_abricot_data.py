import csv
from pathlib import Path

import pytest

from senso.likert.data import load_abricot
from senso.core.errors import DataError

HEADER = ["ID", "domain", "begin", "end", "text", "target_token", "target_lemma", "inc_mean", "inc_std", "abs_mean", "abs_std"]
GOOD = ["CANE_1", "opensub", "3", "6", "Il cane dorme.", "cane", "cane", "0.5", "0.1", "0.25", "0.2"]


def write_csv(path: Path, rows, header=HEADER, bom=True) -> Path:
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_loads_valid_file_with_bom(tmp_path):
    items = load_abricot(write_csv(tmp_path / "d.csv", [GOOD]))
    assert len(items) == 1
    item = items[0]
    assert item.id == "CANE_1" and item.text[item.begin:item.end + 1] == "cane"
    assert item.abs_mean == 0.25 and item.inc_mean == 0.5


@pytest.mark.parametrize("column, value, row_field, message", [
    ("abs_mean", "abc", "abs_mean", "expected a number"),
    ("abs_mean", "1.5", "abs_mean", "outside [0, 1]"),
    ("inc_std", "", "inc_std", "missing value"),
    ("begin", "x", "begin", "expected an integer"),
    ("begin", "4", "begin/end", "not target_token"),
    ("text", "  ", "text", "empty text"),
])
def test_bad_values_name_file_row_and_field(tmp_path, column, value, row_field, message):
    bad = list(GOOD)
    bad[HEADER.index(column)] = value
    second = list(GOOD)
    second[0] = "CANE_2"
    path = write_csv(tmp_path / "d.csv", [second, bad])
    bad[0] = "CANE_3"
    with pytest.raises(DataError) as err:
        load_abricot(path)
    text = str(err.value)
    assert str(path) in text and "row 2" in text and f"field '{row_field}'" in text and message in text


def test_missing_column_and_duplicate_id(tmp_path):
    header = [h for h in HEADER if h != "abs_std"]
    row = [v for h, v in zip(HEADER, GOOD) if h != "abs_std"]
    with pytest.raises(DataError, match="missing column.*abs_std"):
        load_abricot(write_csv(tmp_path / "a.csv", [row], header=header))
    with pytest.raises(DataError, match=r"row 2, field 'ID': duplicate ID 'CANE_1' \(first at row 1\)"):
        load_abricot(write_csv(tmp_path / "b.csv", [GOOD, GOOD]))


def test_scores_optional_for_new_text(tmp_path):
    header = HEADER[:7]
    items = load_abricot(write_csv(tmp_path / "new.csv", [GOOD[:7]], header=header), require_scores=False)
    assert items[0].abs_mean is None


def test_real_dataset(data_dir):
    items = load_abricot(data_dir / "abricot" / "dataset_it.csv")
    assert len(items) == 127
    assert len({i.target_lemma for i in items}) == 20
    assert sum(i.domain == "opensub" for i in items) == 70
    assert all(i.text[i.begin:i.end + 1] == i.target_token for i in items)
