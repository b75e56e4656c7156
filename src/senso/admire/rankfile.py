"""A ranking task is a TOML file (`kind = "ranking"`): a sentence with a potentially idiomatic expression, five
candidate images with captions, a gold order and a sentence type, in any language. Its keys are the fields of
`RankingTask` and of `DataFile` (one `[[data]]` table per data file), with `[columns]` naming the data files'
columns; docs/ranking_task_files.md describes each. Every problem raises a RankingTaskFileError naming the file
and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Sequence

from senso.admire.items import N_IMAGES_A
from senso.admire.languages import LanguageCodeError, check_language
from senso.admire.metrics import DEFAULT_GAINS, DEFAULT_METRICS, RANK_METRICS, TYPE_METRICS
from senso.admire.task import RANKING_FILE_KIND, SHIPPED, SHIPPED_DIR, shipped_languages
from senso.core.errors import SensoError
from senso.core.taskfile import (DATA_FROM, NAME_PATTERN, TaskFileError, check_keys, choice_key, column_table,
                                 data_path, delimiter_for, delimiter_key, name_key, read_task_file, string_key)

# the splits fitted and selected on by default; several files may hold the first (AdMIRe 1's train and dev)
DEFAULT_TRAINING = ("train",)
SUBTASKS = {"images": "rank the five images", "captions": "rank the five captions, no pictures (text only)"}
GOLD_FIELDS = ("expected_order", "sentence_type")
GOLD_ORDERS = ("column", "listed")  # listed: the images as the file lists them, best first (XMPIE's spectrum)
# "admire": AdMIRe 1's columns (compound, expected_order; sentence and sentence_type as needed); "data-file": each
# data file's own header and rows, in its order, with the order (and sentence type) filled in (AdMIRe 2's release).
SUBMISSION_COLUMNS = ("admire", "data-file")
COLUMNS = {"compound": "compound", "sentence": "sentence", "subset": "subset", "sentence_type": "sentence_type",
           "expected_order": "expected_order", "image_name": "image{n}_name", "image_caption": "image{n}_caption"}
NEEDS = "a ranking task file needs kind, name and [[data]]"
DEFAULT_SPLIT = "test"


class RankingTaskFileError(TaskFileError):
    """A bad ranking task file: names the file and the key, and says what to write instead."""


@dataclass(frozen=True)
class DataFile:
    """One `[[data]]` table: the file, its language, its split, its images folder and submission file name."""

    file: str
    language: str
    split: str
    images: str | None
    submission: str
    index: int  # its position among the `[[data]]` tables, from 1 (messages say `data[2]`)
    data_from: str = "task-file"  # where `file` and `images` are: beside the task file or in the data folder
    rows: int | None = None  # the official row count (fewer items: the run is PARTIAL)
    targets: str | None = None  # an organisers' targets file, read when the data file carries no gold


@dataclass(frozen=True)
class RankingTask:
    name: str
    description: str
    subtask: str
    sentence_type: bool
    gold: tuple[str, ...]
    gold_order: str
    metrics: tuple[str, ...]
    gains: tuple[float, ...]
    ndcg_k: int
    group: str | None  # a column; None: the compound column
    pair: str | None  # a column linking the same expression across languages; None: the group
    data_from: str
    delimiter: str | None
    submission_columns: str
    data: tuple[DataFile, ...]
    columns: dict[str, str]
    source: Path
    builtin: bool = False
    training: tuple[str, ...] = DEFAULT_TRAINING  # the splits whose rows fitted systems learn from
    default_system: str | None = None  # None: chosen on the training rows (`ranking.select`)
    default_split: str | None = None  # None: test when the file has one, else its first
    leaderboard_splits: tuple[str, ...] = ()  # the splits a published leaderboard covers (placement)
    caption_columns: dict[str, str] = field(default_factory=dict)  # --caption-lang -> the caption column

    @property
    def reference(self) -> str:
        return self.name if self.builtin else str(self.source)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.language for d in self.data))

    @property
    def splits(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.split for d in self.data))

    def with_captions(self, lang: str | None) -> "RankingTask":
        """The task reading the caption column of `lang` (`caption_columns`; None: its first)."""
        if not self.caption_columns:
            if lang is not None:
                raise SensoError(f"--caption-lang: {self.reference} has one caption column ([columns] maps it); "
                                 "its `caption_columns` would name one per language")
            return self
        lang = lang or next(iter(self.caption_columns))
        if lang not in self.caption_columns:
            raise SensoError(f"--caption-lang {lang!r}: choose from {', '.join(self.caption_columns)}")
        return replace(self, columns={**self.columns, "image_caption": self.caption_columns[lang]})

    def training_entries(self) -> list[DataFile]:
        """The `[[data]]` files fitted systems learn from, every language."""
        return [d for d in self.data if d.split in self.training]

    def chosen(self, lang: str | None, split: str | None) -> tuple[list[DataFile], list[str], str]:
        """The `[[data]]` files of --lang and --split (default: every language; `default_split`, else test when
        the file has one, else its first), their languages and the split text."""
        splits = (split or self.default_split or (DEFAULT_SPLIT if DEFAULT_SPLIT in self.splits else
                                                  self.splits[0])).split("+")
        try:
            langs = [check_language(code) for code in lang.split("+")] if lang else list(self.languages)
        except LanguageCodeError as exc:
            raise SensoError(f"--lang: {exc}") from None
        for name, given, have in (("--split", splits, self.splits), ("--lang", langs, self.languages)):
            twice = sorted({g for g in given if given.count(g) > 1})
            if twice:
                raise SensoError(f"{name} {'+'.join(given)} names a {name[2:]} twice ({', '.join(twice)})")
            if any(g not in have for g in given):
                raise SensoError(f"{name} {'+'.join(given)}: {self.reference} has {', '.join(have)}; join several "
                                 "with +")
        entries = [d for s in splits for d in self.data if d.split == s and d.language in langs]
        if not entries:
            raise SensoError(f"{self.reference} has no data file for --lang {'+'.join(langs)} and --split "
                             f"{'+'.join(splits)}")
        return entries, list(dict.fromkeys(d.language for d in entries)), "+".join(splits)

    def column(self, field_name: str, n: int | None = None) -> str:
        return self.columns[field_name].replace("{n}", str(n)) if n is not None else self.columns[field_name]

    def delimiter_for(self, path: Path) -> str:
        return delimiter_for(self.delimiter, path)

    def where(self, entry: DataFile, key: str, data_dir: str | Path | None, required: bool = True) -> Path | None:
        """The path of an entry's `file` or `images` (relative to the task file, or found in the data folder)."""
        relative = getattr(entry, key)
        if relative is None:
            return None
        fetch = " (the official release: `senso data fetch admire`)" if self.builtin else ""
        return data_path(self.source, relative, entry.data_from, data_dir, f"data[{entry.index}].{key}",
                         RankingTaskFileError, fetch, required)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "task_file": str(self.source), "builtin": self.builtin, "subtask": self.subtask,
                "sentence_type": self.sentence_type, "gold": list(self.gold), "gold_order": self.gold_order,
                "metrics": list(self.metrics), "gains": list(self.gains), "ndcg_k": self.ndcg_k,
                "group": self.group or self.columns["compound"], "pair": self.pair or self.group or
                self.columns["compound"], "languages": list(self.languages), "columns": dict(self.columns)}


