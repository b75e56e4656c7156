"""Reading the data files of a ranking task file (`rankfile.py`) into items, validated row by row.

Each row is an expression in a sentence with five images (names and captions) and, where the file carries gold,
the expected order and the sentence type. Images are looked up in the entry's `images` folder, one folder per
expression (an apostrophe may be `_` in folder names, as in AdMIRe's releases). Every problem raises a DataError
naming the file, the row (1 = first data row) and the field.

A row is an item by its position: an expression and sentence that a file repeats (AdMIRe 2's release repeats one
per language, with the images in another order) are two items, each its own row of the submission, with one
warning per file naming the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from senso.admire.data import cell, check_permutation, image_option, parse_order, read_tsv
from senso.admire.items import N_IMAGES_A, SENTENCE_TYPES, AdmireAItem, ImageOption
from senso.admire.rankfile import DataFile, RankingTask, RankingTaskFileError
from senso.core.errors import DataError


@dataclass(frozen=True)
class RankingItem(AdmireAItem):
    """An AdMIRe A item read from a ranking task file, with the expression group it is cross-validated by, the
    key that pairs it with the same expression in another language, its split and where it was read (its file
    and row: what tells apart two rows that repeat an expression and sentence)."""

    group: str = ""
    pair: str = ""
    split: str = ""
    file: str = ""
    row: int = 0


def required_columns(task: RankingTask) -> list[str]:
    names = [task.column("compound"), task.column("sentence")]
    names += [task.column(f, n) for n in range(1, N_IMAGES_A + 1) for f in ("image_name", "image_caption")]
    names += [c for c in (task.group, task.pair) if c]
    return list(dict.fromkeys(names))


def _images(task: RankingTask, row: dict[str, str], path: Path, row_no: int, compound: str,
            folder: Path | None, need_images: bool) -> tuple[ImageOption, ...]:
    """The five images of a row, each with its caption from the column the task file chose."""
    images: list[ImageOption] = []
    for n in range(1, N_IMAGES_A + 1):
        column = task.column("image_name", n)
        image = image_option(row, column, task.column("image_caption", n), folder, compound, need_images, path, row_no)
        if image.name in [i.name for i in images]:
            raise DataError(path, f"image name {image.name!r} appears twice; the {N_IMAGES_A} images must be distinct",
                            row=row_no, field=column)
        images.append(image)
    return tuple(images)


def _gold(task: RankingTask, row: dict[str, str], path: Path, row_no: int,
          names: Sequence[str]) -> tuple[tuple[str, ...] | None, str | None]:
    order, sentence_type = None, None
    order_column, type_column = task.column("expected_order"), task.column("sentence_type")
    if "expected_order" in task.gold:
        if task.gold_order == "listed":
            order = tuple(names)
        elif row.get(order_column, "").strip():
            order = parse_order(row[order_column], path, row_no, field=order_column)
            check_permutation(order, names, path, row_no, order_column)
    if "sentence_type" in task.gold and row.get(type_column, "").strip():
        sentence_type = row[type_column].strip()
        if sentence_type not in SENTENCE_TYPES:
            raise DataError(path, f"unknown sentence type {sentence_type!r}; expected one of "
                                  f"{', '.join(SENTENCE_TYPES)}", row=row_no, field=type_column)
    return order, sentence_type


def repeats_warning(path: Path, rows: dict[tuple[str, str], list[int]]) -> list[str]:
    """One warning naming every expression and sentence the file repeats, with its rows; none when nothing is."""
    repeated = [(key[0], numbers) for key, numbers in rows.items() if len(numbers) > 1]
    if not repeated:
        return []
    said = "; ".join(f"{compound!r} at rows {', '.join(map(str, numbers))}" for compound, numbers in repeated)
    return [f"{path}: the same expression and sentence in several rows ({said}): each row is an item of its own "
            "and a row of the submission"]


def read_entry(task: RankingTask, entry: DataFile, path: Path, images: Path | None,
               need_images: bool) -> tuple[list[RankingItem], list[str]]:
    """The items of one `[[data]]` file, one per row, every row validated (gold all there or all absent per field),
    and the warning naming repeated rows."""
    _, rows = read_tsv(path, required_columns(task), delimiter=task.delimiter_for(path))
    seen: dict[tuple[str, str], list[int]] = {}
    items = []
    for row_no, row in rows:
        compound = cell(row, task.column("compound"), path, row_no, "expression")
        sentence = cell(row, task.column("sentence"), path, row_no, "sentence", raw=True)
        seen.setdefault((compound, " ".join(sentence.split())), []).append(row_no)
        options = _images(task, row, path, row_no, compound, images, need_images)
        order, sentence_type = _gold(task, row, path, row_no, [o.name for o in options])
        group = cell(row, task.group, path, row_no, "group") if task.group else compound
        pair = cell(row, task.pair, path, row_no, "pair key") if task.pair else group
        items.append(RankingItem(
            compound=compound, subset=(row.get(task.column("subset")) or "").strip(), sentence=sentence,
            images=options, lang=entry.language, sentence_type=sentence_type, expected_order=order,
            group=group, pair=pair, split=entry.split,
            file=str(path), row=row_no))
    _check_complete(task, items, path)
    return items, repeats_warning(path, seen)


def _check_complete(task: RankingTask, items: Sequence[RankingItem], path: Path) -> None:
    """A gold field is in every row of a file or in none: a row without it, among rows with it, is an error."""
    for name, column in (("expected_order", task.column("expected_order")),
                         ("sentence_type", task.column("sentence_type"))):
        present = [getattr(i, name) is not None for i in items]
        if any(present) and not all(present):
            first = items[present.index(False)]
            raise DataError(path, f"no {name} here, but {sum(present)} other rows of this file have one: give "
                                  "every row its gold, or none", row=first.row, field=column)


def load_entries(task: RankingTask, entries: Sequence[DataFile], data_dir: Any,
                 need_images: bool) -> tuple[list[RankingItem], list[Path], list[str]]:
    """The items of the chosen `[[data]]` files, in order, the files read and the warnings (repeated rows)."""
    items, paths, warnings = [], [], []
    for entry in entries:
        path = task.where(entry, "file", data_dir)
        if need_images and entry.images is None:
            raise RankingTaskFileError(task.source, f"data[{entry.index}].images", "the system reads the pictures, "
                                       "and this [[data]] table names no images folder (one folder per expression)")
        images = task.where(entry, "images", data_dir, required=need_images)
        entry_items, entry_warnings = read_entry(task, entry, path, images, need_images)
        items += entry_items
        warnings += entry_warnings
        paths.append(path)
    return items, paths, warnings


def split_items(task: RankingTask, split: str, data_dir: Any,
                need_images: bool = False) -> tuple[list[RankingItem], list[Path], list[str]]:
    """The items of `split` (splits joined by +) of `task`, every language, the files read and the data's
    warnings."""
    return load_entries(task, task.chosen(None, split)[0], data_dir, need_images)


def admire_a_items(lang: str, split: str, data_dir: Path | None) -> tuple[list[Any], list[Path]]:
    """AdMIRe 1 Subtask A items of `split` (splits joined by +) in `lang`, read through the shipped task file, and
    the files read."""
    from senso.admire.rankfile import shipped_task

    items, paths, _ = split_items(shipped_task("admire-a", lang), split, data_dir)
    return items, paths
