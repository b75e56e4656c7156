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


class RunInterrupted(SensoError):
    """A run stopped by a signal (SIGINT, SIGTERM; `core.records.RunWriter`): the message says what was kept;
    `exit_code` is 128 + the signal, as a shell reports a process the signal ended."""

    def __init__(self, message: str, signum: int):
        super().__init__(message)
        self.exit_code = 128 + int(signum)


class DataNotFound(SensoError):
    """The data set is not where we looked, and could not be downloaded."""


def not_utf8(path: str | Path) -> DataError:
    """The error for a text file in another encoding (a Windows spreadsheet export is often Latin-1/cp1252)."""
    raw = Path(path).read_bytes()
    try:
        raw.decode("utf-8")
        offset = 0
    except UnicodeDecodeError as exc:
        offset = exc.start
    line = raw.count(b"\n", 0, offset) + 1
    return DataError(path, f"not UTF-8 text: byte 0x{raw[offset]:02x} on line {line} (byte offset {offset}) cannot be "
                           "decoded; the file is probably Latin-1/Windows-1252. Re-save it as UTF-8 "
                           "(in a spreadsheet: \"CSV UTF-8\")")
