"""AdMIRe (SemEval-2025 Task 1): loading and validating the official files.

Layout (as the organisers release it, under a data folder):
    admire/subtask_a/<lang>/<split>/subtask_a_<split>.tsv    (xeval: subtask_a_xe.tsv, PT also _xp)
    admire/subtask_a/<lang>/<split>/<compound>/<image>.png   (an apostrophe may be `_` in folder names)
    admire/subtask_b/<lang>/<split>/subtask_b_<split>.tsv
    admire/subtask_b/<lang>/<split>/<compound>/{s1,s2,<candidate>}.png
    admire/reference/a_en_dev_targets.tsv ...                (organisers' gold target files)

Every problem raises a DataError naming the file, the row (1 = first data row) and the field.
"""

from __future__ import annotations

import ast
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from senso.admire.items import N_IMAGES_A, SENTENCE_TYPES, AdmireAItem, AdmireBItem, ImageOption
from senso.core.csvfile import read_records
from senso.core.errors import DataError, DataNotFound, SensoError
from senso.core.paths import data_dir_candidates
from senso.admire.task import SPLITS, SUBTASK_B_LANGS, TASK_NAMES, split_names, targets_name

B_COLUMNS = ("compound", "subset", "sentence_type", "expected_item", "sequence_caption1", "sequence_caption2") + tuple(
    c for n in range(1, 5) for c in (f"image{n}_name", f"image{n}_caption")
)
N_CANDIDATES_B = 4

_FILE_STEMS = {"xeval": "xe"}  # a split whose file is not named after it
_ANSWERS = {"A": "expected_order", "B": "expected_item"}  # the answer column of a targets file, by subtask


@dataclass(frozen=True)
class AdmireATarget:
    """One row of an organisers' Subtask A targets file (`a_<xx>_<split>_targets.tsv`)."""

    compound: str
    subset: str
    sentence_type: str
    sentence: str
    expected_order: tuple[str, ...]
    row: int


@dataclass(frozen=True)
class AdmireBTarget:
    """One row of an organisers' Subtask B targets file (`b_<xx>_<split>_targets.tsv`)."""

    compound: str
    subset: str
    sentence_type: str
    expected_item: str
    row: int


# ---------------------------------------------------------------------------- files and rows

def read_tsv(path: str | Path, required: Sequence[str],
             delimiter: str = "\t") -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and (row number, row) pairs of a tab-separated file (or `delimiter`-separated; UTF-8, optional BOM,
    CSV quoting).

    Raises DataError for a missing file, missing columns, or a row with more fields than the header.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    header, records = read_records(path, delimiter)
    columns = [c.strip() for c in header]
    missing = [c for c in required if c not in columns]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}; found {', '.join(columns) or 'none'}")
    rows = [(row_no, {k.strip(): v for k, v in record.items()}) for row_no, record in enumerate(records, start=1)]
    if not rows:
        raise DataError(path, "no data rows")
    return columns, rows


def parse_order(raw: str, path: str | Path, row: int, field: str = "expected_order") -> tuple[str, ...]:
    """A Python list literal of 5 distinct image file names, e.g. "['1.png', '2.png', ...]"."""
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        raise DataError(path, f"not a Python list literal: {raw[:80]!r}", row=row, field=field) from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(path, f"expected a list of image file names, got {raw[:80]!r}", row=row, field=field)
    if len(value) != N_IMAGES_A:
        raise DataError(path, f"expected {N_IMAGES_A} image names, got {len(value)}", row=row, field=field)
    if len(set(value)) != len(value):
        raise DataError(path, f"repeats an image name: {value}", row=row, field=field)
    return tuple(value)


def check_permutation(order: Sequence[str], images: Iterable[str], path: str | Path, row: int, field: str) -> None:
    images = list(images)
    if set(order) != set(images) or len(order) != len(images):
        extra = sorted(set(order) - set(images))
        missing = sorted(set(images) - set(order))
        detail = "; ".join(p for p in (f"unknown {extra}" if extra else "", f"missing {missing}" if missing else "") if p)
        raise DataError(path, f"not a permutation of the item's images {images} ({detail})", row=row, field=field)


