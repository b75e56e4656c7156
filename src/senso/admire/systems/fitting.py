"""Fitted AdMIRe systems: where their training data comes from, and how they are scored honestly.

A system is *fittable* when it has parts fit on gold (`system.fittable`, `fit(items)`, `state()`,
`load_state(state)`; e.g. `fitted-pipeline`, or `sense-pipeline --sense learned` / `--set roles=learned`).
- `--set model_file=FILE`: the parts are loaded from FILE (written by `senso fit admire-a -o FILE`); the
  compounds it was fit on are recorded, so scoring it on them carries the SPLIT HYGIENE warning.
- No model, scored on EN train, dev or train+dev (gold): cross-validation grouped by compound
  (`cross_validate`): the scored items' compounds are dealt into `CV_FOLDS` folds (seeded shuffle), and each
  fold is ranked by the system fit on the EN train+dev gold of the data folder *without that fold's
  compounds*. No item is ever ranked by a model that saw its compound; results.json says
  `"cross_validated": true`.
- No model, any other split (test, xeval): fit once on EN train+dev gold of the data folder
  (`fit_cached`), cached under `$SENSO_CACHE_DIR/admire-fits/` by the sha256 of the data files and of the
  system's description. xeval reuses every train/dev compound, so its runs carry the SPLIT HYGIENE warning.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Sequence

from senso.admire.data import load_subtask_a, split_file
from senso.admire.items import SENTENCE_TYPES, AdmireAItem
from senso.admire.overlap import TrainingIndex, item_overlap, training_records
from senso.core.errors import SensoError
from senso.core.fingerprint import path_fingerprint
from senso.core.output import check_output_file, write_text
from senso.core.paths import cache_dir
from senso.admire.systems.roles import grouped_folds
from senso.admire.task import DEFAULT_LANG

FIT_SPLITS = ("train", "dev")  # the EN Subtask A splits with gold: what a fitted system learns from
CV_FOLDS = 5
MODEL_FORMAT = "senso-admire-a-fit/1"


def is_fittable(system: Any) -> bool:
    return bool(getattr(system, "fittable", False))


def training_items(data_dir: Path) -> list[AdmireAItem]:
    """EN Subtask A train + dev items, all with gold (a clear error otherwise)."""
    items = [i for split in FIT_SPLITS for i in load_subtask_a(data_dir, "en", split)]
    missing = [i.compound for i in items if i.sentence_type not in SENTENCE_TYPES or i.expected_order is None]
    if missing:
        raise SensoError(f"{data_dir}: EN train/dev items without gold ({', '.join(missing[:3])}); a fitted system "
                         "learns from their sentence_type and expected_order: restore the files (senso data fetch admire)")
    return items


def training_fingerprint(data_dir: Path) -> str:
    parts = [path_fingerprint(split_file(data_dir, "a", "en", split)) for split in FIT_SPLITS]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


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
    document = _read_model_document(path, f"--set model_file={path}")
    system.load_state(document["state"], str(path))
    return document


def _read_model_document(path: Path, given: str) -> dict:
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


def fit_cached(system: Any, data_dir: Path, use_cache: bool = True) -> dict:
    """Fit on EN train+dev gold of `data_dir`, or load that fit from the cache; returns what was used."""
    data_sha = training_fingerprint(data_dir)
    path = cache_dir() / "admire-fits" / f"{_fit_key(system, data_sha)}.json"
    if use_cache and path.exists():
        load_fitted_model(system, path)
        return {"fit_on": "en train+dev", "training_data_sha256": data_sha, "from_cache": str(path)}
    items = training_items(data_dir)
    system.fit(items)
    if use_cache:
        write_text(path, json.dumps(model_document(system, items, data_sha), sort_keys=True), "SENSO_CACHE_DIR")
    return {"fit_on": "en train+dev", "training_data_sha256": data_sha, "from_cache": None}


def cross_validate(system: Any, items: Sequence[AdmireAItem], data_dir: Path, seed: int,
                   folds: int = CV_FOLDS) -> tuple[list[Any], dict]:
    """Rankings of `items`, each fold's from the system fit on EN train+dev gold minus that fold's compounds."""
    pool = training_items(data_dir)
    answers: list[Any] = [None] * len(items)
    fold_of: dict[str, int] = {}
    fold_sizes = []
    for k, test in enumerate(grouped_folds([i.compound for i in items], folds, seed)):
        held_out = {items[i].compound for i in test}
        train = [i for i in pool if i.compound not in held_out]
        system.fit(train)
        for i, ranking in zip(test, system.rank([items[i] for i in test])):
            ranking.extra["cv_fold"] = k
            answers[i] = ranking
        fold_of.update({c: k for c in held_out})
        fold_sizes.append(len(train))
    return answers, {"cross_validated": True, "folds": len(fold_sizes), "seed": seed, "grouped_by": "compound",
                     "fit_on": "en train+dev minus the fold's compounds", "n_fit_items_per_fold": fold_sizes,
                     "training_data_sha256": training_fingerprint(data_dir)}


def cv_overlaps(items: Sequence[AdmireAItem], answers: Sequence[Any], data_dir: Path) -> list[dict]:
    """Per item of a `cross_validate` run, what it shares with its own fold's training items (EN train+dev
    without the fold's compounds)."""
    pool = training_items(data_dir)
    folds: dict[int, set[str]] = {}
    for item, answer in zip(items, answers):
        folds.setdefault(answer.extra["cv_fold"], set()).add(item.compound)
    indexes = {k: TrainingIndex.from_items([i for i in pool if i.compound not in held_out], "")
               for k, held_out in folds.items()}
    return [item_overlap(item, indexes[answer.extra["cv_fold"]]) for item, answer in zip(items, answers)]


