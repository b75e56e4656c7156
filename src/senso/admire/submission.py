"""AdMIRe submission files in the official Codabench format: write, read, validate, pack.

Subtask A: tab-separated, columns `compound` and `expected_order` (a Python list literal of the 5
image file names, best first), one row per item. Subtask B: columns `compound`, `sentence_type`,
`expected_item`. Files are named `submission_<XX>.tsv` (XX: EN, PT, XE, XP; see
`senso.admire.task.submission_name`) and zipped at the root of the archive for upload.
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Mapping, Sequence

from senso.admire.data import check_permutation, parse_order, read_compound, read_tsv
from senso.admire.items import SENTENCE_TYPES
from senso.core.errors import DataError, SensoError
from senso.core.output import atomic_file, check_output_file
from senso.core.records import config_option, load_config, load_samples
from senso.admire.rankfile import shipped_task
from senso.admire.task import SUBTASK_B_SIZES, TASK_NAMES, parse_submission_name, shipped_languages

A_HEADER = ("compound", "expected_order")
B_HEADER = ("compound", "sentence_type", "expected_item")


@dataclass(frozen=True)
class SubmissionRow:
    row: int  # 1 = first data row
    compound: str
    expected_order: tuple[str, ...] | None = None  # Subtask A
    sentence_type: str | None = None  # Subtask B
    expected_item: str | None = None  # Subtask B


@dataclass(frozen=True)
class Submission:
    path: Path
    subtask: str  # "a" or "b"
    rows: tuple[SubmissionRow, ...]

    def by_compound(self) -> dict[str, SubmissionRow]:
        return {r.compound: r for r in self.rows}


# ---------------------------------------------------------------------------- writing

def _text(header: Sequence[str], rows: Sequence[Sequence[str]], delimiter: str = "\t") -> str:
    """The text of a submission file (tab-separated unless said)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def format_order(order: Sequence[str]) -> str:
    """The list literal the organisers' files use: "['a.png', 'b.png', ...]"."""
    return repr([str(name) for name in order])


def submission_text_b(predictions: Sequence[tuple[str, str, str]]) -> str:
    """(compound, sentence_type, expected_item) triples as the text of an official Subtask B submission file."""
    return _text(B_HEADER, [tuple(p) for p in predictions])


# ---------------------------------------------------------------------------- reading

def read_submission(path: str | Path) -> Submission:
    """Read a submission file; Subtask A or B is told by its columns. Format errors name row and field."""
    path = Path(path)
    columns, raw_rows = read_tsv(path, ("compound",))
    if "expected_order" in columns:
        subtask = "a"
    elif "expected_item" in columns and "sentence_type" in columns:
        subtask = "b"
    else:
        raise DataError(path, f"not an AdMIRe submission: needs columns {', '.join(A_HEADER)} (Subtask A) or "
                              f"{', '.join(B_HEADER)} (Subtask B); found {', '.join(columns)}")
    seen: dict[str, int] = {}
    rows = []
    for row_no, row in raw_rows:
        compound = read_compound(row, path, row_no, seen)
        if subtask == "a":
            order = parse_order(row["expected_order"], path, row_no)
            rows.append(SubmissionRow(row_no, compound, expected_order=order))
        else:
            sentence_type = row["sentence_type"].strip()
            if sentence_type not in SENTENCE_TYPES:
                raise DataError(path, f"sentence_type must be one of {', '.join(SENTENCE_TYPES)}, got {sentence_type!r}",
                                row=row_no, field="sentence_type")
            item = row["expected_item"].strip()
            if not item:
                raise DataError(path, "empty expected_item", row=row_no, field="expected_item")
            rows.append(SubmissionRow(row_no, compound, sentence_type=sentence_type, expected_item=item))
    return Submission(path=path, subtask=subtask, rows=tuple(rows))


# ---------------------------------------------------------------------------- validation against items

def check_submission(
    submission: Submission,
    images: Mapping[str, Sequence[str]],
    expected_rows: int | None,
    allow_partial: bool = False,
    size_note: str = "",
) -> None:
    """Refuse what the official scorer refuses, naming the row.

    `images` maps every compound of the split to its image names (A: the 5 images; B: the 4
    candidates, or None when unknown, as in a targets file). A row naming an unknown compound, a Subtask A order that is not a permutation of
    the item's images, or a Subtask B item that is not one of the candidates is refused. Unless
    `allow_partial`, the row count must be `expected_rows` (the official split size) and every
    compound of the split must be present.
    """
    path = submission.path
    for row in submission.rows:
        if row.compound not in images:
            raise DataError(path, f"unknown compound {row.compound!r} (not in this split)", row=row.row, field="compound")
        if submission.subtask == "a":
            check_permutation(row.expected_order, images[row.compound], path, row.row, "expected_order")
        elif images[row.compound] is not None and row.expected_item not in images[row.compound]:
            raise DataError(path, f"expected_item {row.expected_item!r} is not one of the candidates {list(images[row.compound])}",
                            row=row.row, field="expected_item")
    if allow_partial:
        return
    if expected_rows is not None and len(submission.rows) != expected_rows:
        raise DataError(path, f"{len(submission.rows)} rows, but the official split has {expected_rows}{size_note}; "
                              "the official scorer refuses a partial submission (pass --allow-partial to score these rows only)")
    missing = sorted(set(images) - {r.compound for r in submission.rows})
    if missing:
        raise DataError(path, f"no prediction for {len(missing)} compound(s) of the split: {missing[:10]}"
                              " (pass --allow-partial to score the rows present only)")


