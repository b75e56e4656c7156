"""Fitted AdMIRe systems: where their training data comes from, and how they are scored honestly.

A system is *fittable* when it has parts fit on gold (`system.fittable`, `fit(items)`, `state()`,
`load_state(state)`; e.g. `fitted-pipeline`, or `sense-pipeline --sense learned` / `--set roles=learned`).
- `--set model_file=FILE`: the parts are loaded from FILE (written by `senso fit admire-a -o FILE`); the
  compounds it was fit on are recorded, so scoring it on them carries the SPLIT HYGIENE warning.
- No model, scored on the task file's training rows (admire-a: EN train, dev or train+dev): cross-validation
  grouped by the file's group column (`cross_validate`): the scored items' groups are dealt into `CV_FOLDS`
  folds (seeded shuffle), and each fold is ranked by the system fit on the training rows *without that fold's
  groups*. No item is ever ranked by a model that saw its expression; results.json says
  `"cross_validated": true`.
- No model, any other split (admire-a: test, xeval; another language): fit once on the training rows
  (`fit_cached`), cached under `$SENSO_CACHE_DIR/admire-fits/` by the sha256 of their files and of the
  system's description. xeval reuses every train/dev compound, so its runs carry the SPLIT HYGIENE warning.
The training rows are a ranking task file's (`training_rows`; `TrainingRows`): admire-a's are EN
train+dev of the data folder; a task without its own (admire-b, admire-sense) is given those (`shipped_training`)
by its plan: a system's context holds the rows it may learn from, never finds them itself.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from senso.admire.items import SENTENCE_TYPES, AdmireAItem
from senso.admire.overlap import TrainingIndex, item_overlap, training_records
from senso.core.errors import SensoError
from senso.core.fingerprint import path_fingerprint
from senso.core.output import write_text
from senso.core.paths import cache_dir
from senso.core.grouped_cv import grouped_folds

if TYPE_CHECKING:
    from senso.admire.rankfile import RankingTask

CV_FOLDS = 5
MODEL_FORMAT = "senso-admire-a-fit/1"
FITS_FOLDER = "admire-fits"  # in the cache folder: fits on a task file's training rows, by `_fit_key`


def is_fittable(system: Any) -> bool:
    return bool(getattr(system, "fittable", False))


@dataclass(frozen=True)
class TrainingRows:
    """What fitted systems learn from: a task file's training rows (all with gold), the sha256 of their files
    and, in words, where they are (e.g. "en train+dev")."""

    items: list[Any]
    sha256: str
    source: str

    @classmethod
    def of(cls, items: Sequence[Any], paths: Sequence[Path], source: str) -> "TrainingRows":
        missing = [i.compound for i in items if i.sentence_type not in SENTENCE_TYPES or i.expected_order is None]
        if missing or not items:
            raise SensoError(f"{source}: {len(missing)} of {len(items)} training items without gold sentence_type/"
                             f"expected_order ({', '.join(missing[:3])}); a fitted system learns from them: give "
                             "the task file's training rows their gold")
        sha = hashlib.sha256("\n".join(path_fingerprint(p) for p in paths).encode()).hexdigest()
        return cls(list(items), sha, source)


def training_rows(task: RankingTask, data_dir: Any) -> TrainingRows:
    """The rows of a ranking task file's training splits, every language, all with gold."""
    from senso.admire.rankdata import load_entries

    entries = task.training_entries()
    if not entries:
        raise SensoError(f"{task.reference} has no training rows (a [[data]] file of split "
                         f"{' or '.join(task.training)}): a fitted system or part learns from them; add one, or "
                         "choose training-free parts")
    items, paths, _ = load_entries(task, entries, data_dir, False)
    languages = "+".join(dict.fromkeys(d.language.upper() for d in entries))
    return TrainingRows.of(items, paths, f"{languages} {'+'.join(dict.fromkeys(d.split for d in entries))}")


def shipped_training(data_dir: Path | None) -> TrainingRows:
    """AdMIRe 1's EN training rows (train+dev): what fitted parts learn from in a run whose task has none of its
    own (admire-b, admire-sense)."""
    from senso.admire.rankfile import shipped_task

    return training_rows(shipped_task("admire-a", "en"), data_dir)


