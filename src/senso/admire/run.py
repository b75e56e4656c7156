"""`senso run admire-a|admire-b|admire-sense` as the evaluation loop runs them (`senso.core.evaluation`):
`check` (every option, before anything slow), `prepare` (the system built, the split loaded, gold joined)
and the plan's `predict` (rankings, choices or sense decisions) and `score` (typed samples, metrics).

The run folder holds config.json (written first), the official submission file (admire-a, admire-b),
samples.jsonl (per item: scores, prediction, gold, per-item metrics) and results.json (metrics with 95%
bootstrap CIs over all items and per gold sentence type, track, fingerprints, timings, warnings).
Without gold the run writes its submission and no metrics, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from senso.admire.data import items_from_targets_a, load_subtask_a, load_subtask_b, locate_admire, split_file
from senso.admire.items import AdmireAItem, AdmireBItem
from senso.admire.options import check_gold_file
from senso.admire.run_sense import SensePlan, sense_plan
from senso.admire.scoring import (GROUPS, PARITY_NOTE, aggregate, compounds_index, overlap_record, score_item_a,
                                  score_item_b, sense_calibration)
from senso.admire.submission import submission_text_a, submission_text_b
from senso.admire.systems.base import Ranker, Ranking, SequenceChoice, SequenceChooser
from senso.admire.leaderboard import LEADERBOARD_SPLITS, unranked_reason
from senso.admire.overlap import TrainingIndex
from senso.admire.systems.parts import FittedOptions
from senso.admire.systems.fitting import (FIT_SPLITS, cross_validate, cv_overlaps, fit_cached, is_fittable,
                                          load_fitted_model, training_items)
from senso.admire.systems.registry import (AdmireSystem, System, check_system, get_system, system_context,
                                           system_params, user_row, wordnet_warnings)
from senso.admire.task import (
    DEFAULT_LANG, DEFAULT_SPLIT, RUN_TASKS, TEXT_AND_IMAGES, TEXT_ONLY, AdmireTask, check_splits, hygiene_warnings,
    official_size, submission_name, targets_name,
)
from senso.core.stats import Estimate
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.fingerprint import path_fingerprint
from senso.core.options import RunOptions

CAPTION_LANGS = ("en", "pt")


@dataclass
class AdmireASample:
    """One Subtask A item's line of samples.jsonl: the item, the system's scores and order, the gold order, the
    item's metrics (when scored) and the system's `extra` (sense, roles, members, ...; left out when empty)."""

    compound: str
    subset: str
    sentence: str
    images: list[str]
    scores: dict[str, float | None]
    predicted_order: list[str]
    gold_order: list[str] | None
    sentence_type: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    overlap: dict[str, Any] | None = None  # a fitted system's: what the item shares with its training data

    def to_json(self) -> dict[str, Any]:
        return {"compound": self.compound, "subset": self.subset, "sentence": self.sentence, "images": self.images,
                "scores": self.scores, "predicted_order": self.predicted_order, "gold_order": self.gold_order,
                "sentence_type": self.sentence_type, **self.metrics, **({"extra": self.extra} if self.extra else {}),
                **({"overlap": self.overlap} if self.overlap is not None else {})}


@dataclass
class AdmireBSample:
    """One Subtask B item's line of samples.jsonl: the candidates, the system's scores and choice, the gold, the
    item's metrics (when scored) and the system's `extra`."""

    compound: str
    subset: str
    images: list[str]
    scores: dict[str, float]
    predicted_item: str
    predicted_sentence_type: str
    gold_item: str | None
    sentence_type: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    overlap: dict[str, Any] | None = None  # a fitted system's: what the item shares with its training data

    def to_json(self) -> dict[str, Any]:
        return {"compound": self.compound, "subset": self.subset, "images": self.images, "scores": self.scores,
                "predicted_item": self.predicted_item, "predicted_sentence_type": self.predicted_sentence_type,
                "gold_item": self.gold_item, "sentence_type": self.sentence_type, **self.metrics,
                **({"extra": self.extra} if self.extra else {}),
                **({"overlap": self.overlap} if self.overlap is not None else {})}


@dataclass(frozen=True)
class Checked:
    """What the checks found: the task, the options with AdMIRe's defaults filled in, the splits, the system's
    row and its options' typed values, and warnings for the terminal and results.json."""

    task: AdmireTask
    options: RunOptions
    splits: list[str]
    row: AdmireSystem
    params: dict[str, Any]
    warnings: list[str]


