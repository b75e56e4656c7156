"""Pairs task files of every form read into pairs, and every kind of bad input an error naming file, row and
column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from senso.core.errors import DataError, SensoError
from senso.core.taskfile import TaskFileError
from senso.wic.data import read_split
from senso.wic.taskfile import parse_task_file


def task_file(folder: Path, body: str, name: str = "t") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f'kind = "pairs"\nname = "{name}"\n{body}', encoding="utf-8")
    return path


def test_token_indices_and_a_gold_file_as_wic_writes_them(tmp_path):
    (tmp_path / "dev.txt").write_text("board\tN\t2-1\tRoom and board .\tHe boards ships .\n"
                                      "go\tV\t0-1\tGo home .\tShe went out .\n", encoding="utf-8")
    (tmp_path / "dev.gold.txt").write_text("F\nT\n", encoding="utf-8")
    path = task_file(tmp_path, 'format = "tsv"\nheader = false\nnames = ["lemma", "pos", "index", "sentence1", '
                               '"sentence2"]\ntarget = "tokens"\nsame = "T"\ndifferent = "F"\nlemma_check = false\n'
                               '[splits]\ndev = [{file = "dev.txt", gold = "dev.gold.txt"}]\n')
    first, second = read_split(parse_task_file(path), "dev")
    assert (first.first.target, first.second.target, first.label) == ("board", "boards", 0)
    assert (second.second.target, second.label, second.pair_id) == ("went", 1, "dev-2")


def test_marked_spans_graded_csv_and_languages(tmp_path):
    (tmp_path / "p.csv").write_text("id,word,a,b,rel,l2\nx1,bank,The <t>bank</t> closed .,A river <t>bank</t> .,"
                                    "1.5,en\n", encoding="utf-8")
    path = task_file(tmp_path, 'gold = "graded"\nscale = [1, 4]\ntarget = "marked"\nlanguage = "it"\n[columns]\n'
                               'lemma = "word"\nsentence1 = "a"\nsentence2 = "b"\nscore = "rel"\nlang2 = "l2"\n'
                               '[splits]\nall = ["p.csv"]\n')
    [pair] = read_split(parse_task_file(path), "all")
    assert (pair.first.text, pair.first.target, pair.second.target) == ("The bank closed .", "bank", "bank")
    assert (pair.score, pair.label, pair.langs) == (1.5, None, "it-en")


def _jsonl(folder: Path, rows: list[dict], body: str = "") -> Path:
    (folder / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return task_file(folder, body + '[splits]\ndev = ["d.jsonl"]\n')


GOOD = {"id": "a", "lemma": "bank", "sentence1": "The bank closed .", "sentence2": "A bank .", "start1": 4,
        "end1": 8, "start2": 2, "end2": 6, "label": 1}
BAD = [
    ({"start1": 40, "end1": 44}, "row 1, field 'start1': the target's span 40:44 falls outside the sentence"),
    ({"start1": 5, "end1": 8}, "row 1, field 'sentence1': the target 'ank' at 5:8 is not a whole word"),
    ({"start2": 0, "end2": 1}, "row 1, field 'sentence2': the target 'A' at 0:1 does not match the lemma 'bank'"),
    ({"label": 2}, "row 1, field 'label': label 2 is none of the mapped values ('1' = same meaning, '0' = different)"),
    ({"lemma": ""}, "row 1, field 'lemma': missing or empty"),
]


@pytest.mark.parametrize("change, message", BAD)
def test_a_bad_row_names_file_row_and_column(tmp_path, change, message):
    path = _jsonl(tmp_path, [{**GOOD, **change}])
    with pytest.raises(DataError, match=str(tmp_path / "d.jsonl").replace(".", r"\.")) as raised:
        read_split(parse_task_file(path), "dev")
    assert message in str(raised.value)


def test_a_score_off_the_scale_and_a_repeated_id(tmp_path):
    scored = {k: v for k, v in GOOD.items() if k != "label"}
    path = _jsonl(tmp_path, [{**scored, "score": 4.5}], 'gold = "graded"\nscale = [1, 4]\n')
    with pytest.raises(DataError, match=r"row 1, field 'score': score 4.5 is off the declared scale \[1, 4\]"):
        read_split(parse_task_file(path), "dev")
    path = _jsonl(tmp_path, [GOOD, GOOD])
    with pytest.raises(DataError, match=r"row 2, field 'id': pair id 'a' repeats the pair of .*d\.jsonl, row 1"):
        read_split(parse_task_file(path), "dev")


def test_bad_task_files_name_the_key(tmp_path):
    for body, message in (('gold = "graded"\n[splits]\na = ["x"]\n', "key 'scale': missing"),
                          ('train = "train"\n[splits]\ndev = ["x"]\n', "key 'train': 'train' is not among the splits"),
                          ('target = "words"\n[splits]\ndev = ["x"]\n', "key 'target': 'words': choose"),
                          ('[splits]\ndev = [{file = "x", lang = "en"}]\n', "key 'splits.dev[0].lang': unknown key")):
        with pytest.raises(TaskFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
            parse_task_file(task_file(tmp_path, body))
    path = task_file(tmp_path, '[splits]\ndev = ["d.jsonl"]\n')
    with pytest.raises(SensoError, match="t has no split 'test'; choose from dev"):
        read_split(parse_task_file(path), "test")


def _wug(folder: Path, judgments: list[tuple[str, str, int]]) -> Path:
    lemma = folder / "data" / "bank_nn"
    lemma.mkdir(parents=True)
    (lemma / "uses.csv").write_text("identifier\tcontext\tindexes_target_token\nu1\tThe bank closed .\t4:8\n"
                                    "u2\tA river bank .\t8:12\nu3\tBanks lend .\t0:5\n", encoding="utf-8")
    rows = "".join(f"{a}\t{b}\tann{k}\t{j}\t\tbank_nn\t1\n" for k, (a, b, j) in enumerate(judgments))
    (lemma / "judgments.csv").write_text("identifier1\tidentifier2\tannotator\tjudgment\tcomment\tlemma\tround\n" + rows,
                                         encoding="utf-8")
    return task_file(folder, 'format = "wug"\ngold = "graded"\nscale = [1, 4]\nmin_judgments = 2\n'
                             '[splits]\nall = ["data"]\n')


def test_wug_folders_median_of_non_zero_judgments(tmp_path):
    path = _wug(tmp_path, [("u1", "u2", 1), ("u2", "u1", 2), ("u1", "u2", 0), ("u1", "u2", 4), ("u1", "u3", 4),
                           ("u2", "u3", 3), ("u3", "u2", 0)])
    [pair] = read_split(parse_task_file(path), "all")  # u1|u3 and u2|u3 have one non-zero judgment each
    assert (pair.pair_id, pair.score, pair.first.target, pair.second.target) == ("bank_nn/u1|u2", 2.0, "bank", "bank")


def test_wug_errors(tmp_path):
    path = _wug(tmp_path / "a", [("u1", "u9", 3)])
    with pytest.raises(DataError, match=r"judgments\.csv, row 1, field 'identifier2': use 'u9' is not in uses\.csv"):
        read_split(parse_task_file(path), "all")
    path = _wug(tmp_path / "b", [("u1", "u2", 0), ("u1", "u3", 0), ("u1", "u3", 3)])
    with pytest.raises(DataError, match="lemma 'bank_nn' has no pair left after dropping the judgments of 0"):
        read_split(parse_task_file(path), "all")