# the keys a file may write: the fields of its tables (and `kind`), in their order
KEYS = ("kind", *(f.name for f in fields(RankingTask) if f.name not in ("source", "builtin")))
DATA_KEYS = tuple(f.name for f in fields(DataFile) if f.name != "index")


def _names(data: dict[str, Any], path: Path, key: str, allowed: tuple[str, ...], default: tuple[str, ...]) -> tuple:
    value = data.get(key, list(default))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RankingTaskFileError(path, key, f"expected a list of names from {', '.join(allowed)}, got {value!r}")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise RankingTaskFileError(path, key, f"unknown {unknown[0]!r}; choose from {', '.join(allowed)}")
    if len(set(value)) != len(value):
        raise RankingTaskFileError(path, key, f"names one twice: {value}")
    return tuple(value)


def _gains(data: dict[str, Any], path: Path) -> tuple[float, ...]:
    value = data.get("gains", list(DEFAULT_GAINS))
    ok = isinstance(value, list) and len(value) == N_IMAGES_A and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in value)
    if not ok or not any(value):
        raise RankingTaskFileError(path, "gains", f"expected {N_IMAGES_A} gains >= 0, not all 0, for the images "
                                   f"at gold ranks 1..{N_IMAGES_A} (AdMIRe: [3, 1, 0, 0, 0]); got {value!r}")
    return tuple(float(v) for v in value)


def _columns(data: dict[str, Any], path: Path) -> dict[str, str]:
    raw = column_table(data, path, tuple(COLUMNS), 'compound = "idiom"', RankingTaskFileError)
    for key, value in raw.items():
        if key.startswith("image_") and "{n}" not in value:
            raise RankingTaskFileError(path, f"columns.{key}", f"{value!r} has no {{n}}: write the column of image "
                                                               "n, e.g. \"image{n}_name\"")
    return {**COLUMNS, **raw}


