"""A word-in-context run's scores from its samples: the task's metrics over all pairs, apart for each language
pair (it, it-en), on the pairs whose lemma the system never saw in training (the headline when it saw some), and
the calibration of P(same meaning) against the binary gold."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Sequence

import numpy as np

from senso.core.stats import Estimate, bootstrap_estimate, mean, pearson, rowwise_spearman, spearman
from senso.wic.metrics import BINARY_METRICS, GRADED_METRICS, macro_f1, positive_f1, rowwise_macro_f1, \
    rowwise_positive_f1


@dataclass
class WicSample:
    """One scored pair: its gold (`label` and/or `score`), the system's P(same) (`p_same`) and decision, or its
    relatedness, and (a fitted system) whether its lemma was among the training rows."""

    id: str
    lemma: str
    langs: str
    sentence1: str
    sentence2: str
    span1: tuple[int, int]
    span2: tuple[int, int]
    label: int | None = None
    score: float | None = None
    p_same: float | None = None
    decision: int | None = None
    relatedness: float | None = None
    seen: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def correct(self) -> float | None:
        if self.label is None or self.decision is None:
            return None
        return float(self.label == self.decision)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "lemma": self.lemma, "langs": self.langs, "sentence1": self.sentence1,
                "sentence2": self.sentence2, "span1": list(self.span1), "span2": list(self.span2),
                "gold_same": self.label, "gold_score": self.score, "p_same": self.p_same, "decision": self.decision,
                "correct": self.correct, "relatedness": self.relatedness, "seen": self.seen}


def binary_metrics(samples: Sequence[WicSample], seed: int = 0) -> dict[str, Estimate]:
    """Accuracy, macro F1 and positive-class F1 of the decisions against the labels, 95% bootstrap intervals."""
    decisions = [float(s.decision) for s in samples]
    labels = [float(s.label) for s in samples]
    return {
        "accuracy": bootstrap_estimate(mean, [s.correct for s in samples], seed=seed),
        "macro_f1": bootstrap_estimate(macro_f1, decisions, labels, seed=seed, rowwise=rowwise_macro_f1),
        "positive_f1": bootstrap_estimate(positive_f1, decisions, labels, seed=seed, rowwise=rowwise_positive_f1),
    }


def graded_metrics(samples: Sequence[WicSample], seed: int = 0) -> dict[str, Estimate]:
    """Spearman's rho and Pearson's r of the relatedness against the gold scores, 95% bootstrap intervals."""
    related, gold = [s.relatedness for s in samples], [s.score for s in samples]
    names = ("the system's relatedness scores", "the gold scores")
    return {
        "spearman": bootstrap_estimate(partial(spearman, names=names), related, gold, seed=seed,
                                       rowwise=rowwise_spearman),
        "pearson": bootstrap_estimate(partial(pearson, names=names), related, gold, seed=seed),  # rowwise: core's
    }


def metrics_for(samples: Sequence[WicSample], names: Sequence[str], seed: int = 0) -> dict[str, Estimate]:
    """The metrics `names` (the task's, headline first) on the samples that have gold; {} when none has."""
    binary = [s for s in samples if s.label is not None and s.decision is not None]
    graded = [s for s in samples if s.score is not None and s.relatedness is not None]
    found = {**(binary_metrics(binary, seed) if binary and set(names) & set(BINARY_METRICS) else {}),
             **(graded_metrics(graded, seed) if graded and set(names) & set(GRADED_METRICS) else {})}
    return {name: found[name] for name in names if name in found}


def by_langs(samples: Sequence[WicSample], names: Sequence[str], seed: int = 0) -> dict[str, dict[str, Estimate]]:
    """The metrics apart for each language pair, when the samples hold more than one."""
    groups = sorted({s.langs for s in samples})
    if len(groups) < 2:
        return {}
    return {g: metrics_for([s for s in samples if s.langs == g], names, seed) for g in groups}


def calibration(samples: Sequence[WicSample], seed: int = 0) -> dict[str, Any] | None:
    """results.json's `calibration` of P(same meaning) against the binary gold (ECE, Brier, log-loss over the
    two-label distributions, and the reliability bins); None when the pairs have no binary gold."""
    from senso.core.calibration import (CALIBRATION_LABELS, binary_distribution, calibration_metrics,
                                        reliability_record)

    rated = [s for s in samples if s.label is not None]
    if not rated:
        return None
    if any(s.p_same is None for s in rated):
        return {"reason": "the system gives no P(same meaning): calibration needs probabilities"}
    p = np.asarray([s.p_same for s in rated], dtype=float)
    gold = np.asarray([s.label for s in rated], dtype=int)
    metrics = calibration_metrics(binary_distribution(p), gold, seed=seed)
    return {"n": len(rated), "labels": CALIBRATION_LABELS, "metrics": {k: v.to_json() for k, v in metrics.items()},
            "reliability": reliability_record(p, gold, "P(same meaning) of every pair, against whether the two "
                                                       "meanings are the same", axis="P(same meaning)")}
