"""A pairs task's data read into `WicPair`s: JSONL, TSV or CSV rows with their columns mapped (WUG folders:
`wug`), the target located by character offsets, whitespace-token indices or marks, the gold mapped (binary
labels, graded scores on the declared scale). Every bad row is a DataError naming the file, the row (1-based)
and the column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from senso.core.csvfile import read_records, read_rows
from senso.core.errors import DataError, SensoError, not_utf8
from senso.core.taskfile import data_path, delimiter_for
from senso.wic.items import Usage, WicPair
from senso.wic.target import check_target
from senso.wic.taskfile import PairsTask, Source

Row = dict[str, Any]


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Row]]:
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise not_utf8(path) from None
    for number, line in enumerate((line for line in lines if line.strip()), start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(path, f"not a JSON object ({exc.msg})", row=number) from None
        if not isinstance(row, dict):
            raise DataError(path, f"expected a JSON object, got {type(row).__name__}", row=number)
        yield number, row


def _table_rows(task: PairsTask, path: Path) -> Iterator[tuple[int, Row]]:
    delimiter = delimiter_for(task.delimiter, path) if task.file_format(str(path)) != "tsv" else (
        task.delimiter or "\t")
    if task.header:
        _, records = read_records(path, delimiter)
        yield from enumerate(records, start=1)
        return
    names = task.names
    for number, row in enumerate((r for r in read_rows(path, delimiter) if r), start=1):
        if names and len(row) != len(names):
            raise DataError(path, f"{len(row)} fields, but the task file names {len(names)} columns "
                                  f"({', '.join(names)})", row=number)
        yield number, dict(zip(names or [str(k) for k in range(1, len(row) + 1)], row))


def rows_of(task: PairsTask, path: Path) -> Iterator[tuple[int, Row]]:
    """The data rows of one file, numbered from 1 (header excluded)."""
    return _jsonl_rows(path) if task.file_format(str(path)) == "jsonl" else _table_rows(task, path)


def _value(row: Row, task: PairsTask, source: Source, name: str, path: Path, number: int, needed: bool = True) -> Any:
    column = task.column(source, name)
    value = row.get(column)
    if value is None or value == "":
        if needed:
            raise DataError(path, "missing or empty (a pairs task needs it: map it in [columns])", row=number,
                            field=column)
        return None
    return value


def _int(row: Row, task: PairsTask, source: Source, name: str, path: Path, number: int) -> int:
    value = _value(row, task, source, name, path, number)
    try:
        if isinstance(value, bool) or float(value) != int(float(value)):
            raise ValueError
        return int(float(value))
    except (TypeError, ValueError):
        raise DataError(path, f"{value!r} is not a whole number (a character offset or token index)", row=number,
                        field=task.column(source, name)) from None


def _token_span(text: str, index: int, where: tuple[Path, int, str]) -> tuple[int, int]:
    """The character span of whitespace token `index` (0-based) of `text`."""
    spans, start = [], None
    for k, char in enumerate(text + " "):
        if char.isspace() and start is not None:
            spans.append((start, k))
            start = None
        elif not char.isspace() and start is None:
            start = k
    if not 0 <= index < len(spans):
        raise DataError(where[0], f"token index {index} is outside the sentence, which has {len(spans)} "
                                  "whitespace tokens (0-based)", row=where[1], field=where[2])
    return spans[index]


def _marked(text: str, marks: tuple[str, str], where: tuple[Path, int, str]) -> tuple[str, int, int]:
    """The sentence without its marks, and the span the marks enclosed."""
    open_, close = marks
    start = text.find(open_)
    end = text.find(close, start + len(open_)) if start >= 0 else -1
    if start < 0 or end < 0 or text.count(open_) != 1 or text.count(close) != 1:
        raise DataError(where[0], f"expected the target marked once, as {open_}word{close}", row=where[1],
                        field=where[2])
    plain = text[:start] + text[start + len(open_):end] + text[end + len(close):]
    return plain, start, end - len(open_)


def _usage(row: Row, task: PairsTask, source: Source, k: int, path: Path, number: int) -> Usage:
    """Usage `k` (1 or 2) of a row: its sentence, the target's span, its language."""
    text = str(_value(row, task, source, f"sentence{k}", path, number))
    column = task.column(source, f"sentence{k}")
    if task.target == "marked":
        text, start, end = _marked(text, task.marks, (path, number, column))
    elif task.target == "tokens":
        index_column = "index" if task.column(source, "index") in row else f"index{k}"
        if index_column == "index":
            raw = str(_value(row, task, source, "index", path, number))
            parts = raw.split("-")
            if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
                raise DataError(path, f"{raw!r} is not two token indices as i1-i2", row=number,
                                field=task.column(source, "index"))
            index = int(parts[k - 1])
        else:
            index = _int(row, task, source, index_column, path, number)
        start, end = _token_span(text, index, (path, number, task.column(source, index_column)))
    else:
        start, end = (_int(row, task, source, f"{edge}{k}", path, number) for edge in ("start", "end"))
        if not 0 <= start < end <= len(text):
            raise DataError(path, f"the target's span {start}:{end} falls outside the sentence ({len(text)} "
                                  "characters) or is empty", row=number, field=task.column(source, f"start{k}"))
    lang = _value(row, task, source, f"lang{k}", path, number, needed=False) or getattr(source, f"lang{k}")
    return Usage(text, start, end, str(lang or task.language))


