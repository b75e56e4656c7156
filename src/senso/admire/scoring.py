"""AdMIRe scoring: per-item official metrics, means with bootstrap CIs overall and by sentence type,
and scoring of a submission file against an organisers' targets file (what `senso score` runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.admire.data import AdmireATarget, AdmireBTarget, read_targets
from senso.admire.overlap import TrainingIndex, is_seen, item_overlap, overlap_summary
from senso.admire.items import SENTENCE_TYPES
from senso.core.errors import DataError, SensoError
from senso.admire.metrics import admire_dcg, admire_top1, exact_match, official_name_corr
from senso.core.calibration import CALIBRATION_LABELS, binary_distribution, calibration_metrics, reliability_record
from senso.core.stats import Estimate, bootstrap_estimate, mean
from senso.admire.submission import check_submission, plausible_sizes, read_submission
from senso.admire.task import OFFICIAL_SIZES, get_task, parse_targets_name

GROUPS = SENTENCE_TYPES  # ("idiomatic", "literal"), by gold sentence_type

PARITY_NOTE = (
    "official_name_corr reproduces the official scorer's corr_* for parity only: it is scipy's Spearman "
    "of the two lists of file NAMES (alphabetical ranks), which says nothing about ranking quality "
    "(a reversed ranking can score 0.5). Do not use it to compare systems."
)


def score_item_a(predicted: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    """Top-1, DCG and the parity-only name correlation of one Subtask A item."""
    return {
        "top1": admire_top1(predicted, gold),
        "dcg": admire_dcg(predicted, gold),
        "official_name_corr": official_name_corr(predicted, gold),
    }


def score_item_b(expected_item: str, sentence_type: str, gold_item: str, gold_type: str) -> dict[str, float]:
    """Image accuracy and sentence-type accuracy of one Subtask B item."""
    return {
        "image_accuracy": exact_match(expected_item, gold_item),
        "sentence_type_accuracy": exact_match(sentence_type, gold_type),
    }


def aggregate(
    per_item: Sequence[dict[str, Any]], metric_names: Sequence[str], n_resamples: int = 1000, seed: int = 0
) -> tuple[dict[str, Estimate], dict[str, dict[str, Estimate]]]:
    """Means with 95% bootstrap CIs (items resampled, fixed seed) over all items and per gold sentence type.

    Each entry of `per_item` holds the metric values and the item's gold `sentence_type`.
    """
    def estimates(rows: Sequence[dict[str, Any]]) -> dict[str, Estimate]:
        return {m: bootstrap_estimate(mean, [r[m] for r in rows], n_resamples=n_resamples, seed=seed) for m in metric_names}

    overall = estimates(per_item)
    by_group = {g: estimates([r for r in per_item if r.get("sentence_type") == g]) for g in GROUPS}
    return overall, by_group


def sense_calibration(p_idiomatic: Sequence[float | None], sentence_types: Sequence[str | None],
                      seed: int = 0) -> dict[str, Any] | None:
    """results.json's `calibration` of a sense decision: ECE, Brier and log-loss of the distribution
    [1 - P(idiomatic), P(idiomatic)] against the gold sentence type (`senso.core.calibration`, 95% bootstrap CIs),
    overall and per gold sentence type, and the reliability bins of P(idiomatic); None when some item has no
    P(idiomatic) or no gold."""
    if not p_idiomatic or any(p is None for p in p_idiomatic) or any(t not in GROUPS for t in sentence_types):
        return None
    p = [float(v) for v in p_idiomatic]
    gold = [int(t == "idiomatic") for t in sentence_types]
    probs = binary_distribution(p)
    by_group = {}
    for group in GROUPS:
        rows = [i for i, t in enumerate(sentence_types) if t == group]
        if rows:
            by_group[group] = {k: v.to_json() for k, v in calibration_metrics(probs[rows], [gold[i] for i in rows],
                                                                             seed=seed).items()}
    return {"n": len(p), "labels": CALIBRATION_LABELS,
            "metrics": {k: v.to_json() for k, v in calibration_metrics(probs, gold, seed=seed).items()},
            "by_group": by_group,
            "reliability": reliability_record(p, gold, "P(idiomatic) of every item, against whether it is idiomatic")}


def compounds_index(system: Any) -> TrainingIndex | None:
    """The training data of a system that records only the compounds it was fit on (`fitted_compounds`: a
    fitted sense classifier, a researcher's system), or None for a training-free one."""
    compounds = frozenset(getattr(system, "fitted_compounds", None) or ())
    if not compounds:
        return None
    return TrainingIndex(compounds, None, None, "the compounds the system was fit on (sentences and captions unknown)")


def overlap_record(items: Sequence[Any], rows: Sequence[dict[str, Any]] | None, index: TrainingIndex,
                   metric_names: Sequence[str], seed: int = 0,
                   overlaps: Sequence[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(each item's overlap, results.json's `overlap` and, when `rows` (the items' scored samples) are given,
    `unseen`: the metrics on the items that share nothing with the training data, each with its CI, and `n`)."""
    overlaps = list(overlaps) if overlaps is not None else [item_overlap(item, index) for item in items]
    record: dict[str, Any] = {"overlap": overlap_summary(overlaps, index, scored=rows is not None)}
    if rows is not None:
        unseen = [row for row, o in zip(rows, overlaps) if not is_seen(o)]
        metrics, _ = aggregate(unseen, metric_names, seed=seed)
        record["unseen"] = {"n": len(unseen), **{k: v.to_json() for k, v in metrics.items()}}
    return overlaps, record


@dataclass
class ScoreReport:
    """What `senso score` computed for one submission file."""

    task: str
    submission: Path
    gold: Path
    n: int
    n_expected: int | None
    partial: bool
    metrics: dict[str, Estimate]
    metrics_by_group: dict[str, dict[str, Estimate]]
    per_item: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task, "submission": str(self.submission), "gold": str(self.gold), "n": self.n,
            "n_expected": self.n_expected, "partial": self.partial,
            "metrics": {k: v.to_json() for k, v in self.metrics.items()},
            "metrics_by_group": {g: {k: v.to_json() for k, v in ms.items()} for g, ms in self.metrics_by_group.items()},
            "per_item": self.per_item, "notes": self.notes,
        }


def expected_rows(subtask: str, submission_path: Path, gold_path: Path, n_gold: int) -> tuple[int, str]:
    """The official row count to enforce, and where it came from (the gold's file name, else the submission's)."""
    parsed = parse_targets_name(gold_path.name)
    if parsed is not None and parsed[0] == subtask:
        _, lang, split = parsed
        return OFFICIAL_SIZES[(subtask, lang, split)], f" ({lang} {split}, from the gold file name {gold_path.name})"
    sizes = plausible_sizes(subtask, submission_path.name)
    if n_gold in sizes or not sizes:
        return n_gold, f" (the {n_gold} gold rows)"
    return n_gold, f" (the {n_gold} gold rows; {submission_path.name} suggests {' or '.join(map(str, sorted(sizes)))})"


def score_submission(
    task_name: str, submission_path: str | Path, gold_path: str | Path, allow_partial: bool = False,
    n_resamples: int = 1000, seed: int = 0,
) -> ScoreReport:
    """Score a submission file against an organisers' targets file, refusing what the official scorer refuses."""
    task = get_task(task_name)
    submission_path, gold_path = Path(submission_path), Path(gold_path)
    submission = read_submission(submission_path)
    if submission.subtask != task.subtask:
        raise DataError(submission_path, f"this is a Subtask {submission.subtask.upper()} submission, not {task.name}")
    targets = read_targets(gold_path)
    want = AdmireATarget if task.subtask == "a" else AdmireBTarget
    if not isinstance(targets[0], want):
        raise DataError(gold_path, f"not a Subtask {task.subtask.upper()} targets file")
    gold = {t.compound: t for t in targets}
    if task.subtask == "a":
        images = {c: t.expected_order for c, t in gold.items()}
    else:
        images = {c: None for c in gold}  # the targets do not list Subtask B candidates
    n_expected, note = expected_rows(task.subtask, submission_path, gold_path, len(gold))
    check_submission(submission, images, n_expected, allow_partial=allow_partial, size_note=note)
    per_item = []
    for row in submission.rows:
        target = gold[row.compound]
        if task.subtask == "a":
            scores = score_item_a(row.expected_order, target.expected_order)
            gold_fields = {"gold_order": list(target.expected_order)}
            predicted = {"predicted_order": list(row.expected_order)}
        else:
            scores = score_item_b(row.expected_item, row.sentence_type, target.expected_item, target.sentence_type)
            gold_fields = {"gold_item": target.expected_item}
            predicted = {"predicted_item": row.expected_item, "predicted_sentence_type": row.sentence_type}
        per_item.append({"compound": row.compound, "sentence_type": target.sentence_type, **predicted, **gold_fields, **scores})
    names = task.metrics + task.parity_metrics
    metrics, by_group = aggregate(per_item, names, n_resamples=n_resamples, seed=seed)
    partial = len(per_item) != n_expected
    notes = [PARITY_NOTE] if task.parity_metrics else []
    if partial:
        notes.append(f"partial: {len(per_item)} of {n_expected} items scored (--allow-partial); not comparable to the leaderboard")
    return ScoreReport(task.name, submission_path, gold_path, len(per_item), n_expected, partial, metrics, by_group, per_item, notes)


def require_gold(has_gold: bool, what: str) -> None:
    if not has_gold:
        raise SensoError(f"{what} has no gold to score against: give the organisers' targets file with --gold "
                         "(e.g. a_en_test_targets.tsv); test and xeval gold is not distributed with the inputs")
