"""Errors that name exactly what is wrong with user input."""

from __future__ import annotations

from pathlib import Path


class SensoError(Exception):
    """Base class for errors shown to users without a traceback."""


class DataError(SensoError):
    """Bad input data: names the file, the row (1-based data row, header excluded) and the field."""

    def __init__(self, file: str | Path, message: str, row: int | None = None, field: str | None = None):
        self.file = str(file)
        self.row = row
        self.field = field
        where = self.file
        if row is not None:
            where += f", row {row}"
        if field is not None:
            where += f", field '{field}'"
        super().__init__(f"{where}: {message}")


class DataNotFound(SensoError):
    """The data set is not where we looked, and could not be downloaded."""
