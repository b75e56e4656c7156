"""The one reader of every CSV and TSV file senso opens (benchmark data, task files' items, ranking files,
glossaries, norms, published tables): UTF-8 with or without byte-order marks, CSV quoting, fields of any length.

- `read_rows(path, delimiter)`: every row as a list of fields (an empty line is `[]`);
- `read_records(path, delimiter)`: the header and the data rows as dicts, as `csv.DictReader` reads them
  (entirely empty lines skipped, so item k is data row k); a row with more fields than the header is an error
  when it is reached, after the caller has checked the header.

A spreadsheet's "CSV UTF-8" starts with a mark; ABRICOT's own file has one too, so a spreadsheet that kept it as
text and wrote its own gives two: every mark before the first column's name is dropped. A file in another
encoding, or one the csv module cannot parse, is a DataError naming the file and the line.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterator

from senso.core.errors import DataError, not_utf8

# The csv module refuses a field over 128 KiB by default (`_csv.Error: field larger than field limit`); a sentence
# or a caption has no such limit, so the limit is the largest the C reader takes (a C long on every platform).
csv.field_size_limit(2**31 - 1)
BOM = "\ufeff"


def read_rows(path: str | Path, delimiter: str = ",") -> list[list[str]]:
    """Every row of `path` as a list of fields (an empty line is `[]`)."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            try:
                rows = list(reader)
            except csv.Error as exc:
                separated = "tab" if delimiter == "\t" else repr(delimiter)
                raise DataError(path, f"line {reader.line_num} cannot be read as {separated}-separated fields "
                                      f"({exc})") from None
    except UnicodeDecodeError:
        raise not_utf8(path) from None
    if rows and rows[0]:  # a second mark: a file that had one, opened as plain text and saved with another
        rows[0][0] = rows[0][0].lstrip(BOM)
    return rows


def read_records(path: str | Path, delimiter: str = ",") -> tuple[list[str], Iterator[dict[str, str]]]:
    """The header of `path`, and its data rows as dicts (a short row's missing fields are ""), read as they are
    iterated, so a caller checks the header first; entirely empty lines are skipped, so the k-th dict is data
    row k, as a DataError counts rows. A row with more fields than the header is a DataError naming it."""
    rows = [row for row in read_rows(path, delimiter) if row != []]
    header = rows[0] if rows else []
    return header, _records(Path(path), header, rows[1:])


def _records(path: Path, header: list[str], rows: list[list[str]]) -> Iterator[dict[str, str]]:
    for row_no, row in enumerate(rows, start=1):
        if len(row) > len(header):
            raise DataError(path, "more fields than columns in the header", row=row_no)
        yield dict(zip(header, row + [""] * (len(header) - len(row))))
