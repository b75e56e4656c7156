"""A Likert task is a TOML file: its data, answer scale, gold range and rule, and prompt template.

```toml
name = "my-task"
description = "how concrete is the word in this sentence (1-7)"   # optional
data = "items.csv"              # relative to this file
scale = [1, 7]                  # the answer labels lo..hi; the continuations are " 1" ... " 7"
gold_range = [1, 7]             # the range of the gold values
gold_to_label = "round"         # optional: "round" (default when gold_range == scale) or "bins" (else)
template = '''Rate {word} in: {text}
'''
group_noun = "lemma"            # optional: what a group is, in messages and travel-measure names (default "group")
language = "en"                 # optional: the language of the data (a code, shown in reports; default none)
delimiter = ","                 # optional: the data's field separator; default by suffix: .tsv tab, else comma
[columns]                       # optional: your file's names for id, text, word, begin, end, gold, group, domain
gold = "rating"
```

The data is comma-separated (`.csv`) or tab-separated (`.tsv`), told apart by the file's suffix; `delimiter`
(one of ",", "\t", ";", "|") says it outright, for the task's data and for every file `senso predict` reads
or writes with a model of this task.

The built-in tasks (`abricot-abs`, `abricot-inc`) are such files in `senso/likert/tasks/`; their data is
located in the data folder (`data_from = "data-dir"`: --data-dir, $SENSO_DATA_DIR, the cache, download)
and they name their protocols `calamita` and `paper` (`[protocols]`). Every problem with a file raises a
TaskFileError naming the file and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from senso.core.prompting import FEW_SHOT, ZERO_SHOT, protocol_of
from senso.core.taskfile import (DATA_FROM, TaskFileError, check_keys, choice_key, column_table, data_path,
                                 delimiter_for, delimiter_key, name_key, read_task_file, string_key)
from senso.likert.items import FIELDS, LikertItem, read_items

BUILTIN_DIR = Path(__file__).resolve().parent / "tasks"
GOLD_RULES = ("round", "bins")
KEYS = ("kind", "name", "description", "data", "data_from", "scale", "gold_range", "gold_to_label", "template",
        "columns", "protocols", "group_noun", "delimiter", "language")
REQUIRED_KEYS = ("name", "data", "scale", "gold_range", "template")
TEMPLATE_FIELDS = ("word", "text")  # the template's placeholders {word} and {text}, each replaced once, in one pass
NEEDS = f"a task file needs {', '.join(REQUIRED_KEYS)}"
DEFAULT_GROUP_NOUN = "group"
GROUP_NOUN_PATTERN = re.compile(r"^[a-z]+$")


def gold_label_of(value: float, scale: tuple[int, int], gold_range: tuple[float, float], rule: str) -> int:
    """The label of a gold value: "round" = Python's round (half to even); "bins" = with K labels and
    gold range [a, b], min(round(K(m - a)/(b - a)), K - 1) + lo (ABRICOT: min(round(5m), 4) + 1)."""
    lo, hi = scale
    if rule == "round":
        return round(value)
    k, (a, b) = hi - lo + 1, gold_range
    return min(round(k * (value - a) / (b - a)), k - 1) + lo


def gold_edges(scale: tuple[int, int], gold_range: tuple[float, float], rule: str) -> tuple[float, ...]:
    """Gold values where the gold label steps up (guides on plots; ABRICOT: 0.1, 0.3, 0.5, 0.7)."""
    lo, hi = scale
    if rule == "round":
        return tuple(label + 0.5 for label in range(lo, hi))
    k, (a, b) = hi - lo + 1, gold_range
    return tuple(a + (j + 0.5) * (b - a) / k for j in range(k - 1))


@dataclass(frozen=True)
class LikertTask:
    """A parsed task file. `columns` maps every field (id, text, word, begin, end, gold, group, domain) onto
    its CSV column; `protocols` maps zero-shot / few-shot onto the names this task records for them."""

    name: str
    description: str
    data: str
    data_from: str
    scale: tuple[int, int]
    gold_range: tuple[float, float]
    gold_to_label: str
    template: str
    columns: dict[str, str]
    protocols: dict[str, str]
    source: Path
    builtin: bool = False
    group_noun: str = DEFAULT_GROUP_NOUN
    delimiter: str | None = None  # None: by each file's suffix (`delimiter_for`)
    language: str | None = None  # the data's language code, when the file says
    locators: dict[str, Callable[[Path | None], Path]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def labels(self) -> tuple[int, ...]:
        return tuple(range(self.scale[0], self.scale[1] + 1))

    @property
    def choices(self) -> tuple[str, ...]:
        """The answers as text; the scored continuations are `" " + choice`."""
        return tuple(str(k) for k in self.labels)

    @property
    def pred_column(self) -> str:
        return self.name.replace("-", "_") + "_pred"

    @property
    def reference(self) -> str:
        """How runs and model files name the task: the built-in name, else the task file's absolute path."""
        return self.name if self.builtin else str(self.source)

    def gold_label(self, value: float) -> int:
        return gold_label_of(value, self.scale, self.gold_range, self.gold_to_label)

    def gold_score(self, value: float) -> float:
        """The same map as `gold_label` without the rounding: a continuous score on the answer scale."""
        lo, hi = self.scale
        if self.gold_to_label == "round":
            return float(value)
        k, (a, b) = hi - lo + 1, self.gold_range
        return min(k * (value - a) / (b - a), float(k - 1)) + float(lo)

    @property
    def gold_edges(self) -> tuple[float, ...]:
        return gold_edges(self.scale, self.gold_range, self.gold_to_label)

    def clip(self, value: float) -> float:
        """A prediction clipped into the gold range."""
        return min(max(float(value), float(self.gold_range[0])), float(self.gold_range[1]))

    def protocol(self, name: str | None) -> tuple[str, str]:
        """(zero-shot | few-shot, the name this task records) for --protocol NAME (None: zero-shot)."""
        return protocol_of(name, self.protocols, self.name)

    def locate_data(self, data_dir: str | Path | None = None) -> Path:
        """The data file: next to the task file, or (data_from = "data-dir") in the data folder."""
        if self.data_from == "data-dir" and self.data in self.locators:
            return self.locators[self.data](data_dir)
        return data_path(self.source, self.data, self.data_from, data_dir, "data")

    def delimiter_for(self, path: str | Path) -> str:
        return delimiter_for(self.delimiter, path)

    def load_items(self, path: str | Path, require_gold: bool = True) -> list[LikertItem]:
        return read_items(path, self.columns, self.gold_range, require_gold=require_gold, task_file=str(self.source),
                          delimiter=self.delimiter_for(path))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "task_file": str(self.source), "builtin": self.builtin,
                "scale": list(self.scale), "gold_range": list(self.gold_range), "gold_to_label": self.gold_to_label,
                "labels": list(self.labels), "columns": dict(self.columns), "group_noun": self.group_noun,
                "delimiter": self.delimiter, "language": self.language}


