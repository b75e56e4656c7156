"""AdMIRe 2's release folder as a user meets it: `--out` the release folder itself removes nothing (the run is
refused, naming a release file), and a data file that is not there is named with what is there instead: the same
name in other letter case, a file of a language the task file does not name, and, without --lang, every missing
file and the --lang of the languages present."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from senso.admire.rankfile import builtin_task_file
from file_snapshots import snapshot
from test_rank_admire2 import write_release

pytestmark = pytest.mark.real_data


@pytest.fixture()
def senso(senso_cli):
    return senso_cli


@pytest.fixture()
def release(tmp_path) -> Path:
    """The release (Chinese, Igbo, Turkish) with the shipped admire2-b.toml copied beside it."""
    folder = write_release(tmp_path / "rel")
    shutil.copy(builtin_task_file("admire2-b"), folder)
    return folder


def test_out_the_release_folder_removes_no_release_file(senso, release):
    before = snapshot(release)
    code, output = senso("run", release / "admire2-b.toml", "--lang", "zh", "--system", "random", "--out", release)
    assert code == 2 and "Traceback" not in output
    assert f"--out {release} holds " in output and "which no senso run recorded as its own" in output, output
    assert snapshot(release) == before  # submission_Chinese.tsv kept, and no stray config.json


def test_a_file_in_other_letter_case_is_named(senso, release):
    (release / "submission_Chinese.tsv").rename(release / "submission_chinese.tsv")
    code, output = senso("run", release / "admire2-b.toml", "--lang", "zh", "--system", "random")
    assert code == 2
    assert ("submission_Chinese.tsv does not exist (paths are relative to the task file); the folder has "
            "submission_chinese.tsv, the same name in other letter case: rename it submission_Chinese.tsv") in output


def test_a_file_of_a_language_the_task_file_does_not_name_is_named(senso, release):
    (release / "submission_Chinese.tsv").rename(release / "submission_Klingon.tsv")
    code, output = senso("run", release / "admire2-b.toml", "--lang", "zh", "--system", "random")
    assert code == 2
    assert ("submission_Chinese.tsv does not exist (paths are relative to the task file); the folder has "
            "submission_Klingon.tsv, which no [[data]] table names") in output, output


def test_without_lang_every_missing_file_is_named_and_lang_suggested(senso, release):
    code, output = senso("run", release / "admire2-b.toml", "--system", "random")
    assert code == 2
    assert f"12 of its data files are not there in {release}" in output, output
    for language in ("Georgian", "Greek", "Kazakh", "Uzbek", "Portuguese-Brazil"):
        assert f"submission_{language}.tsv" in output
    assert "only the files of zh+ig+tr are there: give --lang zh+ig+tr to run those" in output
