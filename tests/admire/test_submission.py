"""Official submission files: exact format, reading, validation against items, packing for Codabench."""

from __future__ import annotations

import json
import zipfile

import pytest

from senso.core.errors import DataError, SensoError
from admire_fixtures import write_submission_a, write_submission_b
from senso.admire.submission import check_submission, pack, read_submission, submission_text_filled
from senso.admire.task import parse_submission_name, parse_targets_name, submission_name, targets_name

ORDER = ("35234427395.png", "53378381715.png", "39938261459.png", "74852536462.png", "54879908369.png")


def test_subtask_a_file_is_byte_exact(tmp_path):
    path = write_submission_a(tmp_path / "submission_EN.tsv", [("elbow grease", ORDER), ("devil's advocate", ORDER[::-1])])
    assert path.read_text(encoding="utf-8") == (
        "compound\texpected_order\n"
        "elbow grease\t['35234427395.png', '53378381715.png', '39938261459.png', '74852536462.png', '54879908369.png']\n"
        "devil's advocate\t['54879908369.png', '74852536462.png', '39938261459.png', '53378381715.png', '35234427395.png']\n"
    )
    sub = read_submission(path)
    assert sub.subtask == "a" and sub.rows[1].compound == "devil's advocate" and sub.rows[1].expected_order == ORDER[::-1]


def test_subtask_b_file(tmp_path):
    path = write_submission_b(tmp_path / "submission_EN.tsv", [("cold turkey", "idiomatic", "1.png")])
    assert path.read_text(encoding="utf-8") == "compound\tsentence_type\texpected_item\ncold turkey\tidiomatic\t1.png\n"
    sub = read_submission(path)
    assert sub.subtask == "b" and sub.rows[0].sentence_type == "idiomatic" and sub.rows[0].expected_item == "1.png"


def test_file_names():
    assert [submission_name(lang, split) for lang, split in [("en", "test"), ("pt", "test"), ("en", "xeval"), ("pt", "xeval")]] == [
        "submission_EN.tsv", "submission_PT.tsv", "submission_XE.tsv", "submission_XP.tsv"]
    assert parse_submission_name("submission_xe.tsv") == ("en", "xeval")
    assert parse_submission_name("submission_PT.tsv") == ("pt", None)
    assert parse_submission_name("answers.tsv") is None
    assert targets_name("a", "en", "xeval") == "a_xe_test_targets.tsv"
    assert parse_targets_name("a_xp_test_targets.tsv") == ("a", "pt", "xeval")
    assert parse_targets_name("b_en_dev_targets.tsv") == ("b", "en", "dev")


@pytest.mark.parametrize(
    "line, match",
    [
        ("x\t['a.png', 'b.png']", r"row 2, field 'expected_order': expected 5 image names, got 2"),
        ("x\tnot a list", r"row 2, field 'expected_order': not a Python list literal"),
        ("elbow grease\t" + repr(list(ORDER)), r"row 2, field 'compound': duplicate compound 'elbow grease'"),
    ],
)
def test_reading_refuses_malformed_rows(tmp_path, line, match):
    path = tmp_path / "submission_EN.tsv"
    path.write_text("compound\texpected_order\nelbow grease\t" + repr(list(ORDER)) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"submission_EN.tsv, " + match):
        read_submission(path)


def test_check_against_items(tmp_path):
    images = {"elbow grease": ORDER, "night owl": tuple(f"{i}.png" for i in range(5))}
    ok = read_submission(write_submission_a(tmp_path / "a" / "submission_EN.tsv", [("elbow grease", ORDER), ("night owl", images["night owl"])]))
    check_submission(ok, images, expected_rows=2)

    unknown = read_submission(write_submission_a(tmp_path / "b" / "submission_EN.tsv", [("elbow grease", ORDER), ("ghost town", ORDER)]))
    with pytest.raises(DataError, match=r"row 2, field 'compound': unknown compound 'ghost town'"):
        check_submission(unknown, images, expected_rows=2)

    wrong = read_submission(write_submission_a(tmp_path / "c" / "submission_EN.tsv", [("night owl", ORDER), ("elbow grease", ORDER)]))
    with pytest.raises(DataError, match=r"row 1, field 'expected_order': not a permutation of the item's images"):
        check_submission(wrong, images, expected_rows=2)

    partial = read_submission(write_submission_a(tmp_path / "d" / "submission_EN.tsv", [("elbow grease", ORDER)]))
    with pytest.raises(DataError, match=r"1 rows, but the official split has 15.*--allow-partial"):
        check_submission(partial, images, expected_rows=15)
    check_submission(partial, images, expected_rows=15, allow_partial=True)
    with pytest.raises(DataError, match=r"no prediction for 1 compound"):
        check_submission(partial, images, expected_rows=None)