def _data_files(data: dict[str, Any], path: Path, data_from: str) -> tuple[DataFile, ...]:
    tables = data.get("data")
    if isinstance(tables, dict):
        tables = [tables]
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise RankingTaskFileError(path, "data", "expected one [[data]] table per file, each with file and language")
    entries, seen = [], set()
    for index, table in enumerate(tables, start=1):
        key = f"data[{index}]"
        check_keys(table, path, DATA_KEYS, "a [[data]] table has", RankingTaskFileError, f"{key}.")
        for name in ("file", "language"):
            if not isinstance(table.get(name), str) or not table[name].strip():
                raise RankingTaskFileError(path, f"{key}.{name}", f"missing or empty; got {table.get(name)!r}")
        try:
            language = check_language(table["language"])
        except LanguageCodeError as exc:
            raise RankingTaskFileError(path, f"{key}.language", str(exc)) from None
        split = table.get("split", DEFAULT_SPLIT)
        images = table.get("images")
        if not isinstance(split, str) or not NAME_PATTERN.match(split) or "+" in split:
            raise RankingTaskFileError(path, f"{key}.split", f"{split!r}: one word such as train, dev or test")
        if images is not None and (not isinstance(images, str) or not images):
            raise RankingTaskFileError(path, f"{key}.images", f"expected a folder, got {images!r}")
        if (language, split) in seen and split != DEFAULT_TRAINING[0]:
            raise RankingTaskFileError(path, key, f"a second file for language {language} and split {split}: "
                                                  f"give each language and split one file (only {DEFAULT_TRAINING[0]} "
                                                  "may have several)")
        seen.add((language, split))
        submission = table.get("submission", f"submission_{language.upper()}.tsv")
        if not isinstance(submission, str) or not re.match(r"^[\w.-]+\.tsv$", submission):
            raise RankingTaskFileError(path, f"{key}.submission", f"{submission!r}: a file name ending .tsv")
        where = choice_key(table, path, "data_from", DATA_FROM, data_from, RankingTaskFileError, f"{key}.")
        entries.append(DataFile(table["file"], language, split, images, submission, index, where,
                                _count(table, path, key),
                                string_key(table, path, "targets", error=RankingTaskFileError, where=f"{key}.")))
    return tuple(entries)


def _count(table: dict[str, Any], path: Path, key: str) -> int | None:
    rows = table.get("rows")
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 1):
        raise RankingTaskFileError(path, f"{key}.rows", f"the official number of rows, a whole number >= 1; got {rows!r}")
    return rows


def _run_keys(data: dict[str, Any], path: Path, splits: tuple[str, ...]) -> dict[str, Any]:
    """The keys that say how the file is run: its training splits, default system and split, the splits a
    published leaderboard covers and the caption column of each --caption-lang."""
    out: dict[str, Any] = {}
    training = tuple(s for s in DEFAULT_TRAINING if s in splits)
    for key, default in (("training", training), ("leaderboard_splits", ())):
        value = data.get(key, list(default))
        if not isinstance(value, list) or not all(isinstance(v, str) and v in splits for v in value):
            raise RankingTaskFileError(path, key, f"expected a list of this file's splits ({', '.join(splits)}), "
                                                  f"got {value!r}")
        out[key] = tuple(value)
    for key in ("default_system", "default_split"):
        out[key] = string_key(data, path, key, error=RankingTaskFileError)
    if out["default_split"] is not None and out["default_split"] not in splits:
        raise RankingTaskFileError(path, "default_split", f"{out['default_split']!r} is none of {', '.join(splits)}")
    captions = data.get("caption_columns", {})
    if not isinstance(captions, dict) or not all(isinstance(v, str) and "{n}" in v for v in captions.values()):
        raise RankingTaskFileError(path, "caption_columns", 'a table of language = "column{n}", got ' f"{captions!r}")
    out["caption_columns"] = dict(captions)
    return out