def gold_value(value: Any, task: PairsTask, where: tuple[Path, int, str]) -> tuple[int | None, float | None]:
    """(label, score) of a gold value as the file writes it; None for no gold."""
    if value is None or value == "":
        return None, None
    if task.binary:
        text = str(int(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) and \
            float(value).is_integer() else str(value)
        if text not in (task.same, task.different):
            raise DataError(where[0], f"label {value!r} is none of the mapped values ({task.same!r} = same meaning, "
                                      f"{task.different!r} = different)", row=where[1], field=where[2])
        return int(text == task.same), None
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise DataError(where[0], f"score {value!r} is not a number", row=where[1], field=where[2]) from None
    low, high = task.scale
    if not low <= score <= high:
        raise DataError(where[0], f"score {score:g} is off the declared scale [{low:g}, {high:g}]", row=where[1],
                        field=where[2])
    return None, score


def _gold_lines(task: PairsTask, source: Source, data_dir: Any) -> tuple[Path, list[str]] | None:
    """A source's gold file (one value a line, in the data's order), when it names one."""
    if source.gold is None:
        return None
    path = data_path(task.source, source.gold, task.data_from, data_dir, "splits")
    try:
        return path, [line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def _pair(row: Row, task: PairsTask, source: Source, path: Path, number: int, gold: Any) -> WicPair:
    lemma = str(_value(row, task, source, "lemma", path, number))
    first, second = (_usage(row, task, source, k, path, number) for k in (1, 2))
    check_target(first, lemma, (path, number, task.column(source, "sentence1")), task.lemma_check)
    second_lemma = _value(row, task, source, "lemma2", path, number, needed=False) or lemma
    check_target(second, str(second_lemma), (path, number, task.column(source, "sentence2")), task.lemma_check)
    pair_id = _value(row, task, source, "id", path, number, needed=False)
    if pair_id is None:
        pair_id = f"{Path(source.file).name.split('.')[0]}-{number}"
    label, score = gold_value(gold, task, (path, number, task.column(source, "label" if task.binary else "score")))
    return WicPair(str(pair_id), lemma, first, second, label=label, score=score, source=f"{path}, row {number}")


def read_source(task: PairsTask, source: Source, data_dir: Any = None) -> list[WicPair]:
    """The pairs of one source (a file, or a WUG folder)."""
    path = data_path(task.source, source.file, task.data_from, data_dir, "splits")
    if task.file_format(source.file) == "wug":
        from senso.wic.wug import read_wug

        return read_wug(task, path)
    gold_file = _gold_lines(task, source, data_dir)
    gold_column = task.column(source, "label" if task.binary else "score")
    pairs = []
    for number, row in rows_of(task, path):
        if gold_file is not None and number > len(gold_file[1]):
            raise DataError(gold_file[0], f"has {len(gold_file[1])} lines, fewer than the data's rows ({path})")
        gold = gold_file[1][number - 1] if gold_file is not None else row.get(gold_column)
        pairs.append(_pair(row, task, source, path, number, gold))
    if gold_file is not None and len(gold_file[1]) != len(pairs):
        raise DataError(gold_file[0], f"has {len(gold_file[1])} lines, but {path} has {len(pairs)} rows")
    return pairs


def check_unique(pairs: list[WicPair]) -> None:
    """A pair id names one pair of the split: a repeated one is an error naming both rows."""
    seen: dict[str, WicPair] = {}
    for pair in pairs:
        if pair.pair_id in seen:
            file, _, row = pair.source.rpartition(", row ")
            raise DataError(file, f"pair id {pair.pair_id!r} repeats the pair of {seen[pair.pair_id].source}",
                            row=int(row) if row.isdigit() else None, field="id")
        seen[pair.pair_id] = pair


def read_split(task: PairsTask, split: str, data_dir: Any = None) -> list[WicPair]:
    """Every pair of `split` (its sources in order); SensoError for a split the task does not have."""
    if split not in task.splits:
        raise SensoError(f"{task.name} has no split {split!r}; choose from {', '.join(task.splits)}")
    pairs = [pair for source in task.splits[split] for pair in read_source(task, source, data_dir)]
    check_unique(pairs)
    return pairs
