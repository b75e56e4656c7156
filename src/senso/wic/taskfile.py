"""A pairs task file (`kind = "pairs"`): any data set of two usages of one word, binary or graded.

```toml
kind = "pairs"
name = "my-pairs"
description = "same meaning of the word in both sentences?"   # optional
language = "en"                 # the sentences' language, unless a column or a source says otherwise
format = "jsonl"                # "jsonl", "tsv", "csv" or "wug" (uses.csv + judgments.csv per lemma); default by suffix
header = true                   # tsv/csv: the first row names the columns (false: `names` does)
names = ["lemma", "pos", "index", "sentence1", "sentence2"]    # the columns of a file without a header
target = "offsets"              # "offsets" (start/end characters, end exclusive), "tokens" (whitespace token
                                # indices, "i1-i2" in one column or index1/index2) or "marked" (between `marks`)
marks = ["<t>", "</t>"]         # target = "marked": the strings around the target in each sentence
gold = "binary"                 # "binary" (labels, `same` and `different` say which value is which) or "graded"
same = "T"                      # binary: the file's value for the same meaning (default "1")
different = "F"                 # binary: the file's value for a different meaning (default "0")
scale = [1, 4]                  # graded: the gold scores' range (a score outside is an error)
aggregation = "median"          # wug: the pair's gold from its non-zero judgments, "median" or "mean"
lemma_check = true              # a target must begin as its lemma does (false: irregular forms, went for go)
min_judgments = 1               # wug: pairs with fewer non-zero judgments are left out (and counted)
submission = "lines"            # the answer files a run writes: "lines" (answers.txt, one a line, binary as
                                # same/different) or "wicita" (WiC-ITA's binary/ranking[_eng].jsonl)
headline = "macro_f1"           # the first metric (the official score): binary accuracy (default), macro_f1 or
                                # positive_f1; graded spearman (default) or pearson
train = "train"                 # the split fitted systems learn from (the unseen-lemma headline compares with it)
default_system = "pair-fitted"  # the system a run uses when --system is left out (default: the family's)
data_from = "data-dir"          # "task-file" (paths relative to this file, the default) or "data-dir"
[columns]                       # your file's names for id, lemma (the group), lemma2 (sentence 2's, when it
lemma = "word"                  # differs), sentence1, sentence2, start1, end1, start2, end2, index, index1,
                                # index2, label, score, lang1, lang2
[splits]                        # split -> its files (a list: one run reads them all, e.g. two test sets)
dev = ["dev.jsonl"]
test = [{file = "test.jsonl"}, {file = "test_eng.jsonl", lang2 = "en", columns = {lemma = "lemma1"}}]
```

A source may also name a `gold` file beside its data (one label or score a line, in the data's order: WiC's
`dev.gold.txt`). A run reports its metrics over all pairs and apart for each language pair (it, it-en). Every
problem with the file is a TaskFileError naming the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.core.errors import SensoError
from senso.core.taskfile import (DATA_FROM, TaskFileError, check_keys, choice_key, column_table, delimiter_key,
                                 name_key, read_task_file, string_key)
from senso.wic.metrics import BINARY_METRICS, GRADED_METRICS

FILE_KIND = "pairs"
BUILTIN_DIR = Path(__file__).resolve().parent / "tasks"
FORMATS = ("jsonl", "tsv", "csv", "wug")
TARGETS = ("offsets", "tokens", "marked")
GOLDS = ("binary", "graded")
AGGREGATIONS = ("median", "mean")
SUBMISSIONS = ("lines", "wicita")
FIELDS = ("id", "lemma", "lemma2", "sentence1", "sentence2", "start1", "end1", "start2", "end2", "index", "index1", "index2",
          "label", "score", "lang1", "lang2")
KEYS = ("kind", "name", "description", "language", "format", "header", "names", "target", "marks", "gold", "same",
        "different", "scale", "aggregation", "min_judgments", "train", "data_from", "delimiter", "columns", "splits",
        "published", "lemma_check", "submission", "headline", "default_system")
SOURCE_KEYS = ("file", "gold", "lang1", "lang2", "columns")
NEEDS = "a pairs task file needs name, gold and [splits]"
EXAMPLE = 'lemma = "word"'


@dataclass(frozen=True)
class Source:
    """One data file (or WUG folder) of a split, as the task file names it."""

    file: str
    gold: str | None = None  # a file of gold values beside the data, one a line
    lang1: str | None = None
    lang2: str | None = None
    columns: dict[str, str] = field(default_factory=dict)  # overrides of the task's [columns]


@dataclass(frozen=True)
class PairsTask:
    """A parsed pairs task file (the shipped tasks are such files in `senso/wic/tasks/`)."""

    name: str
    description: str
    source: Path
    language: str
    format: str | None  # None: by each file's suffix
    header: bool
    names: tuple[str, ...]
    target: str
    marks: tuple[str, str]
    gold: str
    same: str
    different: str
    scale: tuple[float, float] | None
    aggregation: str
    min_judgments: int
    train: str | None
    data_from: str
    delimiter: str | None
    columns: dict[str, str]
    splits: dict[str, tuple[Source, ...]]
    headline: str | None = None  # the first metric (the official score); default accuracy or Spearman
    submission: str = "lines"  # the organisers' answer files: "lines" (one a line) or "wicita" (its JSONL files)
    lemma_check: bool = True  # a target must begin as its lemma does (off: irregular forms, went for go)
    published: str | None = None  # the board of published figures it is placed on
    default_system: str | None = None  # the system a run uses when --system is left out (None: the family's)
    builtin: bool = False

    @property
    def binary(self) -> bool:
        return self.gold == "binary"

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The task's metrics, its headline (`headline`: the official score) first."""
        names = BINARY_METRICS if self.binary else GRADED_METRICS
        first = self.headline or names[0]
        return (first, *(n for n in names if n != first))

    @property
    def reference(self) -> str:
        """How runs name the task: the built-in name, else the task file's absolute path."""
        return self.name if self.builtin else str(self.source)

    def column(self, source: Source, name: str) -> str:
        """The data's column holding field `name` for `source` (its own [columns] first, then the task's)."""
        return source.columns.get(name) or self.columns.get(name) or name

    def file_format(self, path: str) -> str:
        if self.format is not None:
            return self.format
        suffix = Path(path).suffix.lower().lstrip(".")
        return suffix if suffix in FORMATS else "csv"


