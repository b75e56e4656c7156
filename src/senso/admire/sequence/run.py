"""`senso run admire-b` (AdMIRe 1 Subtask B: complete an image sequence) as the evaluation loop runs it
(`senso.core.evaluation`): the checks (`admire/checks.py`), `prepare` (the system built, the split loaded, gold
joined) and the plan's `predict` (choices) and `score` (typed samples, metrics).

The run folder holds config.json (written first), the official submission file (admire-b), samples.jsonl (per
item: scores, prediction, gold, per-item metrics) and results.json (metrics with 95% bootstrap CIs over all items
and per gold sentence type, track, fingerprints, timings, warnings). Without gold the run writes its submission
and no metrics, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from senso.admire.checks import start
from senso.admire.data import load_subtask_b, locate_admire, split_file
from senso.admire.items import AdmireBItem
from senso.admire.scoring import GROUPS, compounds_index, overlap_record, score_item_b, sense_calibration
from senso.admire.submission import official_size, submission_text_b
from senso.admire.systems.base import SequenceChoice, SequenceChooser
from senso.admire.leaderboard import LEADERBOARD_SPLITS, unranked_reason
from senso.admire.overlap import TrainingIndex
from senso.admire.metrics import grouped_estimates
from senso.admire.systems.registry import System
from senso.admire.task import (TEXT_AND_IMAGES, TEXT_ONLY, AdmireTask, fingerprints, hygiene_warnings,
                               partial_warnings, submission_name, targets_name)
from senso.core.stats import Estimate
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.options import RunOptions


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


def prepare(options: RunOptions, context: RunContext) -> "SequencePlan":
    """The admire-b run: the system built, the items loaded with their gold, nothing predicted."""
    checked, system, config = start(options, context)
    options, row = checked.options, checked.row
    loaded = load_items(checked.task, options, checked.splits, bool(getattr(system, "uses_images", False)))
    if hasattr(system, "select_items"):  # a system that answers a part of the split (a submission file)
        loaded = replace(loaded, items=system.select_items(loaded.items))
    return SequencePlan(task=checked.task.name, system=row.name,
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


def load_items(task: AdmireTask, options: RunOptions, splits: Sequence[str], uses_images: bool) -> Loaded:
    """Every split's items (gold from --gold, the data file, or the organisers' targets shipped beside it)."""
    items: list[Any] = []
    gold_files: list[Path] = [Path(options.gold)] if options.gold else []
    notes = []
    for split in splits:
        split_items = load_subtask_b(options.data_dir, options.lang, split, gold=options.gold, need_images=uses_images)
        lacks_gold = all(i.expected_item is None for i in split_items)
        official = _official_gold(options, task.subtask, split) if lacks_gold and not options.gold else None
        if official is not None:  # the organisers' targets shipped beside the data: score against them, and say so
            split_items = load_subtask_b(options.data_dir, options.lang, split, gold=official, need_images=uses_images)
            gold_files.append(official)
            notes.append(f"gold for {options.lang} {split}: the organisers' targets file {official}")
        items += split_items
    repeated = sorted({i.compound for i in items if sum(j.compound == i.compound for j in items) > 1})
    if repeated:
        raise SensoError(f"splits {options.split} share compounds ({', '.join(repeated[:5])}); score them separately")
    n_split = len(items)
    if options.limit is not None:
        items = items[: options.limit]
    data_paths = [split_file(options.data_dir, task.subtask, options.lang, split) for split in splits]
    has_gold = [item.expected_item is not None and item.sentence_type is not None for item in items]
    if any(has_gold) and not all(has_gold):
        raise SensoError(f"{', '.join(map(str, data_paths))}: only {sum(has_gold)} of {len(items)} items carry gold; "
                         "give a complete targets file with --gold")
    return Loaded(items, data_paths, gold_files, notes, n_split, bool(has_gold) and all(has_gold))


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
class SequencePlan:
    """An admire-b run prepared: items with gold, the built system; nothing predicted yet."""

    task: str
    system: str
    items: list[AdmireBItem]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    kind: str
    admire_task: AdmireTask
    predictor: SequenceChooser
    options: RunOptions  # with AdMIRe's defaults filled in
    params: Any  # the system's typed options (an object of its options class)
    splits: list[str]
    loaded: Loaded
    family: str = "admire"
    training: TrainingIndex | None = None

    def describe_system(self) -> dict[str, Any]:
        return self.predictor.describe()

    def predict(self) -> list[SequenceChoice]:
        system, items = self.predictor, self.items
        self.training = compounds_index(system)
        choices = system.choose(items)
        _check_choices(system, items, choices)
        return choices

    def _overlap_record(self, samples: Sequence[AdmireBSample]) -> dict[str, Any]:
        """A system fit on some compounds: its `overlap`, `unseen` (with gold) and, on a leaderboard split it
        overlaps, the `placement` sentence; each sample's `overlap`. Nothing for a training-free system."""
        if self.training is None:
            return {}
        rows = [s.to_json() for s in samples] if self.loaded.scored else None
        overlaps, record = overlap_record(self.items, rows, self.training, self.admire_task.metrics,
                                          self.options.seed)
        for sample, overlap in zip(samples, overlaps):
            sample.overlap = overlap
        reason = unranked_reason(record) if set(self.splits) & set(LEADERBOARD_SPLITS) else None
        return {**record, **({"placement": reason} if reason else {})}

    def score(self, answers: list[SequenceChoice]) -> Scored:
        task, options, loaded = self.admire_task, self.options, self.loaded
        samples = [self._sample(item, answer) for item, answer in zip(self.items, answers)]
        sub_name = submission_name(options.lang, self.splits[0] if len(self.splits) == 1 else "+".join(self.splits))
        text = submission_text_b([(i.compound, a.sentence_type, a.expected_item) for i, a in zip(self.items, answers)])
        notes = list(loaded.notes)
        metrics, by_group = ({}, {})
        if loaded.scored:
            metrics, by_group = grouped_estimates([s.to_json() for s in samples], task.metrics, seed=options.seed)
            gold = (", ".join(str(p.resolve()) for p in loaded.gold_files) if loaded.gold_files
                    else f"{', '.join(str(p.resolve()) for p in loaded.data_paths)} (gold columns)")
        else:
            gold = None
            notes.append(f"no gold for {options.lang} {options.split}: wrote {sub_name} only, no metrics. Score it "
                         f"with `senso score {task.name} {sub_name} --gold <targets file>` or rerun with --gold.")
            reason = f"no gold for {options.lang} {options.split}: score {sub_name} with `senso score --gold`"
            metrics = {name: Estimate(None, reason=reason) for name in task.metrics}
        track = TEXT_AND_IMAGES if getattr(self.predictor, "uses_images", False) else TEXT_ONLY
        record = {"lang": options.lang, "split": options.split, "caption_lang": "en", "track": track,
                  "n_official": sum(official_size(task.subtask, options.lang, split) for split in self.splits),
                  "gold": gold, "submission": sub_name, "fingerprints": self._fingerprints()}
        calibration = sense_calibration([a.extra.get("p_idiomatic") for a in answers],
                                        [i.sentence_type for i in self.items], seed=options.seed) if loaded.scored else None
        record.update({"calibration": calibration} if calibration is not None else {})
        record.update(self._overlap_record(samples))
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record,
                      warnings=self._warnings(), notes=notes, files={sub_name: text})

    def _sample(self, item: AdmireBItem, answer: SequenceChoice) -> AdmireBSample:
        metrics = score_item_b(answer.expected_item, answer.sentence_type, item.expected_item,
                               item.sentence_type) if self.loaded.scored else {}
        return AdmireBSample(item.compound, item.subset, [c.name for c in item.candidates], answer.scores,
                             answer.expected_item, answer.sentence_type, item.expected_item, item.sentence_type,
                             metrics, answer.extra)

    def _fingerprints(self) -> dict[str, str]:
        loaded = self.loaded
        return fingerprints(list(zip(self.splits, loaded.data_paths)), loaded.gold_files, self.options.use_cache)

    def _warnings(self) -> list[str]:
        """Split hygiene and PARTIAL."""
        options, task, items = self.options, self.admire_task, self.items
        warnings = hygiene_warnings(self.predictor, [i.compound for i in items], options.split)
        n_official = sum(official_size(task.subtask, options.lang, split) for split in self.splits)
        selected = getattr(self.predictor, "partial_reason", None) if len(items) < self.loaded.n_split else None
        reason = f"--limit {options.limit}" if options.limit is not None else selected  # fewer items than the data's
        return warnings + partial_warnings(len(items), n_official, self.loaded.n_split, reason, options.lang,
                                           options.split)