def check_options(options: RunOptions, system_object: Any = None) -> Checked:
    """The AdMIRe checks, before anything slow and before a run folder: options no AdMIRe task reads, the
    language, the splits (each once; --gold for one), the caption language, and the system (registered, or
    the researcher's `system_object`): the model flags and options it reads, their values."""
    options.check_family("admire")
    check_gold_file(options)
    task = RUN_TASKS.get(options.task)
    if task is None:
        raise SensoError(f"unknown AdMIRe task {options.task!r}; choose from {', '.join(RUN_TASKS)}")
    options = replace(options, lang=options.lang or DEFAULT_LANG, split=options.split or DEFAULT_SPLIT)
    splits = check_splits(task, options.lang, options.split, options.gold)
    if options.caption_lang not in (None, *CAPTION_LANGS):
        raise SensoError(f"--caption-lang {options.caption_lang!r}: choose from {', '.join(CAPTION_LANGS)}")
    if task.subtask == "b" and options.caption_lang not in (None, "en"):
        raise SensoError("Subtask B has English captions only")
    if system_object is not None:
        if options.system is not None:
            raise SensoError("--system names a registered system, but a system object was given too: give one of them")
        row = user_row(system_object, task)
    else:
        row = get_system(task, options.system)
    params = check_system(row, options)
    return Checked(task, options, splits, row, params, wordnet_warnings(row, options))


def check(options: RunOptions, system_object: Any = None) -> Checked:
    """Every option of an AdMIRe run, checked before anything slow, once."""
    options.validate()
    return check_options(options, system_object)


def prepare(options: RunOptions, context: RunContext) -> "AdmirePlan | SensePlan":
    """The run of `options.task` with the registered system `options.system` (default: the task's) or the
    researcher's `context.system`: the system built, the items loaded with their gold, nothing predicted."""
    checked = context.checked or check(options, context.system)
    chosen = {name: getattr(checked.options, name) for name in ("lang", "split") if getattr(options, name) is None}
    options, row = checked.options, checked.row
    if chosen:
        from senso.core.progress import note

        note(f"{options.task}: {', '.join(f'{k} {v}' for k, v in chosen.items())} (not given: the default)")
    system = row.build(system_context(row, options, context.cache, context.models, checked.params))
    config = {"lang": options.lang, "split": options.split, "chosen_by_default": chosen,
              "system_options": system_params(row, options).to_json(checked.params)}
    if checked.task.subtask == "sense":
        return sense_plan(options, checked.splits, system, config, checked.warnings)
    loaded = load_items(checked.task, options, checked.splits, bool(getattr(system, "uses_images", False)),
                        reads_data=getattr(system, "reads_data", True))
    if hasattr(system, "select_items"):  # a system that answers a part of the split (a submission file)
        loaded = replace(loaded, items=system.select_items(loaded.items))
    return AdmirePlan(task=checked.task.name, system=row.name,
                      items=loaded.items, data_files=[*loaded.data_paths, *loaded.gold_files],
                      config={**config, "system_description": system.describe()}, warnings=checked.warnings,
                      kind=checked.task.name, admire_task=checked.task, predictor=system, options=options,
                      params=row.typed(checked.params), splits=checked.splits, loaded=loaded)


def _official_gold(options: RunOptions, subtask: str, split: str) -> Path | None:
    """The organisers' targets file for the split in the data folder's reference/ (e.g. b_en_dev_targets.tsv)."""
    path = locate_admire(options.data_dir) / "reference" / targets_name(subtask, options.lang, split)
    return path if path.is_file() else None


@dataclass
class Loaded:
    """The items of a run and where they came from."""

    items: list[Any]
    data_paths: list[Path]
    gold_files: list[Path]
    notes: list[str]
    n_split: int  # items in the data files, before --limit
    scored: bool  # every item carries gold


