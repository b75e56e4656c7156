"""AdMIRe scoring: per-item official metrics, means with bootstrap CIs overall and by sentence type, calibration
and training overlap; pure functions the evaluation loop's AdMIRe plans use (a submission file is scored by the
`submission` system through that loop: `senso.admire.systems.submitted`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Sequence

from senso.admire.overlap import FIELD_WORDS, TrainingIndex, item_overlap
from senso.core.overlap import overlap_record as core_record
from senso.admire.items import SENTENCE_TYPES
from senso.admire.metrics import estimates
from senso.core.calibration import BY_GROUP, CALIBRATION_LABELS, binary_distribution, calibration_metrics, reliability_record

GROUPS = SENTENCE_TYPES  # ("idiomatic", "literal"), by gold sentence_type

PARITY_NOTE = (
    "official_name_corr reproduces the official scorer's corr_* for parity only: it is scipy's Spearman "
    "of the two lists of file NAMES (alphabetical ranks), which says nothing about ranking quality "
    "(a reversed ranking can score 0.5). Do not use it to compare systems."
)


@dataclass
class Sample:
    """A line of samples.jsonl: the fields of its class in their order, the `metrics` dict spread in, `extra`
    left out when empty and `overlap` (a fitted system's: what the item shares with its training data) when
    unknown."""

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "metrics":
                row.update(value)
            elif value or f.name not in ("extra", "overlap"):
                row[f.name] = value
        return row


def score_item_b(expected_item: str, sentence_type: str, gold_item: str, gold_type: str) -> dict[str, float]:
    """Image accuracy and sentence-type accuracy of one Subtask B item."""
    return {
        "image_accuracy": float(expected_item == gold_item),
        "sentence_type_accuracy": float(sentence_type == gold_type),
    }


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
            BY_GROUP: by_group,
            "reliability": reliability_record(p, gold, "P(idiomatic) of every item, against whether it is idiomatic",
                                              axis="P(idiomatic)")}


def compounds_index(system: Any) -> TrainingIndex | None:
    """The training data of a system that records only the compounds it was fit on (`fitted_compounds`: a
    fitted sense classifier, a researcher's system), or None for a training-free one."""
    compounds = frozenset(getattr(system, "fitted_compounds", None) or ())
    if not compounds:
        return None
    return TrainingIndex(compounds, None, None, "the compounds the system was fit on (sentences and captions unknown)")


def overlap_record(items: Sequence[Any], rows: Sequence[dict[str, Any]] | None, index: TrainingIndex,
                   metric_names: Sequence[str], seed: int = 0, overlaps: Sequence[dict[str, Any]] | None = None,
                   samples: Sequence[Any] = ()) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(each item's overlap, results.json's `overlap` and, when `rows` (the items' scored samples) are given,
    `unseen`: the metrics on the items that share nothing with the training data, each with its CI, and `n`);
    each of `samples` (the items' samples) is given its item's `overlap`."""
    overlaps = list(overlaps) if overlaps is not None else [item_overlap(item, index) for item in items]
    for sample, overlap in zip(samples, overlaps):
        sample.overlap = overlap
    metrics_of = None if rows is None else (
        lambda unseen: estimates([rows[i] for i in unseen], metric_names, seed=seed))
    return overlaps, core_record(overlaps, index.known, index.source, FIELD_WORDS, metrics_of)