def load_ranking_task(path: str | Path, builtin: bool = False) -> RankingTask:
    """The ranking task file at `path`; RankingTaskFileError for anything wrong."""
    data, path = read_task_file(path, RankingTaskFileError)
    check_keys(data, path, KEYS, "a ranking task file has the keys", RankingTaskFileError)
    if data.get("kind") != RANKING_FILE_KIND:
        raise RankingTaskFileError(path, "kind", f"expected \"{RANKING_FILE_KIND}\", got {data.get('kind')!r}")
    name = name_key(data, path, NEEDS, RankingTaskFileError)
    sentence_type = data.get("sentence_type", False)
    if not isinstance(sentence_type, bool):
        raise RankingTaskFileError(path, "sentence_type", f"true or false, got {sentence_type!r}")
    metrics = _names(data, path, "metrics", RANK_METRICS + TYPE_METRICS,
                     DEFAULT_METRICS + (TYPE_METRICS if sentence_type else ()))
    gold = _names(data, path, "gold", GOLD_FIELDS, GOLD_FIELDS)
    if any(m in TYPE_METRICS for m in metrics) and "sentence_type" not in gold:
        raise RankingTaskFileError(path, "metrics", "sentence-type metrics need \"sentence_type\" in gold")
    if any(m in TYPE_METRICS for m in metrics) and not sentence_type:
        raise RankingTaskFileError(path, "metrics", "sentence-type metrics score a predicted sentence type: add "
                                                    "sentence_type = true")
    ndcg_k = data.get("ndcg_k", N_IMAGES_A)
    if isinstance(ndcg_k, bool) or not isinstance(ndcg_k, int) or not 1 <= ndcg_k <= N_IMAGES_A:
        raise RankingTaskFileError(path, "ndcg_k", f"a whole number from 1 to {N_IMAGES_A}, got {ndcg_k!r}")
    data_from = choice_key(data, path, "data_from", DATA_FROM, "task-file", RankingTaskFileError)
    delimiter = delimiter_key(data, path, RankingTaskFileError)
    entries = _data_files(data, path, data_from)
    return RankingTask(
        **_run_keys(data, path, tuple(dict.fromkeys(d.split for d in entries))), name=name,
        description=string_key(data, path, "description", "", error=RankingTaskFileError),
        sentence_type=sentence_type, gold=gold, metrics=metrics,
        subtask=choice_key(data, path, "subtask", tuple(SUBTASKS), "images", RankingTaskFileError),
        gold_order=choice_key(data, path, "gold_order", GOLD_ORDERS, "column", RankingTaskFileError),
        gains=_gains(data, path), ndcg_k=ndcg_k, data_from=data_from, delimiter=delimiter,
        group=data.get("group") and string_key(data, path, "group", error=RankingTaskFileError),
        pair=data.get("pair") and string_key(data, path, "pair", error=RankingTaskFileError),
        submission_columns=choice_key(data, path, "submission_columns", SUBMISSION_COLUMNS, "admire",
                                      RankingTaskFileError),
        data=entries, columns=_columns(data, path), source=path, builtin=builtin)


def builtin_task_file(name: str) -> Path:
    return SHIPPED_DIR / f"{name}.toml"


def shipped_task(name: str, lang: str) -> RankingTask:
    """The shipped ranking task file of the registered task `name` in `lang`."""
    languages = shipped_languages(name)
    if lang not in languages:
        raise SensoError(f"{name} has no language {lang!r}; choose from {', '.join(languages)}")
    return load_ranking_task(builtin_task_file(f"{SHIPPED[name]}-{lang}"), builtin=True)


def _near_miss(task: RankingTask, path: Path) -> str:
    """What the folder of the missing data file `path` holds instead, in a few words ("" for nothing like it):
    the same name in another letter case, or files of its form (its name up to the first `_`, its extension)
    that no `[[data]]` table names (another language's file, a language name misspelt)."""
    try:
        beside = sorted(p.name for p in path.parent.iterdir() if p.is_file())
    except OSError:
        return ""
    cased = [name for name in beside if name.lower() == path.name.lower()]
    if cased:
        return f"; the folder has {cased[0]}, the same name in other letter case: rename it {path.name}"
    named = {Path(d.file).name for d in task.data}
    head = path.stem.split("_")[0] + "_" if "_" in path.stem else ""
    strangers = [name for name in beside if name not in named and name.startswith(head) and
                 Path(name).suffix.lower() == path.suffix.lower()]
    if not strangers:
        return ""
    return (f"; the folder has {', '.join(strangers)}, which no [[data]] table names (the file reads "
            f"{', '.join(task.languages)}: a table with file and language reads another)")


def check_data_files(task: RankingTask, entries: Sequence[DataFile], lang_given: bool) -> None:
    """The chosen data files that lie beside the task file are all there, before any is read: else a
    RankingTaskFileError naming each one missing and what is there instead, and, without --lang, the --lang of the
    languages whose files are there."""
    beside = [(entry, (task.source.parent / entry.file).resolve()) for entry in entries
              if entry.data_from == "task-file"]
    missing = [(entry, path) for entry, path in beside if not path.exists()]
    if not missing:
        return
    entry, path = missing[0]
    near = "".join(dict.fromkeys(_near_miss(task, p) for _, p in missing))
    present = list(dict.fromkeys(e.language for e, p in beside if p.exists()))
    lang = (f"; only the files of {'+'.join(present)} are there: give --lang {'+'.join(present)} to run those"
            if present and not lang_given else "")
    if len(missing) == 1:
        raise RankingTaskFileError(task.source, f"data[{entry.index}].file",
                                   f"{path} does not exist (paths are relative to the task file){near}{lang}")
    folders = {p.parent for _, p in missing}
    names = ", ".join(p.name if len(folders) == 1 else str(p) for _, p in missing)
    where = f" in {path.parent}" if len(folders) == 1 else ""
    raise RankingTaskFileError(task.source, "data", f"{len(missing)} of its data files are not there{where} (paths "
                               f"are relative to the task file): {names}{near}{lang}")
