"""`senso run admire-sense`: a sense classifier alone, scored on the gold `sentence_type` of Subtask A.

Items come from the Subtask A split file when it is there (English: with captions, so the caption
signal is used); otherwise from the organisers' targets file (`--gold FILE`, or
`admire/reference/a_<lang>_<split>_targets.tsv`), which holds sentences and senses but no captions —
how Portuguese train/dev are scored here. The metric is accuracy (all / idiomatic / literal) with 95%
bootstrap CIs; samples.jsonl holds each item's P(idiomatic) and evidence. `senso.admire.checks` checks the
options and builds the classifier; `sense_plan` is the run as the evaluation loop runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from senso.admire.checks import start
from senso.admire.data import locate_admire, read_targets_a
from senso.admire.items import AdmireAItem, ImageOption
from senso.admire.rankdata import split_items
from senso.admire.rankfile import shipped_task
from senso.admire.metrics import grouped_estimates
from senso.admire.scoring import compounds_index, overlap_record, sense_calibration
from senso.admire.systems.sense import SenseClassifier, SenseDecision
from senso.admire.task import SENSE_TASK, hygiene_warnings, targets_name
from senso.core.errors import DataNotFound, SensoError
from senso.core.evaluation import RunContext, Scored
from senso.core.options import RunOptions

[METRIC] = SENSE_TASK.metrics  # "sense_accuracy"


@dataclass
class SenseSample:
    """One item's line of samples.jsonl: its gold sense, the classifier's decision and evidence, and whether
    it is right."""

    compound: str
    sentence: str
    sentence_type: str
    predicted_sentence_type: str
    p_idiomatic: float
    evidence: dict[str, Any]
    overlap: dict[str, Any] | None = None  # a fitted classifier's: what the item shares with its training data

    @property
    def sense_accuracy(self) -> float:
        return float(self.predicted_sentence_type == self.sentence_type)

    def to_json(self) -> dict[str, Any]:
        return {"compound": self.compound, "sentence": self.sentence, "sentence_type": self.sentence_type,
                "predicted_sentence_type": self.predicted_sentence_type, "p_idiomatic": self.p_idiomatic,
                "evidence": self.evidence, METRIC: self.sense_accuracy,
                **({"overlap": self.overlap} if self.overlap is not None else {})}


def items_from_targets(path: Path, lang: str) -> list[AdmireAItem]:
    """Subtask A items built from a targets file: sentence and gold only; images named, captions empty."""
    return [AdmireAItem(t.compound, t.subset, t.sentence, tuple(ImageOption(n, "") for n in t.expected_order), lang,
                        t.sentence_type, t.expected_order) for t in read_targets_a(path)]


def load_sense_items(options: RunOptions, split: str) -> tuple[list[AdmireAItem], Path]:
    if options.gold:
        return items_from_targets(Path(options.gold), options.lang), Path(options.gold)
    try:
        task = shipped_task("admire-a", options.lang).with_captions(options.caption_lang)
        items, paths, _ = split_items(task, split, options.data_dir)
        return items, paths[0]
    except DataNotFound:
        targets = locate_admire(options.data_dir) / "reference" / targets_name("a", options.lang, split)
        if not targets.exists():
            raise
        return items_from_targets(targets, options.lang), targets


@dataclass
class SensePlan:
    """An admire-sense run prepared: the items (with gold senses) and the classifier; nothing classified yet."""

    task: str
    system: str
    items: list[AdmireAItem]
    data_files: list[Path]
    config: dict[str, Any]
    warnings: list[str]
    classifier: SenseClassifier
    options: RunOptions  # with AdMIRe's defaults filled in
    family: str = "admire"
    kind: str = "admire-sense"

    def describe_system(self) -> dict[str, Any]:
        return self.classifier.describe()

    def predict(self) -> list[SenseDecision]:
        decisions = self.classifier.classify(self.items)
        if len(decisions) != len(self.items):
            raise SensoError(f"system {self.system!r} returned {len(decisions)} decisions for {len(self.items)} items")
        return decisions

    def score(self, decisions: list[SenseDecision]) -> Scored:
        options, items = self.options, self.items
        samples = [SenseSample(i.compound, i.sentence, i.sentence_type, d.label, d.p_idiomatic, d.evidence)
                   for i, d in zip(items, decisions)]
        metrics, by_group = grouped_estimates([s.to_json() for s in samples], [METRIC], seed=options.seed)
        warnings = hygiene_warnings(self.classifier, [i.compound for i in items], options.split)
        if options.limit is not None:
            warnings.append(f"PARTIAL: the first {len(items)} items (--limit {options.limit}) of {options.lang} "
                            f"{options.split}")
        record = {"lang": options.lang, "split": options.split, "gold": [str(p) for p in self.data_files],
                  "captions_used": all(all(o.caption for o in i.images) for i in items),
                  "calibration": sense_calibration([s.p_idiomatic for s in samples], [s.sentence_type for s in samples],
                                                   seed=options.seed)}
        index = compounds_index(self.classifier)
        if index is not None:  # a fitted classifier: the items whose compound it was not fit on are the headline
            overlaps, overlap = overlap_record(items, [s.to_json() for s in samples], index, [METRIC], options.seed)
            for sample, item_overlap in zip(samples, overlaps):
                sample.overlap = item_overlap
            record.update(overlap)
        return Scored(samples=samples, metrics=metrics, metrics_by_group=by_group, record=record, warnings=warnings)


def prepare(options: RunOptions, context: RunContext) -> SensePlan:
    """The admire-sense run: the classifier built (`senso.admire.checks.start`), the items with their gold senses."""
    checked, classifier, config = start(options, context)
    return sense_plan(checked.options, checked.splits, classifier, config, checked.warnings)


def sense_plan(options: RunOptions, splits: list[str], classifier: SenseClassifier, config: dict[str, Any],
               warnings: list[str]) -> SensePlan:
    """The admire-sense run of `classifier` on `splits`."""
    items: list[AdmireAItem] = []
    sources: list[Path] = []
    for split in splits:
        split_items, source = load_sense_items(options, split)
        items += split_items
        sources.append(source)
    if options.limit is not None:
        items = items[: options.limit]
    if any(i.sentence_type is None for i in items):
        raise SensoError(f"{', '.join(map(str, sources))}: no gold sentence types; give the targets file with --gold")
    return SensePlan(task=SENSE_TASK.name, system=classifier.name, items=items, data_files=sources,
                     config={**config, "sense": classifier.describe()}, warnings=warnings, classifier=classifier,
                     options=options)