def _sub(tmp_path, name, n, folder="x"):
    rows = [(f"compound {i}", ORDER) for i in range(n)]
    return write_submission_a(tmp_path / folder / name, rows)


def test_pack_puts_validated_files_at_the_zip_root(tmp_path):
    en = _sub(tmp_path, "submission_EN.tsv", 15, "run1")
    xe = _sub(tmp_path, "submission_XE.tsv", 100, "run2")
    out = tmp_path / "zips" / "submission.zip"
    assert pack([en, tmp_path / "run2"], out) == ["submission_EN.tsv", "submission_XE.tsv"]
    with zipfile.ZipFile(out) as zf:
        assert sorted(zf.namelist()) == ["submission_EN.tsv", "submission_XE.tsv"]
        assert zf.read("submission_XE.tsv") == xe.read_bytes()


def test_pack_refusals(tmp_path):
    out = tmp_path / "submission.zip"
    with pytest.raises(DataError, match=r"14 rows; an official submission_EN.tsv for Subtask A has 15 or 70"):
        pack([_sub(tmp_path, "submission_EN.tsv", 14)], out)
    pack([_sub(tmp_path, "submission_EN.tsv", 14)], out, allow_partial=True)
    with pytest.raises(SensoError, match="two submissions named"):
        pack([_sub(tmp_path, "submission_EN.tsv", 15, "a"), _sub(tmp_path, "submission_en.tsv", 15, "b")], out)
    with pytest.raises(SensoError, match="not an official submission file name"):
        pack([_sub(tmp_path, "predictions.tsv", 15)], out)
    b = write_submission_b(tmp_path / "b" / "submission_XE.tsv", [(f"c{i}", "literal", "1.png") for i in range(30)])
    with pytest.raises(SensoError, match="different Codabench competitions"):
        pack([_sub(tmp_path, "submission_EN.tsv", 15, "a"), b], out)
    with pytest.raises(SensoError, match="no such file or run folder"):
        pack([tmp_path / "missing"], out)
    (tmp_path / "empty_run").mkdir()
    with pytest.raises(SensoError, match="expected exactly one submission_<XX>.tsv in the run folder, found none"):
        pack([tmp_path / "empty_run"], out)


def test_pack_checks_a_run_folder_against_its_items(tmp_path):
    run = tmp_path / "run"
    write_submission_a(run / "submission_EN.tsv", [(f"compound {i}", ORDER) for i in range(15)])
    (run / "config.json").write_text(json.dumps({"task": "admire-a", "lang": "en", "split": "dev"}))
    samples = [{"compound": f"compound {i}", "images": list(ORDER) if i else ["x.png"] * 5} for i in range(15)]
    (run / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    with pytest.raises(DataError, match=r"row 1, field 'expected_order': not a permutation"):
        pack([run], tmp_path / "s.zip")


def test_a_data_file_filled_in_keeps_its_header_rows_and_cells(tmp_path):
    path = tmp_path / "submission_Greek.tsv"
    path.write_text('compound\tsentence\texpected_order\tnote\nα\t"Ένα ""μαύρο"" πρόβατο."\t\tx\nβ\tΔύο.\t\ty\n'
                    'α\t"Ένα ""μαύρο"" πρόβατο."\t\tz\n', encoding="utf-8")
    text = submission_text_filled(path, "\t", {1: {"expected_order": "['a.png']", "sentence_type": "literal"},
                                               3: {"expected_order": "['b.png']", "sentence_type": ""}})
    assert text == ('compound\tsentence\texpected_order\tnote\tsentence_type\n'
                    'α\t"Ένα ""μαύρο"" πρόβατο."\t[\'a.png\']\tx\tliteral\n'
                    'α\t"Ένα ""μαύρο"" πρόβατο."\t[\'b.png\']\tz\t\n')