def _pair(raw: Any, path: Path, key: str, integers: bool) -> tuple:
    kind = "integers" if integers else "numbers"
    ok = isinstance(raw, list) and len(raw) == 2 and all(
        isinstance(v, int if integers else (int, float)) and not isinstance(v, bool) for v in raw)
    if not ok:
        raise TaskFileError(path, key, f"expected two {kind} lo, hi (e.g. {'[1, 7]' if integers else '[0, 1]'}), got {raw!r}")
    lo, hi = raw
    if lo == hi:
        raise TaskFileError(path, key, f"[{lo}, {hi}] has one value: a scale needs at least two labels, lo < hi")
    if lo > hi:
        raise TaskFileError(path, key, f"[{lo}, {hi}]: lo must be below hi")
    return (int(lo), int(hi)) if integers else (lo, hi)


def parse_task(data: dict[str, Any], path: Path, builtin: bool = False) -> LikertTask:
    """A LikertTask from the parsed TOML of `path`; TaskFileError for anything wrong."""
    check_keys(data, path, KEYS, "a task file has the keys")
    name = name_key(data, path, NEEDS)
    description = string_key(data, path, "description", "", allow_empty=True)
    data_file = string_key(data, path, "data", needs=NEEDS)
    data_from = choice_key(data, path, "data_from", DATA_FROM, "task-file")
    for key in ("scale", "gold_range", "template"):
        if key not in data:
            raise TaskFileError(path, key, f"missing; {NEEDS}")
    scale = _pair(data["scale"], path, "scale", integers=True)
    gold_range = _pair(data["gold_range"], path, "gold_range", integers=False)
    default_rule = "round" if tuple(gold_range) == tuple(scale) else "bins"
    rule = string_key(data, path, "gold_to_label", default_rule, allow_empty=True)
    if rule not in GOLD_RULES:
        raise TaskFileError(path, "gold_to_label", f"{rule!r}: choose \"round\" (gold already on the answer scale) "
                                                   "or \"bins\" (gold_range cut into one bin per label)")
    if rule == "round" and not (scale[0] <= gold_range[0] and gold_range[1] <= scale[1]):
        raise TaskFileError(path, "gold_to_label", f"\"round\" needs gold_range {list(gold_range)} inside scale "
                                                   f"{list(scale)}; use \"bins\" or fix gold_range")
    template = string_key(data, path, "template", needs=NEEDS)
    for placeholder in ("{" + name + "}" for name in TEMPLATE_FIELDS):
        if placeholder not in template:
            raise TaskFileError(path, "template", f"the template has no {placeholder}: it must contain both {{word}} "
                                                  "(the target) and {text} (the sentence)")
    columns_raw = column_table(data, path, FIELDS, 'gold = "rating"')
    columns = {f: columns_raw.get(f, f) for f in FIELDS}
    protocols_raw = data.get("protocols", {})
    if not isinstance(protocols_raw, dict) or any(k not in (ZERO_SHOT, FEW_SHOT) or not isinstance(v, str) or not v
                                                  for k, v in protocols_raw.items()):
        raise TaskFileError(path, "protocols", f"expected a table naming {ZERO_SHOT} and/or {FEW_SHOT}, "
                                               f"e.g. {ZERO_SHOT} = \"calamita\"; got {protocols_raw!r}")
    protocols = {ZERO_SHOT: protocols_raw.get(ZERO_SHOT, ZERO_SHOT), FEW_SHOT: protocols_raw.get(FEW_SHOT, FEW_SHOT)}
    group_noun = string_key(data, path, "group_noun", DEFAULT_GROUP_NOUN, allow_empty=True)
    if not GROUP_NOUN_PATTERN.match(group_noun):
        raise TaskFileError(path, "group_noun", f"{group_noun!r}: one lowercase word, e.g. \"lemma\" (it names "
                                                "the travel measures: within_lemma_r)")
    return LikertTask(name=name, description=description, data=data_file, data_from=data_from, scale=scale,
                      gold_range=gold_range, gold_to_label=rule, template=template, columns=columns,
                      protocols=protocols, source=path, builtin=builtin, group_noun=group_noun,
                      delimiter=delimiter_key(data, path),
                      language=string_key(data, path, "language", allow_empty=True))


def load_task_file(path: str | Path, builtin: bool = False) -> LikertTask:
    return parse_task(*read_task_file(path), builtin=builtin)