def group_of(item: Any) -> str:
    """The expression group an item is cross-validated by (a task file's `group` column; else its compound)."""
    return getattr(item, "group", "") or item.compound


def _fit_key(system: Any, data_sha: str) -> str:
    description = json.dumps(system.describe(), sort_keys=True, default=str)
    return hashlib.sha256(f"{MODEL_FORMAT}\n{data_sha}\n{description}".encode()).hexdigest()


def model_document(system: Any, items: Sequence[AdmireAItem], data_sha: str | None) -> dict:
    return {"format": MODEL_FORMAT, "system": system.name, "training_data_sha256": data_sha,
            "n_items": len(items), "compounds": sorted({i.compound for i in items}),
            "training_items": training_records(items), "state": system.state()}


def load_fitted_model(system: Any, path: Path) -> dict:
    """Load a `senso fit admire-a` file into the system's fitted parts; returns the document."""
    path = Path(path)
    document = read_model_document(path, f"--set model_file={path}")
    system.load_state(document["state"], str(path))
    return document


def read_model_document(path: Path, given: str) -> dict:
    """The JSON of a `senso fit admire-a` file; `given` says where it was named (a flag) in errors."""
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise SensoError(f"{given}: no such file; write one with `senso fit admire-a -o {path}`") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise SensoError(f"{given}: not JSON ({err}); write it with `senso fit admire-a -o FILE`") from None
    if not isinstance(document, dict) or document.get("format") != MODEL_FORMAT:
        raise SensoError(f"{given}: not a {MODEL_FORMAT} file; write it with `senso fit admire-a -o FILE`")
    return document


def fit_cached(system: Any, rows: TrainingRows, use_cache: bool = True) -> dict:
    """Fit on the training rows, or load that fit from the cache; returns what was used."""
    path = cache_dir() / FITS_FOLDER / f"{_fit_key(system, rows.sha256)}.json"
    if use_cache and path.exists():
        load_fitted_model(system, path)
        return {"fit_on": rows.source, "training_data_sha256": rows.sha256, "from_cache": str(path)}
    system.fit(rows.items)
    if use_cache:
        write_text(path, json.dumps(model_document(system, rows.items, rows.sha256), sort_keys=True),
                   "SENSO_CACHE_DIR")
    return {"fit_on": rows.source, "training_data_sha256": rows.sha256, "from_cache": None}


def cross_validate(system: Any, items: Sequence[AdmireAItem], rows: TrainingRows, seed: int) -> tuple[list[Any], dict]:
    """Rankings of `items`, each fold's from the system fit on the training rows minus that fold's groups."""
    answers: list[Any] = [None] * len(items)
    fold_sizes = []
    for k, test in enumerate(grouped_folds([group_of(i) for i in items], CV_FOLDS, seed, "compounds")):
        held_out = {group_of(items[i]) for i in test}
        train = [i for i in rows.items if group_of(i) not in held_out]
        system.fit(train)
        for i, ranking in zip(test, system.rank([items[i] for i in test])):
            ranking.extra["cv_fold"] = k
            answers[i] = ranking
        fold_sizes.append(len(train))
    return answers, {"cross_validated": True, "folds": len(fold_sizes), "seed": seed, "grouped_by": "compound",
                     "fit_on": f"{rows.source} minus the fold's compounds", "n_fit_items_per_fold": fold_sizes,
                     "training_data_sha256": rows.sha256}


def cv_overlaps(items: Sequence[AdmireAItem], answers: Sequence[Any], rows: TrainingRows) -> list[dict]:
    """Per item of a `cross_validate` run, what it shares with its own fold's training items (the training rows
    without the fold's groups)."""
    folds: dict[int, set[str]] = {}
    for item, answer in zip(items, answers):
        folds.setdefault(answer.extra["cv_fold"], set()).add(group_of(item))
    indexes = {k: TrainingIndex.from_items([i for i in rows.items if group_of(i) not in held_out], "")
               for k, held_out in folds.items()}
    return [item_overlap(item, indexes[answer.extra["cv_fold"]]) for item, answer in zip(items, answers)]
