"""AdMIRe 2 (MWE-2026 Shared Task 2) on its release as it is: one `submission_<Language>.tsv` per language
(`compound`, `sentence`, an empty `expected_order`, `image1_name` ... `image5_caption`) and the images in
`<Language>/<expression>/<image>.png`, read by the shipped task files copied beside them; the training rows are
AdMIRe 1's English train and dev from the data folder.

The release below is written by the test in that layout: captions quoted with doubled quotes, one expression and
sentence repeated with the images in another order (as the release does once per language), an Igbo expression
with combining accents (its folder name in the other Unicode form), Chinese script, and a Turkish expression with
no image folder (the captions subtask reads no pictures)."""

from __future__ import annotations

import ast
import csv
import hashlib
import shutil
import sys
import unicodedata
from pathlib import Path

import pytest

import senso
from senso.admire.rankdata import load_entries
from senso.admire.rankfile import builtin_task_file, load_ranking_task
from senso.cli import main
from senso.core.errors import DataError

pytestmark = pytest.mark.real_data

HEADER = ["compound", "sentence", "expected_order"] + [
    f"image{n}_{field}" for n in range(1, 6) for field in ("name", "caption")]
IGBO_EXPRESSION = unicodedata.normalize("NFD", "ọ̀nụ́ ụ́zọ")  # tone marks as combining characters
RELEASE = {
    "Chinese": [
        ("害群之马", "他是班上的害群之马。", ["一个带坏集体的人", '一块写着"危险"的牌子', "草原上的一匹马", "一群羊", "桌子"]),
        ("黑马", "这位新候选人是一匹黑马。", ["不知名的选手获胜", "神秘的人", '田野里的"黑色"马', "白马", "大海"]),
        ("黑马", "田野里有一匹黑马。", ["田野里的黑色马", "白马", "不知名的选手获胜", "神秘的人", "大海"]),
    ],
    "Igbo": [
        ("obi ọma", "O nwere obi ọma nye onye ọ bụla.", ["a kind person helps", "a heart shape", 'a sign saying "love"',
                                                        "a red fruit", "a chair"]),
        (IGBO_EXPRESSION, "Ọ bụ ọnụ ụzọ ọhụrụ maka azụmahịa anyị.", ["an opportunity opens", "a wooden door",
                                                                  "a doorway at night", "a key", "a river"]),
        (IGBO_EXPRESSION, "Ọ bụ ọnụ ụzọ ọhụrụ maka azụmahịa anyị.", ["an opportunity opens", "a wooden door",
                                                                  "a doorway at night", "a key", "a river"]),
    ],
    "Turkish": [
        ("kara koyun", "O, ailenin kara koyunudur.", ["a person unlike the family", "a black sheep in a field",
                                                      'a flock with one "odd" animal', "a white sheep", "a table"]),
        ("altın eller", "Dedemin altın elleri var, her şeyi tamir eder.", ["a skilled craftsman", "hands of gold",
                                                                           "a gold ring", "a worker", "a cloud"]),
    ],
}
NO_IMAGES = "altın eller"  # the Turkish expression whose image folder is not in the release
ADMIRE1_ROWS = 6  # of AdMIRe 1's English train and of its dev: the training rows of the default system's choice


def _png(path: Path, shade: int) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 4), (shade, 255 - shade, 128)).save(path)


def write_release(root: Path) -> Path:
    """The three languages' files and image folders under `root`, as the release lays them out."""
    root.mkdir(parents=True)
    for language, rows in RELEASE.items():
        with (root / f"submission_{language}.tsv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
            writer.writerow(HEADER)
            for number, (compound, sentence, captions) in enumerate(rows):
                names = [f"{hashlib.md5(compound.encode()).hexdigest()[:8]}_{k}.png" for k in range(5)]
                if number == 2 and language == "Igbo":  # the repeated row lists the images in another order
                    names, captions = names[::-1], captions[::-1]
                writer.writerow([compound, sentence, ""] + [c for pair in zip(names, captions) for c in pair])
                if compound != NO_IMAGES:
                    folder = root / language / unicodedata.normalize("NFC", compound)
                    for k, name in enumerate(names):
                        _png(folder / name, 40 * k)
    return root


@pytest.fixture()
def release(tmp_path) -> Path:
    return write_release(tmp_path / "admire2")


@pytest.fixture()
def admire1(data_dir, tmp_path) -> Path:
    """A data folder with the first ADMIRE1_ROWS rows of AdMIRe 1's English train and dev, as the real one lays
    them out (the whole of them makes the default system's choice take minutes on a busy 2-core machine)."""
    for split in ("train", "dev"):
        relative = Path("admire/subtask_a/en") / split / f"subtask_a_{split}.tsv"
        lines = (data_dir / relative).read_text(encoding="utf-8").splitlines(keepends=True)
        (tmp_path / "data" / relative).parent.mkdir(parents=True)
        (tmp_path / "data" / relative).write_text("".join(lines[: 1 + ADMIRE1_ROWS]), encoding="utf-8")
    return tmp_path / "data"


def _task(release: Path, subtask: str) -> Path:
    """The shipped task file, copied beside the release (the one file a user adds)."""
    return Path(shutil.copy(builtin_task_file(f"admire2-{subtask}"), release))


def _rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh, delimiter="\t"))


