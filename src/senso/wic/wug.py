"""Word Usage Graph folders (DURel/WUG format: DWUG EN, DE, SV, LA, ES, IT ...): one folder per lemma holding
`uses.csv` (tab-separated: `identifier`, `context`, `indexes_target_token` as `start:end` characters) and
`judgments.csv` (`identifier1`, `identifier2`, `annotator`, `judgment`, ...). A pair's gold is the median (or
mean, as the task file says) of its non-zero judgments, 0 meaning "cannot decide"; pairs with fewer than
`min_judgments` non-zero judgments are left out."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

from senso.core.errors import DataError, not_utf8
from senso.wic.target import check_target
from senso.wic.items import Usage, WicPair
from senso.wic.taskfile import PairsTask

USES, JUDGMENTS = "uses.csv", "judgments.csv"
CANNOT_DECIDE = 0.0


def _records(path: Path) -> list[dict[str, str]]:
    """A WUG file's rows (tab-separated, no quoting: contexts hold quotes as text)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    except UnicodeDecodeError:
        raise not_utf8(path) from None


def _uses(path: Path, lemma: str, language: str) -> dict[str, Usage]:
    uses = {}
    for number, row in enumerate(_records(path), start=1):
        text, span = row.get("context") or "", row.get("indexes_target_token") or ""
        start, _, end = span.partition(":")
        if not (start.isdigit() and end.isdigit()):
            raise DataError(path, f"{span!r} is not start:end character offsets", row=number,
                            field="indexes_target_token")
        usage = Usage(text, int(start), int(end), language)
        if not 0 <= usage.start < usage.end <= len(text):
            raise DataError(path, f"the target's span {span} falls outside the context ({len(text)} characters)",
                            row=number, field="indexes_target_token")
        check_target(usage, lemma.rsplit("_", 1)[0], (path, number, "indexes_target_token"))
        uses[row.get("identifier", "")] = usage
    return uses


def _judgments(path: Path, uses: dict[str, Usage], scale: tuple[float, float]) -> dict[tuple[str, str], list[float]]:
    """Each pair's non-zero judgments (the pair's two identifiers sorted)."""
    judged: dict[tuple[str, str], list[float]] = defaultdict(list)
    for number, row in enumerate(_records(path), start=1):
        for column in ("identifier1", "identifier2"):
            if row.get(column) not in uses:
                raise DataError(path, f"use {row.get(column)!r} is not in {USES}", row=number, field=column)
        try:
            value = float(row.get("judgment") or "")
        except ValueError:
            raise DataError(path, f"judgment {row.get('judgment')!r} is not a number", row=number,
                            field="judgment") from None
        if value != CANNOT_DECIDE and not scale[0] <= value <= scale[1]:
            raise DataError(path, f"judgment {value:g} is off the scale [{scale[0]:g}, {scale[1]:g}] (0: cannot "
                                  "decide)", row=number, field="judgment")
        key = tuple(sorted((row["identifier1"], row["identifier2"])))
        judged[key]  # a pair judged only "cannot decide" is still a pair of the lemma, left out below
        if value != CANNOT_DECIDE:
            judged[key].append(value)
    return judged


def _lemma_pairs(task: PairsTask, folder: Path) -> list[WicPair]:
    lemma = folder.name
    uses = _uses(folder / USES, lemma, task.language)
    aggregate = statistics.median if task.aggregation == "median" else statistics.fmean
    pairs = []
    for (a, b), values in sorted(_judgments(folder / JUDGMENTS, uses, task.scale).items()):
        if len(values) >= task.min_judgments:
            pairs.append(WicPair(f"{lemma}/{a}|{b}", lemma, uses[a], uses[b], score=float(aggregate(values)),
                                 source=f"{folder / JUDGMENTS}, pair {a} | {b}"))
    if not pairs:
        raise DataError(folder / JUDGMENTS, f"lemma {lemma!r} has no pair left after dropping the judgments of 0 "
                                            f"(cannot decide) and pairs with fewer than {task.min_judgments} "
                                            "non-zero judgments")
    return pairs


def read_wug(task: PairsTask, root: Path) -> list[WicPair]:
    """Every pair of every lemma folder under `root` (lemmas in name order)."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and (p / JUDGMENTS).exists())
    if not folders:
        raise DataError(root, f"no lemma folder holding {USES} and {JUDGMENTS}")
    for folder in folders:
        if not (folder / USES).exists():
            raise DataError(folder, f"has {JUDGMENTS} but no {USES}")
    return [pair for folder in folders for pair in _lemma_pairs(task, folder)]
