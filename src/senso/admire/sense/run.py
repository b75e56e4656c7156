"""`senso run admire-sense`: a sense classifier alone, scored on the gold `sentence_type` of Subtask A.

Items come from the Subtask A split file when it is there (English: with captions, so the caption
signal is used); otherwise from the organisers' targets file (`--gold FILE`, or
`admire/reference/a_<lang>_<split>_targets.tsv`), which holds sentences and senses but no captions —
how Portuguese train/dev are scored here. The metric is accuracy (all / idiomatic / literal) with 95%
bootstrap CIs; samples.jsonl holds each item's P(idiomatic) and evidence. `senso.admire.checks` checks the
options and builds the classifier; `prepare` is the run as the evaluation loop runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from senso.admire.checks import AdmirePlan, check_answers, start
from senso.admire.data import items_from_targets_a, official_targets
from senso.admire.items import AdmireAItem
from senso.admire.rankdata import split_items
from senso.admire.rankfile import shipped_task
from senso.admire.metrics import grouped_estimates
from senso.admire.scoring import Sample, compounds_index, sense_calibration
from senso.admire.systems.sense import SenseDecision
from senso.admire.task import TASK_NAMES
from senso.core.errors import DataNotFound, SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.options import RunOptions
from senso.core.task import Task


@dataclass
class SenseSample(Sample):
    """One item's line of samples.jsonl: its gold sense, the classifier's decision and evidence, and whether
    it is right (`metrics`: sense_accuracy)."""

    compound: str
    sentence: str
    sentence_type: str
    predicted_sentence_type: str
    p_idiomatic: float
    evidence: dict[str, Any]
    metrics: dict[str, float]
    overlap: dict[str, Any] | None = None


def load_sense_items(options: RunOptions, split: str) -> tuple[list[AdmireAItem], Path]:
    """A split's items with their gold senses, and the file read: --gold's targets, the split file through the
    shipped admire-a task file, else the organisers' targets beside the data."""
    if options.gold:
        return items_from_targets_a(options.gold, options.lang), Path(options.gold)
    try:
        task = shipped_task(TASK_NAMES["a"], options.lang).with_captions(options.caption_lang)
        items, paths, _ = split_items(task, split, options.data_dir)
        return items, paths[0]
    except DataNotFound:
        targets = official_targets(options.data_dir, "a", options.lang, split)
        if targets is None:
            raise
        return items_from_targets_a(targets, options.lang), targets


@dataclass
class SensePlan(AdmirePlan):
    """An admire-sense run prepared: the items (with gold senses) and the classifier; nothing classified yet."""

    metric: str  # the task's one metric

    def predict(self) -> list[SenseDecision]:
        decisions = self.predictor.classify(self.items)
        check_answers(self.system, decisions, self.items, "decisions")
        return decisions

    def score(self, decisions: list[SenseDecision]) -> Scored:
        options, items = self.options, self.items
        samples = [SenseSample(i.compound, i.sentence, i.sentence_type, d.label, d.p_idiomatic, d.evidence,
                               {self.metric: float(d.label == i.sentence_type)}) for i, d in zip(items, decisions)]
        rows = [s.to_json() for s in samples]
        metrics, by_group = grouped_estimates(rows, [self.metric], seed=options.seed)
        warnings = [*self.hygiene(), *self.partial(None, len(items))]
        record = {"lang": options.lang, "split": options.split, "gold": [str(p) for p in self.data_files],
                  "captions_used": all(all(o.caption for o in i.images) for i in items),
                  "calibration": sense_calibration([s.p_idiomatic for s in samples], [s.sentence_type for s in samples],
                                                   seed=options.seed)}
        # a fitted classifier: the items whose compound it was not fit on are the headline
        record.update(self.overlap(samples, rows, compounds_index(self.predictor), [self.metric]))
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record, warnings=warnings)


def prepare(task: Task, options: RunOptions, context: RunContext) -> SensePlan:
    """The admire-sense run: the classifier built (`senso.admire.checks.start`), each split's items with their
    gold senses."""
    checked, classifier, config = start(task, options, context)
    options = checked.options
    loaded = [load_sense_items(options, split) for split in checked.splits]
    items = [item for split_items, _ in loaded for item in split_items][: options.limit]
    sources = [source for _, source in loaded]
    if any(i.sentence_type is None for i in items):
        raise SensoError(f"{', '.join(map(str, sources))}: no gold sentence types; give the targets file with --gold")
    return SensePlan(task.name, classifier.name, items, sources, {**config, "sense": classifier.describe()},
                     checked.warnings, classifier, options, task.kind, metric=task.metrics[0].name)