def _has_gold(subtask: str, item: Any) -> bool:
    if subtask == "a":
        return item.expected_order is not None
    return item.expected_item is not None and item.sentence_type is not None


def load_items(task: AdmireTask, options: RunOptions, splits: Sequence[str], uses_images: bool,
               reads_data: bool = True) -> Loaded:
    """Every split's items (gold from --gold, the data file, or the organisers' targets shipped beside it). A
    system that reads no data (a submission file) is scored on Subtask A's --gold targets alone, as the official
    scorer is: no data folder is needed."""
    items: list[Any] = []
    gold_files: list[Path] = [Path(options.gold)] if options.gold else []
    notes = []
    targets_only = task.subtask == "a" and options.gold is not None and not reads_data

    def load(split: str, gold: Path | None) -> list:
        if targets_only:
            return items_from_targets_a(gold, options.lang)
        if task.subtask == "a":
            return load_subtask_a(options.data_dir, options.lang, split, gold=gold,
                                  caption_lang=options.caption_lang, need_images=uses_images)
        return load_subtask_b(options.data_dir, options.lang, split, gold=gold, need_images=uses_images)

    for split in splits:
        split_items = load(split, options.gold)
        lacks_gold = all((i.expected_order if task.subtask == "a" else i.expected_item) is None for i in split_items)
        official = _official_gold(options, task.subtask, split) if lacks_gold and not options.gold else None
        if official is not None:  # the organisers' targets shipped beside the data: score against them, and say so
            split_items = load(split, official)
            gold_files.append(official)
            notes.append(f"gold for {options.lang} {split}: the organisers' targets file {official}")
        items += split_items
    repeated = sorted({i.compound for i in items if sum(j.compound == i.compound for j in items) > 1})
    if repeated:
        raise SensoError(f"splits {options.split} share compounds ({', '.join(repeated[:5])}); score them separately")
    n_split = len(items)
    if options.limit is not None:
        items = items[: options.limit]
    data_paths = [] if targets_only else [split_file(options.data_dir, task.subtask, options.lang, split)
                                          for split in splits]
    has_gold = [_has_gold(task.subtask, item) for item in items]
    if any(has_gold) and not all(has_gold):
        raise SensoError(f"{', '.join(map(str, data_paths))}: only {sum(has_gold)} of {len(items)} items carry gold; "
                         "give a complete targets file with --gold")
    return Loaded(items, data_paths, gold_files, notes, n_split, bool(has_gold) and all(has_gold))


def check_rankings(system: str, items: Sequence[Any], rankings: Sequence[Ranking]) -> None:
    """One ranking per item, each a permutation of the item's images (an item read from a task file is also
    named by its file and row)."""
    if len(rankings) != len(items):
        raise SensoError(f"system {system!r} returned {len(rankings)} rankings for {len(items)} items")
    for item, ranking in zip(items, rankings):
        if sorted(ranking.order) != sorted(item.image_names):
            where = f" ({item.file}, row {item.row})" if getattr(item, "row", None) is not None else ""
            raise SensoError(f"system {system!r} ranked {list(ranking.order)} for {item.compound!r}{where}, "
                             f"not a permutation of its images {list(item.image_names)}")


def _check_choices(system: System, items: Sequence[AdmireBItem], choices: Sequence[SequenceChoice]) -> None:
    if len(choices) != len(items):
        raise SensoError(f"system {system.name!r} returned {len(choices)} answers for {len(items)} items")
    for item, choice in zip(items, choices):
        names = [c.name for c in item.candidates]
        if choice.expected_item not in names:
            raise SensoError(f"system {system.name!r} chose {choice.expected_item!r} for {item.compound!r}, "
                             f"not a candidate {names}")
        if choice.sentence_type not in GROUPS:
            raise SensoError(f"system {system.name!r} answered sentence type {choice.sentence_type!r} for "
                             f"{item.compound!r}")


