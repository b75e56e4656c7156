"""`senso run admire-b` (AdMIRe 1 Subtask B: complete an image sequence) as the evaluation loop runs it
(`senso.core.evaluation`): the checks (`admire/checks.py`), `prepare` (the system built, the split loaded, gold
joined) and the plan's `predict` (choices) and `score` (typed samples, metrics).

The run folder holds config.json (written first), the official submission file (admire-b), samples.jsonl (per
item: scores, prediction, gold, per-item metrics) and results.json (metrics with 95% bootstrap CIs over all items
and per gold sentence type, track, fingerprints, timings, warnings). Without gold the run writes its submission
and no metrics, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.admire.checks import AdmirePlan, check_answers, start
from senso.admire.data import load_subtask_b, official_targets, split_file
from senso.admire.items import AdmireBItem
from senso.admire.scoring import GROUPS, Sample, compounds_index, score_item_b, sense_calibration
from senso.admire.submission import official_size, submission_text_b
from senso.admire.systems.base import SequenceChoice
from senso.admire.leaderboard import LEADERBOARD_SPLITS
from senso.admire.overlap import TrainingIndex
from senso.admire.metrics import grouped_estimates
from senso.admire.task import TEXT_AND_IMAGES, TEXT_ONLY, fingerprints, gold_source, submission_name, targets_note
from senso.core.stats import Estimate
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.options import RunOptions
from senso.core.task import Task


@dataclass
class AdmireBSample(Sample):
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
    overlap: dict[str, Any] | None = None


def prepare(task: Task, options: RunOptions, context: RunContext) -> "SequencePlan":
    """The admire-b run: the system built, the items loaded with their gold, nothing predicted."""
    checked, system, config = start(task, options, context)
    options, row = checked.options, checked.row
    items, files, notes, n_data = load_items(options, checked.splits, bool(getattr(system, "uses_images", False)))
    if hasattr(system, "select_items"):  # a system that answers a part of the split (a submission file)
        items = system.select_items(items)
    return SequencePlan(task.name, row.name, items, files, {**config, "system_description": system.describe()},
                        checked.warnings, system, options, task.kind, metrics=[m.name for m in task.metrics],
                        splits=checked.splits, notes=notes, n_data=n_data)


def load_items(options: RunOptions, splits: Sequence[str],
               uses_images: bool) -> tuple[list[AdmireBItem], list[Path], list[str], int]:
    """Every split's items (gold from --gold, the data file, or the organisers' targets shipped beside it, said
    in a note), the files read (the data files, then the targets files) and the items of the data files."""
    items: list[AdmireBItem] = []
    gold_files: list[Path] = [Path(options.gold)] if options.gold else []
    notes = []
    for split in splits:
        split_items = load_subtask_b(options.data_dir, options.lang, split, gold=options.gold, need_images=uses_images)
        lacks_gold = not options.gold and all(i.expected_item is None for i in split_items)
        official = official_targets(options.data_dir, "b", options.lang, split) if lacks_gold else None
        if official is not None:  # the organisers' targets shipped beside the data: score against them, and say so
            split_items = load_subtask_b(options.data_dir, options.lang, split, gold=official, need_images=uses_images)
            gold_files.append(official)
            notes.append(targets_note(options.lang, split, official))
        items += split_items
    repeated = sorted({i.compound for i in items if sum(j.compound == i.compound for j in items) > 1})
    if repeated:
        raise SensoError(f"splits {options.split} share compounds ({', '.join(repeated[:5])}); score them separately")
    n_data, items = len(items), items[: options.limit]
    data_paths = [split_file(options.data_dir, "b", options.lang, split) for split in splits]
    has_gold = [_has_gold(item) for item in items]
    if any(has_gold) and not all(has_gold):
        raise SensoError(f"{', '.join(map(str, data_paths))}: only {sum(has_gold)} of {len(items)} items carry gold; "
                         "give a complete targets file with --gold")
    return items, [*data_paths, *gold_files], notes, n_data


def _has_gold(item: AdmireBItem) -> bool:
    return item.expected_item is not None and item.sentence_type is not None


def _check_choices(system: str, items: Sequence[AdmireBItem], choices: Sequence[SequenceChoice]) -> None:
    check_answers(system, choices, items, "answers")
    for item, choice in zip(items, choices):
        names = [c.name for c in item.candidates]
        if choice.expected_item not in names:
            raise SensoError(f"system {system!r} chose {choice.expected_item!r} for {item.compound!r}, "
                             f"not a candidate {names}")
        if choice.sentence_type not in GROUPS:
            raise SensoError(f"system {system!r} answered sentence type {choice.sentence_type!r} for "
                             f"{item.compound!r}")


@dataclass
class SequencePlan(AdmirePlan):
    """An admire-b run prepared: items with gold, the built system; nothing predicted yet."""

    metrics: list[str]
    splits: list[str]
    notes: list[str]
    n_data: int  # the items of the data files, before --limit
    training: TrainingIndex | None = None

    def predict(self) -> list[SequenceChoice]:
        self.training = compounds_index(self.predictor)
        choices = self.predictor.choose(self.items)
        _check_choices(self.predictor.name, self.items, choices)
        return choices

    def score(self, answers: list[SequenceChoice]) -> Scored:
        options, data, gold_files = self.options, self.data_files[:len(self.splits)], self.data_files[len(self.splits):]
        scored = bool(self.items) and all(_has_gold(item) for item in self.items)
        n_official = sum(official_size("b", options.lang, split) for split in self.splits)
        samples = [self._sample(item, answer, scored) for item, answer in zip(self.items, answers)]
        sub_name = submission_name(options.lang, "+".join(self.splits))
        text = submission_text_b([(i.compound, a.sentence_type, a.expected_item) for i, a in zip(self.items, answers)])
        rows = [s.to_json() for s in samples] if scored else None
        notes, metrics, by_group, gold = list(self.notes), {}, {}, None
        if rows is not None:
            metrics, by_group = grouped_estimates(rows, self.metrics, seed=options.seed)
            gold = gold_source(data, gold_files)
        else:
            notes.append(f"no gold for {options.lang} {options.split}: wrote {sub_name} only, no metrics. Score it "
                         f"with `senso score {self.task} {sub_name} --gold <targets file>` or rerun with --gold.")
            reason = f"no gold for {options.lang} {options.split}: score {sub_name} with `senso score --gold`"
            metrics = {name: Estimate(None, reason=reason) for name in self.metrics}
        track = TEXT_AND_IMAGES if getattr(self.predictor, "uses_images", False) else TEXT_ONLY
        record = {"lang": options.lang, "split": options.split, "caption_lang": "en", "track": track,
                  "n_official": n_official, "gold": gold, "submission": sub_name,
                  "fingerprints": fingerprints(list(zip(self.splits, data)), gold_files, options.use_cache)}
        calibration = sense_calibration([a.extra.get("p_idiomatic") for a in answers],
                                        [i.sentence_type for i in self.items], seed=options.seed) if scored else None
        record.update({"calibration": calibration} if calibration is not None else {})
        on_board = bool(set(self.splits) & set(LEADERBOARD_SPLITS))
        record.update(self.overlap(samples, rows, self.training, self.metrics, on_board))
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record,
                      warnings=[*self.hygiene(), *self.partial(n_official, self.n_data)], notes=notes,
                      files={sub_name: text})

    def _sample(self, item: AdmireBItem, answer: SequenceChoice, scored: bool) -> AdmireBSample:
        metrics = score_item_b(answer.expected_item, answer.sentence_type, item.expected_item,
                               item.sentence_type) if scored else {}
        return AdmireBSample(item.compound, item.subset, [c.name for c in item.candidates], answer.scores,
                             answer.expected_item, answer.sentence_type, item.expected_item, item.sentence_type,
                             metrics, answer.extra)
