"""The task-file steps every family shares: reading the file, typed keys, unknown keys, the name, `data_from`,
`delimiter`, and the path of a data file; every error names the file and the key."""

from pathlib import Path

import pytest

from senso.core.errors import DataNotFound
from senso.core.taskfile import (TaskFileError, check_keys, choice_key, data_path, declared_kind, delimiter_for,
                                 delimiter_key, name_key, read_task_file, string_key)

PATH = Path("/tasks/t.toml")


class OtherError(TaskFileError):
    """A family's own subclass: every step raises it when asked."""


def test_read_task_file_parses_and_names_what_is_wrong(tmp_path):
    good = tmp_path / "t.toml"
    good.write_text('\ufeffname = "x"\n', encoding="utf-8")
    assert read_task_file(good) == ({"name": "x"}, good.resolve())
    with pytest.raises(OtherError, match=r"absent\.toml: no such task file$"):
        read_task_file(tmp_path / "absent.toml", OtherError)
    (tmp_path / "latin.toml").write_bytes('name = "caf\u00e9"\n'.encode("latin-1"))
    with pytest.raises(TaskFileError, match=r"latin\.toml: not UTF-8 text$"):
        read_task_file(tmp_path / "latin.toml")
    (tmp_path / "bad.toml").write_text("name = [1\n", encoding="utf-8")
    with pytest.raises(TaskFileError, match=r"bad\.toml: not valid TOML \("):
        read_task_file(tmp_path / "bad.toml")


def test_declared_kind_is_none_when_the_file_says_none_or_cannot_be_read(tmp_path):
    (tmp_path / "r.toml").write_text('kind = "ranking"\n', encoding="utf-8")
    (tmp_path / "l.toml").write_text('name = "x"\n', encoding="utf-8")
    (tmp_path / "bad.toml").write_text("kind = [\n", encoding="utf-8")
    assert declared_kind(tmp_path / "r.toml") == "ranking" and declared_kind(tmp_path / "l.toml") is None
    assert declared_kind(tmp_path / "bad.toml") is None and declared_kind(tmp_path / "absent.toml") is None


def test_string_key_default_needs_and_where():
    assert string_key({}, PATH, "k", "d") == "d" and string_key({}, PATH, "k") is None
    assert string_key({"k": ""}, PATH, "k", allow_empty=True) == ""
    with pytest.raises(OtherError, match=r"t\.toml, key 'k': missing; a file needs k$"):
        string_key({}, PATH, "k", needs="a file needs k", error=OtherError)
    with pytest.raises(TaskFileError, match=r"key 'data\[2\]\.k': expected a non-empty string, got ' '$"):
        string_key({"k": " "}, PATH, "k", where="data[2].")
    with pytest.raises(TaskFileError, match=r"key 'k': expected a non-empty string, got 3$"):
        string_key({"k": 3}, PATH, "k", allow_empty=True)


def test_choice_key_and_name_key():
    assert choice_key({}, PATH, "c", ("a", "b"), "a") == "a"
    assert choice_key({"c": "b"}, PATH, "c", ("a", "b"), "a") == "b"
    with pytest.raises(TaskFileError, match=r"key 'd\[1\]\.c': 'z': choose 'a' or 'b'$"):
        choice_key({"c": "z"}, PATH, "c", ("a", "b"), "a", where="d[1].")
    assert name_key({"name": "my-task.v2"}, PATH, "needs name") == "my-task.v2"
    with pytest.raises(TaskFileError, match=r"key 'name': 'a/b': use letters, digits"):
        name_key({"name": "a/b"}, PATH, "needs name")
    with pytest.raises(OtherError, match=r"key 'name': missing; needs name$"):
        name_key({}, PATH, "needs name", OtherError)


def test_check_keys_names_the_first_unknown_key():
    check_keys({"a": 1}, PATH, ("a", "b"), "a file has the keys")
    with pytest.raises(TaskFileError, match=r"key 'data\[1\]\.x': unknown key; a table has a, b$"):
        check_keys({"a": 1, "x": 2, "y": 3}, PATH, ("a", "b"), "a table has", where="data[1].")


def test_delimiter_key_and_delimiter_for():
    assert delimiter_key({}, PATH) is None and delimiter_key({"delimiter": ";"}, PATH) == ";"
    with pytest.raises(OtherError, match=r"key 'delimiter': '::' is not a field separator senso reads; write one "
                                         r"of ',' \(comma\), '\\t' \(tab\), ';' \(semicolon\), '\|' \(vertical bar\)"):
        delimiter_key({"delimiter": "::"}, PATH, OtherError)
    assert delimiter_for(None, "a.TSV") == "\t" and delimiter_for(None, "a.csv") == ","
    assert delimiter_for(";", "a.tsv") == ";"


def test_data_path_beside_the_task_file_or_in_the_data_folder(tmp_path):
    task = tmp_path / "t.toml"
    (tmp_path / "items.csv").write_text("x\n", encoding="utf-8")
    assert data_path(task, "items.csv", "task-file", None, "data") == tmp_path / "items.csv"
    assert data_path(task, "none.csv", "task-file", None, "data", required=False) == tmp_path / "none.csv"
    with pytest.raises(OtherError, match=r"key 'data\[1\]\.file': .*none\.csv does not exist \(paths are relative "
                                         r"to the task file\)$"):
        data_path(task, "none.csv", "task-file", None, "data[1].file", OtherError)
    folder = tmp_path / "data"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "f.tsv").write_text("x\n", encoding="utf-8")
    assert data_path(task, "sub/f.tsv", "data-dir", folder, "data") == folder / "sub" / "f.tsv"
    assert data_path(task, "sub/g.tsv", "data-dir", folder, "data", required=False) is None
    with pytest.raises(DataNotFound, match=r"t\.toml: no sub/g\.tsv in the data folder \(fetch it\); point senso "
                                           r"at it with --data-dir DIR"):
        data_path(task, "sub/g.tsv", "data-dir", folder, "data", fetch=" (fetch it)")