def _bool(data: dict[str, Any], path: Path, key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise TaskFileError(path, key, f"expected true or false, got {value!r}")
    return value


def _strings(data: dict[str, Any], path: Path, key: str, size: int | None = None) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value) or (
            size is not None and len(value) != size):
        what = f"{size} non-empty strings" if size else "a list of non-empty strings"
        raise TaskFileError(path, key, f"expected {what}, got {value!r}")
    return tuple(value)


def _scale(data: dict[str, Any], path: Path) -> tuple[float, float] | None:
    if "scale" not in data:
        return None
    value = data["scale"]
    ok = isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                            for v in value)
    if not ok or value[0] >= value[1]:
        raise TaskFileError(path, "scale", f"expected [low, high] with low < high, got {value!r}")
    return float(value[0]), float(value[1])


def _headline(data: dict[str, Any], path: Path) -> str | None:
    if "headline" not in data:
        return None
    names = BINARY_METRICS if data.get("gold", "binary") == "binary" else GRADED_METRICS
    return choice_key(data, path, "headline", names, names[0])


def _min_judgments(data: dict[str, Any], path: Path) -> int:
    value = data.get("min_judgments", 1)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise TaskFileError(path, "min_judgments", f"expected a whole number of at least 1, got {value!r}")
    return value


def _source(raw: Any, path: Path, where: str) -> Source:
    if isinstance(raw, str):
        raw = {"file": raw}
    if not isinstance(raw, dict):
        raise TaskFileError(path, where, f"expected a file name or a table {{file = ...}}, got {raw!r}")
    check_keys(raw, path, SOURCE_KEYS, "a source has the keys", where=f"{where}.")
    strings = {key: string_key(raw, path, key, where=f"{where}.") for key in ("gold", "lang1", "lang2")}
    columns = column_table(raw, path, FIELDS, EXAMPLE) if "columns" in raw else {}
    return Source(string_key(raw, path, "file", needs="a source names its file", where=f"{where}."),
                  columns=columns, **strings)


