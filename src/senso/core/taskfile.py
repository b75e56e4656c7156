"""What every kind of task file shares: its error (file and key named) and its `[columns]` table."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import SensoError


class TaskFileError(SensoError):
    """A bad task file: names the file and the key, and says what to write instead."""

    def __init__(self, path: str | Path, key: str | None, message: str):
        super().__init__(f"{path}" + (f", key '{key}'" if key else "") + f": {message}")


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


def declared_kind(path: str | Path) -> Any:
    """The `kind` a task file says it is (`kind = "ranking"`); None when it says none, or when it cannot be read
    as TOML (its kind's reader then says what is wrong with it)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    path = Path(path).expanduser()
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig")).get("kind") if path.is_file() else None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
