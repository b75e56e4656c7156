"""What every kind of task file shares: reading it, its error (file and key named), its typed keys (strings, a
choice, the name, `data_from`, `delimiter`), its `[columns]` table and finding the data files it names."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import DataNotFound, SensoError
from senso.core.paths import find_data_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# where a task file's data is: beside the task file, or in the data folder (--data-dir, $SENSO_DATA_DIR, the cache)
DATA_FROM = ("task-file", "data-dir")
DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}  # field separators senso reads
TAB_SUFFIX = ".tsv"  # a data file ending so is tab-separated unless `delimiter` says otherwise; any other, comma


class TaskFileError(SensoError):
    """A bad task file: names the file and the key, and says what to write instead."""

    def __init__(self, path: str | Path, key: str | None, message: str):
        super().__init__(f"{path}" + (f", key '{key}'" if key else "") + f": {message}")


def read_task_file(path: str | Path, error: type[TaskFileError] = TaskFileError,
                   what: str = "task file") -> tuple[dict[str, Any], Path]:
    """The TOML file's parsed table and its absolute path; `error` when it is absent, not UTF-8 or not TOML."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise error(path, None, f"no such {what}")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig")), path
    except UnicodeDecodeError:
        raise error(path, None, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(path, None, f"not valid TOML ({exc})") from None


def declared_kind(path: str | Path) -> Any:
    """The `kind` a task file says it is (`kind = "ranking"`); None when it says none, or when it cannot be read
    as TOML (its kind's reader then says what is wrong with it)."""
    try:
        return read_task_file(path)[0].get("kind")
    except (OSError, TaskFileError):
        return None


def check_keys(data: dict[str, Any], path: Path, keys: Sequence[str], has: str,
               error: type[TaskFileError] = TaskFileError, where: str = "") -> None:
    """An error naming the first key of `data` not in `keys`; `has` says what holds them ("a task file has the
    keys"), `where` comes before the key in messages (`data[2].`)."""
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise error(path, where + unknown[0], f"unknown key; {has} {', '.join(keys)}")


def string_key(data: dict[str, Any], path: Path, key: str, default: str | None = None, *, needs: str | None = None,
               allow_empty: bool = False, error: type[TaskFileError] = TaskFileError, where: str = "") -> str | None:
    """`data[key]`, a string, non-empty unless `allow_empty`; when absent, `default`, or an error saying what the
    file `needs` when that is given. `where` comes before the key in messages (`data[2].`)."""
    if key not in data:
        if needs is not None:
            raise error(path, where + key, f"missing; {needs}")
        return default
    value = data[key]
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise error(path, where + key, f"expected a non-empty string, got {value!r}")
    return value


def choice_key(data: dict[str, Any], path: Path, key: str, choices: Sequence[str], default: str,
               error: type[TaskFileError] = TaskFileError, where: str = "") -> str:
    """`data[key]`, one of `choices` (`default` when absent)."""
    value = string_key(data, path, key, default, error=error, where=where)
    if value not in choices:
        raise error(path, where + key, f"{value!r}: choose {' or '.join(map(repr, choices))}")
    return value


def name_key(data: dict[str, Any], path: Path, needs: str, error: type[TaskFileError] = TaskFileError) -> str:
    """The `name` key: letters, digits, '.', '_' and '-', for it names run folders."""
    name = string_key(data, path, "name", needs=needs, error=error)
    if not NAME_PATTERN.match(name):
        raise error(path, "name", f"{name!r}: use letters, digits, '.', '_' and '-' (it names run folders)")
    return name


def delimiter_key(data: dict[str, Any], path: Path, error: type[TaskFileError] = TaskFileError) -> str | None:
    """The `delimiter` key (None when absent: each data file's suffix decides, `delimiter_for`)."""
    if "delimiter" not in data:
        return None
    value = data["delimiter"]
    if value not in DELIMITERS:
        named = ", ".join(f"{d!r} ({name})" for d, name in DELIMITERS.items())
        raise error(path, "delimiter", f"{value!r} is not a field separator senso reads; write one of {named} "
                                       "(a tab as \"\\t\"), or leave the key out: .tsv files are read "
                                       "tab-separated, others comma-separated")
    return value


def delimiter_for(delimiter: str | None, path: str | Path) -> str:
    """The field separator of a data file: the task file's `delimiter`, else tab for .tsv, else comma."""
    if delimiter is not None:
        return delimiter
    return "\t" if Path(path).suffix.lower() == TAB_SUFFIX else ","


def column_table(data: dict[str, Any], path: Path, fields: Sequence[str], example: str,
                 error: type[TaskFileError] = TaskFileError) -> dict[str, str]:
    """The file's `[columns]` table as written (field -> the data file's column name), every key a known field
    and every value a non-empty string; `example` is one line of such a table, shown when it is not a table."""
    raw = data.get("columns", {})
    if not isinstance(raw, dict):
        raise error(path, "columns", f"expected a table: a line [columns], then e.g. {example}")
    for key, value in raw.items():
        if key not in fields:
            raise error(path, f"columns.{key}", f"unknown field; [columns] maps {', '.join(fields)}")
        if not isinstance(value, str) or not value:
            raise error(path, f"columns.{key}", f"expected a column name, got {value!r}")
    return raw


def data_path(source: Path, relative: str, data_from: str, data_dir: str | Path | None, key: str,
              error: type[TaskFileError] = TaskFileError, fetch: str = "", required: bool = True) -> Path | None:
    """The path of a file or folder a task file names (`key`): relative to the task file, or (data_from =
    "data-dir") found in the data folder; `fetch` tells how to get the data when it is not there. None when
    absent and not `required`."""
    if data_from == "task-file":
        path = (source.parent / relative).resolve()
        if required and not path.exists():
            raise error(source, key, f"{path} does not exist (paths are relative to the task file)")
        return path
    found = find_data_file(relative, data_dir)
    if found is None and required:
        raise DataNotFound(f"{source}: no {relative} in the data folder{fetch}; point senso at it with "
                           f"--data-dir DIR (or SENSO_DATA_DIR=DIR), where DIR/{relative} is the file")
    return found
