"""The items of any Likert task: a CSV (or TSV, or another delimiter) with the columns id, text, word (optional
begin/end), gold, group, domain.

Which column holds each field is the task's `[columns]` table, and the field separator its `delimiter` or the
file's suffix (`senso.likert.taskfile`); this module reads and validates the rows. Every problem raises a DataError naming the file, the row (1 = first data
row) and the column.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from senso.core.csvfile import read_records
from senso.core.errors import DataError
from senso.core.taskfile import DELIMITERS

FIELDS = ("id", "text", "word", "begin", "end", "gold", "group", "domain")
REQUIRED_FIELDS = ("id", "text", "word", "gold")


@dataclass(frozen=True)
class LikertItem:
    """One text with a target word; `gold` is the raw gold value (None for new text without gold).

    `end` is inclusive, as in ABRICOT: text[begin:end + 1] == word. `group` (e.g. the lemma) decides
    few-shot exemplars and cross-validation folds; without a group column each item is its own group.
    """

    id: str
    text: str
    word: str
    begin: int
    end: int
    gold: float | None
    group: str
    domain: str


def group_key(item: LikertItem) -> str:
    """The group (ABRICOT: the lemma) as folds and the seen-group checks compare it (case and surrounding
    spaces ignored)."""
    return item.group.strip().casefold()


def has_group(item: LikertItem) -> bool:
    """Whether the item's row named a group (`read_items` makes an item without one its own group, its id)."""
    return item.group != item.id


def _int(raw: str, path: Path, row: int, column: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise DataError(path, f"expected an integer, got {raw!r}", row=row, field=column) from None


def _gold(raw: str, path: Path, row: int, column: str, gold_range: tuple[float, float], required: bool,
          task_file: str) -> float | None:
    if raw.strip() == "":
        if required:
            raise DataError(path, "missing value", row=row, field=column)
        return None
    try:
        value = float(raw)
    except ValueError:
        raise DataError(path, f"expected a number, got {raw!r}", row=row, field=column) from None
    low, high = gold_range
    if math.isnan(value) or not low <= value <= high:
        raise DataError(path, f"gold {raw!r} is outside gold_range [{low:g}, {high:g}] of {task_file}; "
                              "fix the value or the task's gold_range", row=row, field=column)
    return value


def _offsets(text: str, word: str, raw_begin: str, raw_end: str, path: Path, row: int,
             columns: dict[str, str]) -> tuple[int, int]:
    if raw_begin.strip() or raw_end.strip():
        begin = _int(raw_begin, path, row, columns.get("begin", "begin"))
        end = _int(raw_end, path, row, columns.get("end", "end"))
        if text[begin:end + 1] != word:
            raise DataError(path, f"text[{begin}:{end}+1] is {text[begin:end + 1]!r}, not the word {word!r} "
                                  "(end is inclusive)", row=row, field=f"{columns.get('begin', 'begin')}/{columns.get('end', 'end')}")
        return begin, end
    begin = text.find(word)
    if begin < 0:
        raise DataError(path, f"the word {word!r} does not occur in the text", row=row, field=columns["word"])
    if text.find(word, begin + 1) >= 0:
        raise DataError(path, f"the word {word!r} occurs more than once in the text: give its character offsets "
                              "in begin/end columns (both inclusive)", row=row, field=columns["word"])
    return begin, begin + len(word) - 1


def _separator_hint(header: list[str], delimiter: str, task_file: str) -> str | None:
    """When the header is one column holding another separator: the file is separated by that one."""
    if len(header) != 1:
        return None
    other = next((d for d in DELIMITERS if d != delimiter and d in header[0]), None)
    if other is None:
        return None
    rename = "name the file .tsv, or " if DELIMITERS[other] == "tab" else ""
    return (f"The header is one column holding {DELIMITERS[other]}s: the file looks {DELIMITERS[other]}-separated, "
            f"but was read as {DELIMITERS[delimiter]}-separated; {rename}set delimiter = {json.dumps(other)} "
            f"in {task_file}")  # json.dumps writes a TOML basic string: a tab as "\\t"


def read_items(path: str | Path, columns: dict[str, str], gold_range: tuple[float, float],
               require_gold: bool = True, task_file: str = "the task file", delimiter: str = ",") -> list[LikertItem]:
    """Read and validate a Likert CSV (UTF-8, optional BOM; fields separated by `delimiter`). `columns` maps each
    field of FIELDS that the file has onto its column name; with `require_gold=False` the gold column may be
    absent or blank. A file in another encoding is a DataError naming the file, the byte and the fix."""
    path = Path(path)
    try:
        header, rows = read_records(path, delimiter)
    except OSError as exc:
        raise DataError(path, f"cannot read the data file ({exc.strerror}); check `data` in {task_file}") from None
    needed = [f for f in REQUIRED_FIELDS if require_gold or f != "gold"]
    missing = [f for f in needed if columns[f] not in header]
    if missing:
        named = ", ".join(f"{columns[f]!r}" + (f" (the {f} column)" if columns[f] != f else "") for f in missing)
        raise DataError(path, f"missing column(s) {named}; found {', '.join(header) or 'none'}. "
                              + (_separator_hint(header, delimiter, task_file) or
                                 f"Rename them, or map them in the columns table of {task_file} "
                                 f"(e.g. {missing[0]} = \"YOUR_COLUMN\")"))
    present = {f: columns[f] for f in FIELDS if f in columns and columns[f] in header}
    items: list[LikertItem] = []
    seen: dict[str, int] = {}
    for row_no, row in enumerate(rows, start=1):
        def cell(field: str) -> str:
            return (row.get(present[field]) or "") if field in present else ""

        item_id = cell("id").strip()
        if not item_id:
            raise DataError(path, "empty id", row=row_no, field=present["id"])
        if item_id in seen:
            raise DataError(path, f"duplicate id {item_id!r} (first at row {seen[item_id]})", row=row_no,
                            field=present["id"])
        seen[item_id] = row_no
        text = cell("text")
        if not text.strip():
            raise DataError(path, "empty text", row=row_no, field=present["text"])
        word = cell("word")
        if not word.strip():
            raise DataError(path, "empty word", row=row_no, field=present["word"])
        begin, end = _offsets(text, word, cell("begin"), cell("end"), path, row_no, columns)
        gold = _gold(cell("gold"), path, row_no, columns["gold"], gold_range, require_gold, task_file)
        group = cell("group").strip() if "group" in present else item_id
        items.append(LikertItem(id=item_id, text=text, word=word, begin=begin, end=end, gold=gold,
                                group=group, domain=cell("domain").strip()))
    if not items:
        raise DataError(path, "no data rows")
    return items
