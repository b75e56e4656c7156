"""AdMIRe (SemEval-2025 Task 1): its task names (each task is declared once, in `family.py`), splits, official
sizes, file names and metrics, and what the plans record alike (fingerprints, where the gold came from).

Subtask A (`admire-a`): rank 5 images (or their captions) for how well they show the sense of a
compound in a sentence; English and Brazilian Portuguese. Subtask B (`admire-b`): pick the image
that completes a 2-image sequence and say whether the sequence is idiomatic or literal; English.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from senso.core.errors import SensoError
from senso.core.fingerprint import path_fingerprint

SPLITS = ("train", "dev", "test", "xeval")
RANKING_FILE_KIND = "ranking"  # what a ranking task file says in its `kind` key
DEFAULT_LANG, DEFAULT_SPLIT = "en", "dev"

# Subtask B's official item counts per (language, split); the official scorer refuses other row counts. Subtask A's
# are its shipped task files' `rows` (`submission.official_sizes`).
SUBTASK_B_SIZES: dict[tuple[str, str], int] = {("en", "train"): 20, ("en", "dev"): 5, ("en", "test"): 5,
                                                ("en", "xeval"): 30}
SUBTASK_B_LANGS = tuple(dict.fromkeys(lang for lang, _ in SUBTASK_B_SIZES))
# The family's task names by the subtask of their systems (the rows of `systems/registry.py`); each task is declared
# under its name once, in `family.py` (admire-a: its shipped ranking task files, `tasks/admire1-a-*.toml`).
TASK_NAMES = {"a": "admire-a", "b": "admire-b", "sense": "admire-sense"}
SUBTASK_OF = {name: subtask for subtask, name in TASK_NAMES.items()}  # a task (its record's kind) -> its subtask
# The official metrics of the subtasks with a leaderboard, in the order it ranks by (the other breaks ties).
OFFICIAL_METRICS = {"a": ("top1", "dcg"), "b": ("image_accuracy", "sentence_type_accuracy")}


def official_subtask(task: str) -> str | None:
    """The subtask ("a" or "b") of a task with official submissions and a leaderboard; None for the others."""
    return next((s for s in OFFICIAL_METRICS if TASK_NAMES[s] == task), None)


TEXT_ONLY, TEXT_AND_IMAGES = "text-only", "text+images"  # the leaderboard tracks
ONE_GOLD = "--gold holds one split's targets; combine splits (e.g. train+dev) only when their inputs carry gold"

SHIPPED_DIR = Path(__file__).resolve().parent / "tasks"  # the shipped ranking task files
# A registered ranking task -> its shipped files, one per language (`senso run admire-a --lang pt`).
SHIPPED = {TASK_NAMES["a"]: "admire1-a"}


def shipped_languages(name: str) -> tuple[str, ...]:
    prefix = f"{SHIPPED[name]}-"
    return tuple(sorted(p.stem[len(prefix):] for p in SHIPPED_DIR.glob(f"{prefix}*.toml")))


def split_names(split: str) -> list[str]:
    """The splits of `--split A+B`, each one of AdMIRe's, each named once."""
    splits = split.split("+")
    unknown = [name for name in splits if name not in SPLITS]
    if unknown:
        raise SensoError(f"unknown AdMIRe split {unknown[0]!r}; choose from {', '.join(SPLITS)}")
    if len(splits) != len(set(splits)):
        raise SensoError(f"split {split!r} names a split twice")
    return splits


def submission_code(lang: str, split: str) -> str:
    """The code in submission and target file names: the language, or xe / xp for the extended evaluation."""
    if split == "xeval":
        return {"en": "xe", "pt": "xp"}[lang]
    return lang


def submission_name(lang: str, split: str) -> str:
    """Codabench file name of a submission, e.g. `submission_EN.tsv`, `submission_XE.tsv`.

    The upper-case codes are what the published participant code writes for the AdMIRe Codabench
    competitions (`submission_EN.tsv`, `submission_PT.tsv`, `submission_XE.tsv`); readers accept any case.
    """
    return f"submission_{submission_code(lang, split).upper()}.tsv"


_SUBMISSION_RE = re.compile(r"^submission_(en|pt|xe|xp)\.tsv$", re.IGNORECASE)
_TARGETS_RE = re.compile(r"^([ab])_(en|pt|xe|xp)_(train|dev|test)_targets\.tsv$", re.IGNORECASE)
_CODE_TO_LANG = {"en": ("en", None), "pt": ("pt", None), "xe": ("en", "xeval"), "xp": ("pt", "xeval")}


def parse_submission_name(filename: str) -> tuple[str, str | None] | None:
    """(lang, "xeval" or None when the name does not say the split) for an official submission name, else None."""
    match = _SUBMISSION_RE.match(filename)
    return _CODE_TO_LANG[match.group(1).lower()] if match else None


def targets_name(subtask: str, lang: str, split: str) -> str:
    """Organisers' gold file name, e.g. `a_en_dev_targets.tsv`, `a_xe_test_targets.tsv`."""
    code = submission_code(lang, split)
    return f"{subtask}_{code}_{'test' if split == 'xeval' else split}_targets.tsv"


def parse_targets_name(filename: str) -> tuple[str, str, str] | None:
    """(subtask, lang, split) for an organisers' targets file name, else None."""
    match = _TARGETS_RE.match(filename)
    if not match:
        return None
    subtask, code, split = (g.lower() for g in match.groups())
    lang, xsplit = _CODE_TO_LANG[code]
    return subtask, lang, xsplit or split


def fingerprints(data: Sequence[tuple[str, Path]], gold: Sequence[Path], memo: bool) -> dict[str, str]:
    """results.json's `fingerprints`: each data file's (`data` when there is one, else `data_<key>`: its split, or
    language and split) and each gold file's (`gold` when there is one, else `gold_<file name>`); a name given
    twice takes the file's stem."""
    names = ["data"] if len(data) == 1 else [f"data_{key}" for key, _ in data]
    names += ["gold"] if len(gold) == 1 else [f"gold_{path.name}" for path in gold]
    paths = [*(path for _, path in data), *gold]
    names = [n if names.count(n) == 1 else f"{n}_{p.stem}" for n, p in zip(names, paths)]
    return {name: path_fingerprint(path, memo=memo) for name, path in zip(names, paths)}


def gold_source(data: Sequence[Path], gold: Sequence[Path]) -> str:
    """results.json's `gold`: the targets files joined in, else the data files' gold columns."""
    if gold:
        return ", ".join(str(p.resolve()) for p in gold)
    return ", ".join(str(p.resolve()) for p in data) + " (gold columns)"


def targets_note(lang: str, split: str, path: Path) -> str:
    """The note of a run scored against the organisers' targets file found beside its data."""
    return f"gold for {lang} {split}: the organisers' targets file {path}"