@cache
def official_sizes() -> dict[tuple[str, str, str], int]:
    """The official item count of every (subtask, language, split): Subtask A's are its shipped task files' `rows`;
    the official scorer refuses other row counts."""
    name = TASK_NAMES["a"]
    sizes = {("a", d.language, d.split): int(d.rows or 0) for lang in shipped_languages(name)
             for d in shipped_task(name, lang).data}
    return {**sizes, **{("b", lang, split): n for (lang, split), n in SUBTASK_B_SIZES.items()}}


def official_size(subtask: str, lang: str, split: str) -> int:
    try:
        return official_sizes()[(subtask, lang, split)]
    except KeyError:
        raise SensoError(f"no official split {split!r} for subtask {subtask.upper()} in {lang!r}") from None


def plausible_sizes(subtask: str, filename: str) -> set[int]:
    """Official row counts a submission with this file name may have (e.g. XE: 100; EN for A: 70 or 15)."""
    parsed = parse_submission_name(filename)
    if parsed is None:
        return set()
    lang, split = parsed
    return {size for (s, l, sp), size in official_sizes().items()
            if s == subtask and l == lang and (sp == split if split else sp != "xeval")}


# ---------------------------------------------------------------------------- packing

def _submission_in(path: Path) -> tuple[Path, dict | None]:
    """(submission file, run config or None) for a file or a senso run folder."""
    if path.is_file():
        return path, None
    if not path.is_dir():
        raise SensoError(f"{path}: no such file or run folder")
    found = sorted(p for p in path.iterdir() if p.is_file() and parse_submission_name(p.name))
    if len(found) != 1:
        raise SensoError(f"{path}: expected exactly one submission_<XX>.tsv in the run folder, found "
                         f"{', '.join(p.name for p in found) or 'none'}")
    return found[0], load_config(path)


def _run_images(run_dir: Path) -> dict[str, list[str]] | None:
    """Each compound's images as the run's samples list them; None without samples that list them."""
    if not (run_dir / "samples.jsonl").exists():
        return None
    return {s["compound"]: list(s["images"]) for s in load_samples(run_dir) if "images" in s} or None


def pack(inputs: Sequence[str | Path], out_zip: str | Path, allow_partial: bool = False) -> list[str]:
    """Validate submission files (or run folders holding one) and zip them at the archive's root.

    Each file must parse as an official submission and have an official row count for its name
    (unless `allow_partial`); files from run folders are also checked against the run's items. Two
    files with the same name, Subtask A and B files together, or a non-official file name are refused.
    Returns the names stored in the zip.
    """
    out_zip = Path(out_zip)
    check_output_file(out_zip, "-o")
    chosen: dict[str, Path] = {}
    subtasks = set()
    for raw in inputs:
        path, config = _submission_in(Path(raw))
        if parse_submission_name(path.name) is None:
            raise SensoError(f"{path}: not an official submission file name (submission_EN/PT/XE/XP.tsv)")
        submission = read_submission(path)
        subtasks.add(submission.subtask)
        expected = None
        if config is not None:
            key = ("b" if config.get("task") == "admire-b" else "a", config_option(config, "lang", "en"),
                   config_option(config, "split"))
            expected = official_sizes().get(key)
            images = _run_images(Path(raw))
            if images is not None:
                check_submission(submission, images, expected, allow_partial=allow_partial or bool(config_option(config, "limit")))
        sizes = {expected} if expected else plausible_sizes(submission.subtask, path.name)
        if not allow_partial and len(submission.rows) not in sizes:
            raise DataError(path, f"{len(submission.rows)} rows; an official {path.name} for Subtask "
                                  f"{submission.subtask.upper()} has {' or '.join(map(str, sorted(sizes)))}")
        clash = next((p for n, p in chosen.items() if n.lower() == path.name.lower()), None)
        if clash is not None:
            raise SensoError(f"two submissions named {path.name}: {clash} and {path}")
        chosen[path.name] = path
    if len(subtasks) > 1:
        raise SensoError("Subtask A and Subtask B submissions go to different Codabench competitions; pack them separately")
    with atomic_file(out_zip, "-o", binary=True) as fh, zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, path in sorted(chosen.items()):
            zf.write(path, arcname=name)
    return sorted(chosen)



def submission_text_ranked(predictions: Sequence[tuple[str, str, Sequence[str], str | None]], sentences: bool,
                           sentence_types: bool) -> str:
    """(compound, sentence, predicted order, predicted sentence type) rows as a submission file of a ranking task
    file: Subtask A's columns, with `sentence` when an expression occurs in several sentences and `sentence_type`
    when the task asks for it (blank where the system decides none)."""
    header = ("compound",) + (("sentence",) if sentences else ()) + ("expected_order",) + (
        ("sentence_type",) if sentence_types else ())
    rows = [(compound,) + ((sentence,) if sentences else ()) + (format_order(order),) + (
        (kind or "",) if sentence_types else ()) for compound, sentence, order, kind in predictions]
    return _text(header, rows)


def submission_text_filled(path: Path, delimiter: str, filled: Mapping[int, dict[str, str]]) -> str:
    """A data file as its own submission (AdMIRe 2's release is the form to fill in): its header and its rows, in
    its order, each predicted row (`filled`: row number -> column -> value) with those cells written; a column the
    file lacks is added at the end. Rows not predicted (a --limit run) are left out."""
    columns, rows = read_tsv(path, [], delimiter=delimiter)
    header = columns + [c for c in dict.fromkeys(c for cells in filled.values() for c in cells) if c not in columns]
    return _text(header, [[{**row, **filled[row_no]}.get(c, "") for c in header] for row_no, row in rows
                          if row_no in filled], delimiter)