def test_the_fixture_has_the_release_quirks(release):
    text = (release / "submission_Chinese.tsv").read_text(encoding="utf-8")
    assert '"一块写着""危险""的牌子"' in text  # a caption quoted, its quotes doubled
    igbo = _rows(release / "submission_Igbo.tsv")
    assert igbo[2][:2] == igbo[3][:2] and igbo[2][3] != igbo[3][3]
    assert igbo[2][0] != unicodedata.normalize("NFC", igbo[2][0])  # combining accents in the file, not the folder
    assert not (release / "Turkish" / NO_IMAGES).exists()


@pytest.mark.parametrize("subtask, system", [("b", None), ("b", "fitted-pipeline"), ("a", "caption-similarity")])
def test_the_release_runs_as_it_is_and_each_submission_is_its_file(release, admire1, tmp_path, subtask, system):
    """The default system (captions subtask; chosen on AdMIRe 1's English train+dev), the fitted one (fit on
    them, run on the three languages through its multilingual embedders) and a named one (images)."""
    result = senso.evaluate(_task(release, subtask), system=system, lang="zh+ig+tr", data_dir=admire1,
                            out=tmp_path / "run")
    assert result.results["n_by_language"] == {"zh": 3, "ig": 3, "tr": 2} and result.n == 8
    if system is None:
        choice = result.results["default_system"]
        assert choice["languages"] == ["zh", "ig", "tr"] and choice["chosen"] == result.system
        assert f"the file's {2 * ADMIRE1_ROWS} training items" in choice["why"]  # AdMIRe 1's English train and dev
        assert "fitted-pipeline" in {c["system"] for c in choice["candidates"]}
    if system == "fitted-pipeline":
        assert result.results["fitting"]["fit_on"] == "EN train" and not result.results["cross_validated"]
        assert any("fit on the task file's EN train rows and ranks zh, ig, tr" in n for n in result.notes)
    repeated = [w for w in result.warnings if "same expression and sentence" in w]
    assert len(repeated) == 1 and "submission_Igbo.tsv" in repeated[0] and "rows 2, 3" in repeated[0]
    for language in RELEASE:
        released = _rows(release / f"submission_{language}.tsv")
        written = _rows(tmp_path / "run" / f"submission_{language}.tsv")
        assert written[0] == released[0] == HEADER
        assert len(written) == len(released)
        for mine, theirs in zip(written[1:], released[1:]):
            assert mine[:2] == theirs[:2] and mine[3:] == theirs[3:]  # the row as released, in its place
            assert sorted(ast.literal_eval(mine[2])) == sorted(theirs[3::2])  # the order: the row's five images
    assert '"一块写着""危险""的牌子"' in (tmp_path / "run" / "submission_Chinese.tsv").read_text(encoding="utf-8")
    keys = [s.compound + s.sentence for s in result.samples]
    assert len(keys) == 8 and len(set(keys)) == 7  # the repeated row is an item of its own


def test_a_run_without_gold_says_what_it_did(release, data_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "argv", ["senso", "run", str(_task(release, "b")), "--lang", "zh+ig", "--data-dir",
                                      str(data_dir), "--system", "caption-similarity", "--out", str(tmp_path / "cli")])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code in (0, None)
    captured = capsys.readouterr()
    out = " ".join((captured.out + captured.err).split())
    assert "system caption-similarity | 6 items, no gold: submissions written, no metrics" in out
    assert "zh (Chinese) │ 3" in out and "ig (Igbo) │ 3" in out
    assert f"submission: {tmp_path / 'cli' / 'submission_Igbo.tsv'}" in out
    assert "undefined" not in out and "(n=0)" not in out
    assert out.count("same expression and sentence") == 1


def test_the_images_subtask_names_the_missing_image_folder(release):
    task = load_ranking_task(_task(release, "a"))
    turkish = [d for d in task.data if d.language == "tr"]
    with pytest.raises(DataError, match=r"submission_Turkish\.tsv, row 2, field 'image1_name': image file missing"):
        load_entries(task, turkish, None, need_images=True)
    chinese = [d for d in task.data if d.language == "zh"]
    items = load_entries(task, chinese, None, need_images=True)[0]
    assert all(o.path is not None and o.path.is_file() for i in items for o in i.images)


def test_the_shipped_files_map_the_fifteen_languages():
    for subtask in ("a", "b"):
        task = load_ranking_task(builtin_task_file(f"admire2-{subtask}"))
        test = [d for d in task.data if d.split == "test"]
        assert [d.language for d in test] == ["zh", "ka", "el", "ig", "kk", "no", "pt-BR", "pt-PT", "ru", "sr", "sk",
                                              "sl", "es-EC", "tr", "uz"]
        assert all(d.file == d.submission and d.data_from == "task-file" for d in test)
        train = [d for d in task.data if d.split == "train"]
        assert [(d.language, d.data_from) for d in train] == [("en", "data-dir")] * 2
        assert task.subtask == ("images" if subtask == "a" else "captions")