def _sentence_type(raw: str, path: Path, row: int, required: bool) -> str | None:
    value = raw.strip()
    if not value:
        if required:
            raise DataError(path, "missing sentence_type", row=row, field="sentence_type")
        return None
    if value not in SENTENCE_TYPES:
        raise DataError(path, f"unknown sentence_type {value!r}; expected one of {', '.join(SENTENCE_TYPES)}", row=row, field="sentence_type")
    return value


def read_compound(row: dict[str, str], path: Path, row_no: int, seen: dict[str, int]) -> str:
    compound = row["compound"].strip()
    if not compound:
        raise DataError(path, "empty compound", row=row_no, field="compound")
    if compound in seen:
        raise DataError(path, f"duplicate compound {compound!r} (first at row {seen[compound]})", row=row_no, field="compound")
    seen[compound] = row_no
    return compound


def _check_distinct(names: Sequence[str], path: Path, row_no: int) -> None:
    for n, name in enumerate(names, start=1):
        if name in names[: n - 1]:
            raise DataError(path, f"image name {name!r} appears twice; the {len(names)} images must be distinct: {list(names)}",
                            row=row_no, field=f"image{n}_name")


def _check_candidate(item: str, names: list[str], path: Path, row_no: int) -> None:
    if item not in names:
        raise DataError(path, f"expected_item {item!r} is not one of the candidates {names}", row=row_no,
                        field="expected_item")


# ---------------------------------------------------------------------------- targets files

def read_targets(path: str | Path, answer: str | None = None) -> list[AdmireATarget] | list[AdmireBTarget]:
    """Read an organisers' targets file: its compound, sentence_type and `answer` column (expected_order:
    Subtask A, expected_item: Subtask B; not given: told by the file's columns), validated, each row a target."""
    path = Path(path)
    if answer is None:
        columns, _ = read_tsv(path, ("compound",))
        answer = next((c for c in _ANSWERS.values() if c in columns), None)
        if answer is None:
            raise DataError(path, "not an AdMIRe targets file: needs expected_order (A) or expected_item (B); found "
                                  f"{', '.join(columns)}")
    _, rows = read_tsv(path, ("compound", "sentence_type", answer))
    seen: dict[str, int] = {}
    targets = []
    for row_no, row in rows:
        compound = read_compound(row, path, row_no, seen)
        sentence_type = _sentence_type(row["sentence_type"], path, row_no, required=True)
        subset = row.get("subset", "").strip()
        if answer == "expected_order":
            order = parse_order(row[answer], path, row_no)
            targets.append(AdmireATarget(compound, subset, sentence_type, row.get("sentence", ""), order, row_no))
        elif not row[answer].strip():
            raise DataError(path, "missing expected_item", row=row_no, field="expected_item")
        else:
            targets.append(AdmireBTarget(compound, subset, sentence_type, row[answer].strip(), row_no))
    return targets


def items_from_targets_a(path: str | Path, lang: str) -> list[AdmireAItem]:
    """The Subtask A items a targets file names, to score a submission or a sense classifier against the targets
    alone, as the official scorer does: compound, sentence, sentence type and gold order; the images are the
    order's names (sorted), without captions or pictures."""
    return [AdmireAItem(t.compound, t.subset, t.sentence, tuple(ImageOption(n, "") for n in sorted(t.expected_order)),
                        lang=lang, sentence_type=t.sentence_type, expected_order=t.expected_order)
            for t in read_targets(path, "expected_order")]


# ---------------------------------------------------------------------------- locating files

def locate_admire(data_dir: str | Path | None = None) -> Path:
    """The `admire` folder: under --data-dir (or that folder itself), SENSO_DATA_DIR, the user cache."""
    candidates = data_dir_candidates(data_dir)
    for base in candidates:
        for root in (base / "admire", base):
            if (root / "subtask_a").is_dir() or (root / "subtask_b").is_dir() or (root / "reference").is_dir():
                return root
    where = ", ".join(str(c) for c in candidates)
    raise DataNotFound(
        f"AdMIRe data not found (looked for admire/subtask_a in {where}). Download the official release with "
        "`senso data fetch admire` (or point --data-dir / SENSO_DATA_DIR at a folder holding admire/)."
    )


