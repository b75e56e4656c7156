"""AdMIRe (SemEval-2025 Task 1) task definitions: splits, official sizes, file names, metrics.

Subtask A (`admire-a`): rank 5 images (or their captions) for how well they show the sense of a
compound in a sentence; English and Brazilian Portuguese. Subtask B (`admire-b`): pick the image
that completes a 2-image sequence and say whether the sequence is idiomatic or literal; English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from senso.core.errors import SensoError

SPLITS = ("train", "dev", "test", "xeval")
RANKING_FILE_KIND = "ranking"  # what a ranking task file says in its `kind` key
DEFAULT_LANG, DEFAULT_SPLIT = "en", "dev"

# Official item counts per (subtask, language, split); the official scorer refuses other row counts.
OFFICIAL_SIZES: dict[tuple[str, str, str], int] = {
    ("a", "en", "train"): 70, ("a", "en", "dev"): 15, ("a", "en", "test"): 15, ("a", "en", "xeval"): 100,
    ("a", "pt", "train"): 32, ("a", "pt", "dev"): 10, ("a", "pt", "test"): 13, ("a", "pt", "xeval"): 55,
    ("b", "en", "train"): 20, ("b", "en", "dev"): 5, ("b", "en", "test"): 5, ("b", "en", "xeval"): 30,
}


@dataclass(frozen=True)
class AdmireTask:
    """One AdMIRe task: which subtask, languages, official metrics (ranking order) and default system."""

    name: str
    subtask: str  # "a" or "b"
    langs: tuple[str, ...]
    metrics: tuple[str, ...]  # official metrics, in the order the leaderboard ranks by
    parity_metrics: tuple[str, ...]  # printed by the official scorer but not quality measures
    default_system: str
    caption_langs: tuple[str, ...] = ("en",)  # --caption-lang


TASKS: dict[str, AdmireTask] = {
    "admire-a": AdmireTask("admire-a", "a", ("en", "pt"), ("top1", "dcg"), ("official_name_corr",), "fitted-pipeline"),
    "admire-b": AdmireTask("admire-b", "b", ("en",), ("image_accuracy", "sentence_type_accuracy"), (), "random"),
}
# The sense classifier alone, scored on Subtask A's gold sentence types (no leaderboard, no submission file).
SENSE_TASK = AdmireTask("admire-sense", "sense", ("en", "pt"), ("sense_accuracy",), (), "sense-classifier",
                        ("en", "pt"))
RUN_TASKS: dict[str, AdmireTask] = {**TASKS, SENSE_TASK.name: SENSE_TASK}  # every AdMIRe task `senso run` runs

TEXT_ONLY, TEXT_AND_IMAGES = "text-only", "text+images"  # the leaderboard tracks


def get_task(name: str) -> AdmireTask:
    if name not in TASKS:
        raise SensoError(f"unknown AdMIRe task {name!r}; choose from {', '.join(TASKS)}")
    return TASKS[name]


def check_lang_split(task: AdmireTask, lang: str, split: str) -> None:
    if lang not in task.langs:
        raise SensoError(f"{task.name} has no language {lang!r}; choose from {', '.join(task.langs)}")
    if split not in SPLITS:
        raise SensoError(f"unknown AdMIRe split {split!r}; choose from {', '.join(SPLITS)}")


def check_splits(task: AdmireTask, lang: str, split: str, gold: object = None) -> list[str]:
    """The splits of `--split A+B` for `task` in `lang`, each named once; `--gold` holds one split's targets."""
    splits = split.split("+")
    for name in splits:
        check_lang_split(task, lang, name)
    if len(splits) != len(set(splits)):
        raise SensoError(f"split {split!r} names a split twice")
    if len(splits) > 1 and gold:
        raise SensoError("--gold holds one split's targets; combine splits (e.g. train+dev) only when their inputs "
                         "carry gold")
    return splits


def official_size(subtask: str, lang: str, split: str) -> int:
    try:
        return OFFICIAL_SIZES[(subtask, lang, split)]
    except KeyError:
        raise SensoError(f"no official split {split!r} for subtask {subtask.upper()} in {lang!r}") from None


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


def hygiene_warnings(system: Any, compounds: Sequence[str], split: str) -> list[str]:
    """A loud warning when the system was fit on compounds of the split it is scored on."""
    seen = frozenset(getattr(system, "fitted_compounds", frozenset()))
    overlap = sorted(seen & set(compounds))
    if not overlap:
        return []
    return [f"SPLIT HYGIENE: system {system.name!r} was fit on {len(overlap)} of the {len(compounds)} compounds of "
            f"this {split} split ({', '.join(overlap[:5])}{', ...' if len(overlap) > 5 else ''}); its scores here "
            "overstate what it does on unseen compounds (xeval shares every compound, with identical captions, with train/dev/test)"]


def partial_warnings(n_items: int, n_official: int, n_data: int, reason: str | None, lang: str,
                     split: str) -> list[str]:
    """PARTIAL when a run scores other than the official split's items: why (`reason`: --limit, a submission
    with fewer rows), or that the data file itself differs."""
    if n_items == n_official:
        return []
    if reason:
        return [f"PARTIAL: {n_items} of the {n_official} items of the official {lang} {split} split ({reason}); "
                "not comparable to the leaderboard"]
    return [f"PARTIAL: the data file has {n_data} items, the official split {n_official}; not comparable to the "
            "leaderboard"]