@dataclass
class AdmirePlan:
    """An admire-a or admire-b run prepared: items with gold, the built system; nothing predicted yet."""

    task: str
    system: str
    items: list[Any]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    kind: str
    admire_task: AdmireTask
    predictor: Ranker | SequenceChooser  # admire-a: a Ranker; admire-b: a SequenceChooser
    options: RunOptions  # with AdMIRe's defaults filled in
    params: Any  # the system's typed options (an object of its options class)
    splits: list[str]
    loaded: Loaded
    family: str = "admire"
    fitting: dict[str, Any] | None = None
    overlaps: list[dict[str, Any]] | None = None  # a fitted system's, per item (`senso.admire.overlap`)
    training: TrainingIndex | None = None

    def describe_system(self) -> dict[str, Any]:
        return self.predictor.describe()

    def predict(self) -> list[Ranking] | list[SequenceChoice]:
        """Rankings (A) or choices (B), checked against the items; a fitted system is fit honestly first."""
        system, items = self.predictor, self.items
        self.training = None if is_fittable(system) else compounds_index(system)
        if self.admire_task.subtask == "b":
            choices = system.choose(items)
            _check_choices(system, items, choices)
            return choices
        if is_fittable(system):
            rankings, self.fitting = self._run_fitted()
        else:
            rankings = system.rank(items)
        check_rankings(system.name, items, rankings)
        return rankings

    def _run_fitted(self) -> tuple[list[Ranking], dict[str, Any]]:
        """A fitted system (see senso.admire.systems.fitting): loaded from --set model_file=FILE; cross-validated
        by compound on EN train/dev gold; otherwise fit on EN train+dev gold of the data folder (cached)."""
        system, items, options = self.predictor, self.items, self.options
        model_file = self.params.model_file if isinstance(self.params, FittedOptions) else None
        if model_file:
            document = load_fitted_model(system, model_file)
            self.training = TrainingIndex.from_document(document, f"the model file {model_file}")
            return system.rank(items), {"cross_validated": False, "model_file": str(model_file),
                                        "training_data_sha256": document.get("training_data_sha256")}
        if options.lang == "en" and not options.gold and all(split in FIT_SPLITS for split in self.splits):
            rankings, info = cross_validate(system, items, options.data_dir, seed=options.seed)
            self.training = TrainingIndex(frozenset(), frozenset(), frozenset(),
                                          "EN train+dev without each fold's compounds (cross-validation)")
            self.overlaps = cv_overlaps(items, rankings, options.data_dir)
            return rankings, info
        info = fit_cached(system, options.data_dir, use_cache=options.use_cache)
        self.training = TrainingIndex.from_items(training_items(options.data_dir), "EN train+dev of the data folder")
        return system.rank(items), {"cross_validated": False, **info}

    def _overlap_record(self, samples: Sequence[AdmireASample | AdmireBSample]) -> dict[str, Any]:
        """A fitted system's `overlap`, `unseen` (with gold) and, on a leaderboard split it overlaps, the
        `placement` sentence (`leaderboard.unranked_reason`); each sample's `overlap`. Nothing for a
        training-free system."""
        if self.training is None:
            return {}
        rows = [s.to_json() for s in samples] if self.loaded.scored else None
        self.overlaps, record = overlap_record(self.items, rows, self.training, self.admire_task.metrics,
                                               self.options.seed, overlaps=self.overlaps)
        for sample, overlap in zip(samples, self.overlaps):
            sample.overlap = overlap
        reason = unranked_reason(record) if set(self.splits) & set(LEADERBOARD_SPLITS) else None
        return {**record, **({"placement": reason} if reason else {})}

    def score(self, answers: list[Any]) -> Scored:
        task, options, loaded = self.admire_task, self.options, self.loaded
        samples = [self._sample(item, answer) for item, answer in zip(self.items, answers)]
        sub_name = submission_name(options.lang, self.splits[0] if len(self.splits) == 1 else "+".join(self.splits))
        text = (submission_text_a([(i.compound, a.order) for i, a in zip(self.items, answers)]) if task.subtask == "a"
                else submission_text_b([(i.compound, a.sentence_type, a.expected_item)
                                        for i, a in zip(self.items, answers)]))
        cross_validated = bool(self.fitting and self.fitting.get("cross_validated"))
        notes = list(loaded.notes)
        metrics, by_group = ({}, {})
        if loaded.scored:
            metrics, by_group = aggregate([s.to_json() for s in samples], task.metrics + task.parity_metrics,
                                          seed=options.seed)
            notes += [PARITY_NOTE] if task.parity_metrics else []
            gold = (", ".join(str(p.resolve()) for p in loaded.gold_files) if loaded.gold_files
                    else f"{', '.join(str(p.resolve()) for p in loaded.data_paths)} (gold columns)")
        else:
            gold = None
            notes.append(f"no gold for {options.lang} {options.split}: wrote {sub_name} only, no metrics. Score it "
                         f"with `senso score {task.name} {sub_name} --gold <targets file>` or rerun with --gold.")
            reason = f"no gold for {options.lang} {options.split}: score {sub_name} with `senso score --gold`"
            metrics = {name: Estimate(None, reason=reason) for name in task.metrics}
        record = {"lang": options.lang, "split": options.split,
                  "caption_lang": (options.caption_lang or options.lang) if task.subtask == "a" else "en",
                  "track": TEXT_AND_IMAGES if getattr(self.predictor, "uses_images", False) else TEXT_ONLY,
                  "n_official": sum(official_size(task.subtask, options.lang, split) for split in self.splits),
                  "gold": gold, "submission": sub_name, "fingerprints": self._fingerprints(),
                  **({"cross_validated": cross_validated, "fitting": self.fitting} if self.fitting is not None else {})}
        calibration = sense_calibration([a.extra.get("p_idiomatic") for a in answers],
                                        [i.sentence_type for i in self.items], seed=options.seed) if loaded.scored else None
        if calibration is not None:
            record["calibration"] = calibration
        record.update(self._overlap_record(samples))
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record,
                      warnings=self._warnings(cross_validated), notes=notes, files={sub_name: text})

    def _sample(self, item: Any, answer: Any) -> AdmireASample | AdmireBSample:
        scored = self.loaded.scored
        if self.admire_task.subtask == "a":
            gold = list(item.expected_order) if item.expected_order else None
            metrics = score_item_a(answer.order, item.expected_order) if scored else {}
            return AdmireASample(item.compound, item.subset, item.sentence, list(item.image_names), answer.scores,
                                 list(answer.order), gold, item.sentence_type, metrics, answer.extra)
        metrics = score_item_b(answer.expected_item, answer.sentence_type, item.expected_item,
                               item.sentence_type) if scored else {}
        return AdmireBSample(item.compound, item.subset, [c.name for c in item.candidates], answer.scores,
                             answer.expected_item, answer.sentence_type, item.expected_item, item.sentence_type,
                             metrics, answer.extra)

    def _fingerprints(self) -> dict[str, str]:
        memo, loaded = self.options.use_cache, self.loaded
        paths = loaded.data_paths
        fingerprints = {"data": path_fingerprint(paths[0], memo=memo)} if len(paths) == 1 else {
            f"data_{split}": path_fingerprint(path, memo=memo) for split, path in zip(self.splits, paths)}
        for gold_file in loaded.gold_files:
            key = "gold" if len(loaded.gold_files) == 1 else f"gold_{gold_file.name}"
            fingerprints[key] = path_fingerprint(gold_file, memo=memo)
        return fingerprints

    def _warnings(self, cross_validated: bool) -> list[str]:
        """Split hygiene (unless cross-validated: no item was ranked by a model fit on its compound) and PARTIAL."""
        options, task, items = self.options, self.admire_task, self.items
        warnings = [] if cross_validated else hygiene_warnings(self.predictor, [i.compound for i in items],
                                                               options.split)
        n_official = sum(official_size(task.subtask, options.lang, split) for split in self.splits)
        selected = getattr(self.predictor, "partial_reason", None) if len(items) < self.loaded.n_split else None
        reason = f"--limit {options.limit}" if options.limit is not None else selected  # fewer items than the data's
        if len(items) != n_official and reason:
            warnings.append(f"PARTIAL: {len(items)} of the {n_official} items of the official {options.lang} "
                            f"{options.split} split ({reason}); not comparable to the leaderboard")
        elif len(items) != n_official:
            warnings.append(f"PARTIAL: the data file has {self.loaded.n_split} items, the official split {n_official}; "
                            "not comparable to the leaderboard")
        return warnings