def folder_names(compound: str) -> tuple[str, ...]:
    """Image folder names to try for a compound: as written, in either Unicode normal form (an accent written as
    one character or as a letter and a combining mark: file systems and editors differ), then each with `'`
    replaced by `_` (some copies)."""
    names = list(dict.fromkeys((compound, unicodedata.normalize("NFC", compound),
                                unicodedata.normalize("NFD", compound))))
    return tuple(dict.fromkeys(names + [n.replace("'", "_") for n in names if "'" in n]))


def image_folder(split_dir: Path, compound: str) -> Path | None:
    for name in folder_names(compound):
        if (split_dir / name).is_dir():
            return split_dir / name
    return None


def split_file(data_dir: str | Path | None, subtask: str, lang: str, split: str) -> Path:
    """Path of the official split TSV; DataNotFound (saying what was looked for) when absent."""
    if split not in SPLITS:
        raise SensoError(f"unknown AdMIRe split {split!r}; choose from {', '.join(SPLITS)}")
    split_dir = locate_admire(data_dir) / f"subtask_{subtask}" / lang / split
    path = split_dir / f"subtask_{subtask}_{_FILE_STEMS.get(split, split)}.tsv"
    if not path.is_file():
        raise DataNotFound(f"no Subtask {subtask.upper()} {lang} {split} file: looked for {path}.")
    return path


# ---------------------------------------------------------------------------- gold targets joined to inputs

def _join_gold(items: list, gold_path: str | Path, inputs_path: str | Path, subtask: str) -> list:
    """Items with the gold sentence type and answer (A: expected_order, B: expected_item) of a targets file,
    joined on compound.

    Refuses a targets file of the other subtask, one whose compounds differ from the inputs', an answer that is
    not one of the item's images, and gold that contradicts gold already in the inputs (nothing is overwritten).
    """
    gold_path = Path(gold_path)
    answer, other = _ANSWERS[subtask], "B" if subtask == "A" else "A"
    targets = read_targets(gold_path)
    if targets and not hasattr(targets[0], answer):
        raise DataError(gold_path, f"this is a Subtask {other} targets file ({_ANSWERS[other]}), not Subtask {subtask}")
    by_compound = {t.compound: t for t in targets}
    inputs, gold = {i.compound for i in items}, set(by_compound)
    if inputs != gold:
        parts = [f"in the {a} but not the {b}: {sorted(extra)}" for a, b, extra in
                 (("gold", "inputs", gold - inputs), ("inputs", "gold", inputs - gold)) if extra]
        raise DataError(gold_path, f"gold and inputs ({inputs_path}) disagree on the compounds: " + "; ".join(parts))
    joined = []
    for item in items:
        target = by_compound[item.compound]
        if answer == "expected_order":
            check_permutation(target.expected_order, item.image_names, gold_path, target.row, answer)
        else:
            _check_candidate(target.expected_item, [c.name for c in item.candidates], gold_path, target.row)
        for field in ("sentence_type", answer):
            mine, theirs = getattr(item, field), getattr(target, field)
            if mine is not None and mine != theirs:
                raise DataError(gold_path, f"gold {field} {theirs!r} contradicts {mine!r} in {inputs_path} for {item.compound!r}",
                                row=target.row, field=field)
        joined.append(replace(item, sentence_type=target.sentence_type, **{answer: getattr(target, answer)}))
    return joined


def join_gold_a(items: list[AdmireAItem], gold_path: str | Path, inputs_path: str | Path) -> list[AdmireAItem]:
    """Items with gold (sentence_type, expected_order) from an organisers' targets file, joined on compound."""
    return _join_gold(items, gold_path, inputs_path, "A")


# ---------------------------------------------------------------------------- cells and images of a row

def cell(row: dict[str, str], column: str, path: Path, row_no: int, what: str, raw: bool = False) -> str:
    """The cell, stripped (`raw`: as written, as AdMIRe's loader keeps sentences and captions); empty is an error."""
    value = row.get(column) or ""
    if not value.strip():
        raise DataError(path, f"empty {what}", row=row_no, field=column)
    return value if raw else value.strip()