def _splits(data: dict[str, Any], path: Path) -> dict[str, tuple[Source, ...]]:
    raw = data.get("splits")
    if not isinstance(raw, dict) or not raw:
        raise TaskFileError(path, "splits", "expected a table [splits] naming each split's files, e.g. "
                                            'dev = ["dev.jsonl"]')
    splits = {}
    for split, sources in raw.items():
        listed = sources if isinstance(sources, list) else [sources]
        if not listed:
            raise TaskFileError(path, f"splits.{split}", "names no file")
        splits[split] = tuple(_source(s, path, f"splits.{split}[{k}]") for k, s in enumerate(listed))
    return splits


def _gold_keys(data: dict[str, Any], path: Path) -> dict[str, Any]:
    gold = choice_key(data, path, "gold", GOLDS, "binary")
    same = string_key(data, path, "same", "1")
    different = string_key(data, path, "different", "0")
    if same == different:
        raise TaskFileError(path, "different", f"the same value as `same` ({same!r}): the two labels must differ")
    scale = _scale(data, path)
    if gold == "graded" and scale is None:
        raise TaskFileError(path, "scale", "missing; a graded task declares its scores' range, e.g. scale = [1, 4]")
    return {"gold": gold, "same": same, "different": different, "scale": scale}


def parse_task_file(path: str | Path, builtin: bool = False) -> PairsTask:
    """The pairs task file at `path`, every key checked (TaskFileError naming the file and the key)."""
    data, source = read_task_file(path)
    check_keys(data, source, KEYS, "a pairs task file has the keys")
    name = name_key(data, source, NEEDS)
    splits = _splits(data, source)
    train = string_key(data, source, "train")
    if train is not None and train not in splits:
        raise TaskFileError(source, "train", f"{train!r} is not among the splits ({', '.join(splits)})")
    marks = _strings(data, source, "marks", 2) if "marks" in data else ("<t>", "</t>")
    fmt = choice_key(data, source, "format", FORMATS, "") if "format" in data else None
    return PairsTask(
        name=name, description=string_key(data, source, "description", name), source=source,
        language=string_key(data, source, "language", "und"), format=fmt, header=_bool(data, source, "header", True),
        names=_strings(data, source, "names"), target=choice_key(data, source, "target", TARGETS, "offsets"),
        marks=(marks[0], marks[1]), aggregation=choice_key(data, source, "aggregation", AGGREGATIONS, "median"),
        min_judgments=_min_judgments(data, source), train=train,
        data_from=choice_key(data, source, "data_from", DATA_FROM, "task-file"),
        delimiter=delimiter_key(data, source), columns=column_table(data, source, FIELDS, EXAMPLE), splits=splits,
        published=string_key(data, source, "published"), headline=_headline(data, source),
        submission=choice_key(data, source, "submission", SUBMISSIONS, "lines"), lemma_check=_bool(data, source, "lemma_check", True),
        default_system=string_key(data, source, "default_system"), builtin=builtin, **_gold_keys(data, source))


def shipped_task(name: str) -> PairsTask:
    """A built-in task: the shipped file `tasks/<name>.toml`."""
    return parse_task_file(BUILTIN_DIR / f"{name}.toml", builtin=True)


def shipped_names() -> list[str]:
    return sorted(path.stem for path in BUILTIN_DIR.glob("*.toml"))


def pairs_task(name: str) -> PairsTask:
    """The task a name gives: a pairs task file's path (ending .toml), else a shipped task's name."""
    if str(name).endswith(".toml"):
        return parse_task_file(name)
    if name not in shipped_names():
        raise SensoError(f"no word-in-context task {name!r}: give a shipped one ({', '.join(shipped_names())}) or "
                         "a pairs task file's path (.toml)")
    return shipped_task(name)
