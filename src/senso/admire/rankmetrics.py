"""The metrics a ranking task file may ask for: Top-1, DCG with the file's gains, NDCG@k, and, when the task
asks for sentence types, their accuracy and macro-F1 (idiomatic, literal). Per item where the metric is a mean
(`item_metrics`), over items where it is not (macro-F1); each with a 95% bootstrap interval (`estimates`)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from senso.admire.items import SENTENCE_TYPES
from senso.admire.metrics import ADMIRE_DCG_WEIGHTS, admire_dcg, admire_top1, official_name_corr
from senso.core.stats import Estimate, UndefinedMetric, bootstrap_estimate, mean

RANK_METRICS = ("top1", "dcg", "ndcg", "official_name_corr")  # scored per item from the order
TYPE_METRICS = ("sentence_type_accuracy", "sentence_type_macro_f1")  # scored from the predicted sentence type
METRICS = RANK_METRICS + TYPE_METRICS
DEFAULT_METRICS = ("top1", "dcg", "ndcg")
DEFAULT_GAINS = ADMIRE_DCG_WEIGHTS


def ndcg_at(predicted: Sequence[str], gold: Sequence[str], gains: Sequence[float], k: int) -> float:
    """DCG of the first k predicted positions over the best possible: gain g_i of the image gold puts at rank i,
    discounted by log2(2 + its predicted position); the ideal puts the largest gains first."""
    position = {name: p for p, name in enumerate(predicted)}
    dcg = sum(g / math.log2(2 + position[name]) for g, name in zip(gains, gold) if g and position[name] < k)
    ideal = sum(g / math.log2(2 + p) for p, g in enumerate(sorted(gains, reverse=True)[:k]) if g)
    return float(dcg / ideal) if ideal else 0.0


def item_metrics(names: Sequence[str], predicted: Sequence[str], gold: Sequence[str], gains: Sequence[float],
                 k: int, predicted_type: str | None, gold_type: str | None) -> dict[str, float]:
    """The per-item values of `names` (in that order); sentence-type accuracy only when both types are known."""
    compute = {"top1": lambda: admire_top1(predicted, gold), "dcg": lambda: admire_dcg(predicted, gold, gains),
               "ndcg": lambda: ndcg_at(predicted, gold, gains, k),
               "official_name_corr": lambda: official_name_corr(predicted, gold),
               "sentence_type_accuracy": lambda: float(predicted_type == gold_type)}
    out = {}
    for name in names:
        if name == "sentence_type_accuracy" and (predicted_type is None or gold_type is None):
            continue
        if name in compute:
            out[name] = compute[name]()
    return out


def macro_f1(predicted: np.ndarray, gold: np.ndarray) -> float:
    """Macro-F1 over idiomatic (1) and literal (0): the mean of the two classes' F1 (a class that is neither
    predicted nor gold in the sample has no F1 and is left out; none at all is undefined)."""
    scores = []
    for label in (1.0, 0.0):
        tp = float(np.sum((predicted == label) & (gold == label)))
        fp = float(np.sum((predicted == label) & (gold != label)))
        fn = float(np.sum((predicted != label) & (gold == label)))
        if tp + fp + fn:
            scores.append(2 * tp / (2 * tp + fp + fn))
    if not scores:
        raise UndefinedMetric("no items")
    return float(np.mean(scores))


def estimates(rows: Sequence[dict[str, Any]], names: Sequence[str], seed: int = 0,
              n_resamples: int = 1000) -> dict[str, Estimate]:
    """Each metric of `names` over `rows` (samples' JSON: per-item values, `sentence_type` and
    `predicted_sentence_type`), with its bootstrap interval; undefined with the reason where it has none."""
    out = {}
    for name in names:
        if name == "sentence_type_macro_f1":
            pairs = [(r.get("predicted_sentence_type"), r.get("sentence_type")) for r in rows]
            pairs = [(p, g) for p, g in pairs if p in SENTENCE_TYPES and g in SENTENCE_TYPES]
            if not pairs:
                out[name] = Estimate(value=None, reason="no item has both a predicted and a gold sentence type")
                continue
            predicted, gold = ([float(x == "idiomatic") for x in column] for column in zip(*pairs))
            out[name] = bootstrap_estimate(macro_f1, predicted, gold, n_resamples=n_resamples, seed=seed)
            continue
        out[name] = bootstrap_estimate(mean, [r[name] for r in rows if name in r], n_resamples=n_resamples, seed=seed)
    return out


def grouped_estimates(rows: Sequence[dict[str, Any]], names: Sequence[str],
                      seed: int = 0) -> tuple[dict[str, Estimate], dict[str, dict[str, Estimate]]]:
    """Each metric of `names` over all rows and over the rows of each gold sentence type (idiomatic, literal)."""
    return estimates(rows, names, seed=seed), {
        group: estimates([r for r in rows if r.get("sentence_type") == group], names, seed=seed)
        for group in SENTENCE_TYPES}