def overlap_sides(subtask: str, train: str, eval_split: str, lang: str, data_dir: Path | None
                  ) -> tuple[list[Any], list[tuple[str, Any]] | TrainingIndex, str]:
    """`senso data overlap admire-*`: the evaluation split's items, and the training side: (split, item) of the
    splits `train` (e.g. train+dev) or, when `train` is a model file `senso fit admire-a` wrote, what it recorded."""
    from senso.admire.data import load_subtask_b
    from senso.admire.task import TASKS, check_splits

    task = TASKS["admire-a" if subtask == "a" else "admire-b"]
    load = (lambda split: load_subtask_a(data_dir, lang, split)) if subtask == "a" else (
        lambda split: load_subtask_b(data_dir, lang, split))
    evaluated = [i for split in check_splits(task, lang, eval_split) for i in load(split)]
    if Path(train).suffix == ".json":
        document = _read_model_document(Path(train), f"--train {train}")
        return evaluated, TrainingIndex.from_document(document, f"the model file {train}"), f"model file {train}"
    return evaluated, [(split, i) for split in check_splits(task, lang, train) for i in load(split)], f"{lang} {train}"


def fit_to_file(options: Any, cache: Any, out_path: Path, models: Any = None) -> dict:
    """`senso fit admire-a`: fit `options.system` (default fitted-pipeline) on the gold items of
    `options.lang` / `options.split` (e.g. train+dev) of `options.data_dir`, and write the model file."""
    from dataclasses import replace

    from senso.admire.systems.registry import check_system, get_system, system_context, system_params
    from senso.admire.task import TASKS

    options = replace(options, lang=options.lang or DEFAULT_LANG, split=options.split or "+".join(FIT_SPLITS))
    row = get_system(TASKS["admire-a"], options.system or "fitted-pipeline")
    params = check_system(row, options)
    check_output_file(out_path, "-o")  # before the fit
    system = row.build(system_context(row, options, cache, models, params))
    if not is_fittable(system):
        raise SensoError(f"system {row.name!r} has no fitted parts; fit fitted-pipeline, or sense-pipeline with "
                         "--sense learned or --set roles=learned")
    splits = options.split.split("+")
    items = [i for split in splits for i in load_subtask_a(options.data_dir, options.lang, split)]
    missing = [i.compound for i in items if i.sentence_type not in SENTENCE_TYPES or i.expected_order is None]
    if missing:
        raise SensoError(f"{options.lang} {options.split}: {len(missing)} items without gold sentence_type/expected_order "
                         f"({', '.join(missing[:3])}); fit on splits with gold (train, dev)")
    system.fit(items)
    paths = [split_file(options.data_dir, "a", options.lang, split) for split in splits]
    data_sha = hashlib.sha256("\n".join(path_fingerprint(p) for p in paths).encode()).hexdigest()
    document = {**model_document(system, items, data_sha), "options": system_params(row, options).to_json(params),
                "description": system.describe()}
    write_text(out_path, json.dumps(document, indent=1, sort_keys=True, default=str), "-o")
    return document