def image_option(row: dict[str, str], name_column: str, caption_column: str, images: Path | None, compound: str,
                 need_images: bool, path: Path, row_no: int) -> ImageOption:
    """An image of a row: its name and caption (neither empty) and its picture's file in the expression's folder
    under `images` when it is there (an error when the system needs pictures)."""
    name = cell(row, name_column, path, row_no, "image name")
    caption = cell(row, caption_column, path, row_no, "caption", raw=True)
    folder = image_folder(images, compound) if images is not None else None
    image_path = folder / name if folder is not None and (folder / name).is_file() else None
    if need_images and image_path is None:
        looked = " or ".join(str(images / f / name) for f in folder_names(compound)) if images else "(no images folder)"
        raise DataError(path, f"image file missing: {looked}", row=row_no, field=name_column)
    return ImageOption(name=name, caption=caption, path=image_path)


# ---------------------------------------------------------------------------- Subtask B

def read_subtask_b(path: str | Path, lang: str = "en", need_images: bool = False) -> list[AdmireBItem]:
    """Read and validate one Subtask B TSV; images (s1.png, s2.png, candidates) next to it."""
    path = Path(path)
    _, rows = read_tsv(path, B_COLUMNS)
    split_dir = path.parent
    seen: dict[str, int] = {}
    items = []
    for row_no, row in rows:
        compound = read_compound(row, path, row_no, seen)
        candidates = [image_option(row, f"image{n}_name", f"image{n}_caption", split_dir, compound, need_images, path,
                                   row_no) for n in range(1, N_CANDIDATES_B + 1)]
        names = [c.name for c in candidates]
        _check_distinct(names, path, row_no)
        sequence = tuple(cell(row, f"sequence_caption{n}", path, row_no, "sequence caption", raw=True) for n in (1, 2))
        folder = image_folder(split_dir, compound)
        sequence_paths = None
        if folder is not None and all((folder / f"s{n}.png").is_file() for n in (1, 2)):
            sequence_paths = (folder / "s1.png", folder / "s2.png")
        elif need_images:
            raise DataError(path, f"sequence images s1.png / s2.png missing in {split_dir / folder_names(compound)[-1]}", row=row_no, field="compound")
        expected = row["expected_item"].strip() or None
        if expected is not None:
            _check_candidate(expected, names, path, row_no)
        items.append(AdmireBItem(
            compound=compound, subset=row["subset"].strip(),
            sequence_captions=sequence, candidates=tuple(candidates),
            lang=lang, sentence_type=_sentence_type(row["sentence_type"], path, row_no, required=False),
            expected_item=expected, sequence_paths=sequence_paths,
        ))
    return items


def join_gold_b(items: list[AdmireBItem], gold_path: str | Path, inputs_path: str | Path) -> list[AdmireBItem]:
    """Items with gold (sentence_type, expected_item) from a Subtask B targets file, joined on compound."""
    return _join_gold(items, gold_path, inputs_path, "B")


def load_subtask_b(data_dir: str | Path | None, lang: str = "en", split: str = "train", gold: str | Path | None = None,
                   need_images: bool = False) -> list[AdmireBItem]:
    """The items of one official Subtask B split, validated; with `gold`, joined with that targets file."""
    path = split_file(data_dir, "b", lang, split)
    items = read_subtask_b(path, lang=lang, need_images=need_images)
    if gold is not None:
        items = join_gold_b(items, gold, path)
    return items


def load_splits_b(data_dir: str | Path | None, lang: str, split: str) -> list[AdmireBItem]:
    """The items of Subtask B's splits `split` (joined by +, each once) in `lang`."""
    if lang not in SUBTASK_B_LANGS:
        raise SensoError(f"{TASK_NAMES['b']} has no language {lang!r}; choose from {', '.join(SUBTASK_B_LANGS)}")
    return [item for name in split_names(split) for item in load_subtask_b(data_dir, lang, name)]


def official_targets(data_dir: str | Path | None, subtask: str, lang: str, split: str) -> Path | None:
    """The organisers' targets file of a split in the data folder's reference/ (e.g. b_en_dev_targets.tsv), when
    it is there."""
    path = locate_admire(data_dir) / "reference" / targets_name(subtask, lang, split)
    return path if path.is_file() else None
