"""The organisers' gold given apart (`--gold`: WiC-ITA's `gold_truth/binary/` folder, WiC's test gold file),
joined to a split read without it: by pair id, or by row where the gold is one value a line (a `.txt` file, or a
source whose gold file the task file names: WiC).
A pair without gold, or gold for no pair of the split, is an error naming the file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from senso.core.errors import DataError, SensoError
from senso.wic.data import check_unique, gold_value, read_source, rows_of
from senso.wic.items import WicPair
from senso.wic.taskfile import PairsTask, Source

LINES_SUFFIX = ".txt"  # a gold file so named holds one value a line, in the data's order (WiC's `test.gold.txt`)


def _gold_file(gold: Path, source: Source, sources: int) -> Path:
    """The gold file of `source`: in a folder, the file named as its data (or its gold lines file); else `gold`."""
    if not gold.is_dir():
        if sources > 1:
            raise SensoError(f"--gold {gold}: the split has {sources} files, so give the folder holding their gold "
                             "files (named as the data files)")
        return gold
    path = gold / Path(source.gold or source.file).name
    if not path.is_file():
        raise SensoError(f"--gold {gold}: no {path.name} (the gold of {source.file}) in the folder")
    return path


def _by_row(task: PairsTask, pairs: list[WicPair], path: Path) -> list[WicPair]:
    lines = [line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]
    if len(lines) != len(pairs):
        raise DataError(path, f"has {len(lines)} gold values, one a line, but the split's file has {len(pairs)} rows")
    column = "label" if task.binary else "score"
    return [replace(pair, **dict(zip(("label", "score"), gold_value(value, task, (path, k, column)))))
            for k, (pair, value) in enumerate(zip(pairs, lines), start=1)]


def _by_id(task: PairsTask, source: Source, pairs: list[WicPair], path: Path) -> list[WicPair]:
    id_column, column = task.column(source, "id"), task.column(source, "label" if task.binary else "score")
    found: dict[str, tuple[int | None, float | None]] = {}
    for number, row in rows_of(task, path):
        if row.get(id_column) in (None, ""):
            raise DataError(path, "no pair id", row=number, field=id_column)
        found[str(row[id_column])] = gold_value(row.get(column), task, (path, number, column))
    missing = [p.pair_id for p in pairs if p.pair_id not in found]
    unknown = sorted(set(found) - {p.pair_id for p in pairs})
    if missing or unknown:
        raise DataError(path, f"gold for {len(found)} pairs: {len(missing)} pair(s) of {source.file} have none "
                              f"({', '.join(missing[:3])}), {len(unknown)} id(s) name no pair ({', '.join(unknown[:3])})")
    return [replace(pair, label=found[pair.pair_id][0], score=found[pair.pair_id][1]) for pair in pairs]


def gold_split(task: PairsTask, split: str, data_dir: Any, gold: Path) -> list[WicPair]:
    """Every pair of `split`, its gold taken from `gold` (a file, or a folder of files named as the split's)."""
    if split not in task.splits:
        raise SensoError(f"{task.name} has no split {split!r}; choose from {', '.join(task.splits)}")
    if task.file_format(task.splits[split][0].file) == "wug":
        raise SensoError(f"--gold: {task.name}'s gold is in its WUG judgments; leave --gold out")
    gold, sources = Path(gold), task.splits[split]
    pairs = []
    for source in sources:
        read = read_source(task, source, data_dir)
        path = _gold_file(gold, source, len(sources))
        by_row = source.gold is not None or path.suffix.lower() == LINES_SUFFIX
        pairs += _by_row(task, read, path) if by_row else _by_id(task, source, read, path)
    check_unique(pairs)
    return pairs
