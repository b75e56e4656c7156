"""AdMIRe's metrics, each declared once (`METRICS`): the official per-item Top-1 and DCG (SemEval-2025 Task 1)
and their random-ranking reference values; what a ranking task file may ask for besides (NDCG@k with its gains,
sentence-type accuracy and macro-F1 over idiomatic and literal), per item where the metric is a mean
(`item_metrics`), over items where it is not (macro-F1); each with a 95% bootstrap interval (`estimates`)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from senso.admire.items import SENTENCE_TYPES
from senso.core.stats import Estimate, UndefinedMetric, bootstrap_estimate, mean
from senso.core.task import Metric, PairedTest, column


DEFAULT_GAINS = (3.0, 1.0, 0.0, 0.0, 0.0)  # the official DCG weights of the images at gold ranks 1..5
RANK_METRICS = ("top1", "dcg", "ndcg", "official_name_corr")  # scored per item from the order
TYPE_METRICS = ("sentence_type_accuracy", "sentence_type_macro_f1")  # scored from the predicted sentence type
DEFAULT_METRICS = ("top1", "dcg", "ndcg")
MACRO_F1 = "sentence_type_macro_f1"


def _check_ranking(predicted: Sequence[str], gold: Sequence[str]) -> None:
    if len(set(gold)) != len(gold):
        raise ValueError(f"gold order repeats an image: {list(gold)}")
    if len(predicted) != len(gold) or set(predicted) != set(gold):
        raise ValueError(f"predicted order {list(predicted)} is not a permutation of the gold images {list(gold)}")


def admire_top1(predicted: Sequence[str], gold: Sequence[str]) -> float:
    """Subtask A Top-1 of one item: 1.0 if the predicted first image is the gold first image, else 0.0.

    `predicted` and `gold` are image file names, best first; `predicted` must be a permutation of `gold`
    (ValueError otherwise).
    """
    _check_ranking(predicted, gold)
    return float(predicted[0] == gold[0])


def _dcg(predicted: Sequence[str], gold: Sequence[str], gains: Sequence[float], k: int) -> float:
    """The gain of the image gold puts at rank i, over log2(2 + its predicted position), summed over the images
    predicted in the first k positions."""
    position = {name: p for p, name in enumerate(predicted)}
    return sum(g / math.log2(2 + position[name]) for g, name in zip(gains, gold) if g and position[name] < k)


def admire_dcg(predicted: Sequence[str], gold: Sequence[str], weights: Sequence[float] = DEFAULT_GAINS) -> float:
    """Subtask A DCG of one item, the official formula.

    DCG = sum over gold ranks i of w_i / log2(2 + p_i), where w = (3, 1, 0, 0, 0) is the weight of the
    image the gold order puts at rank i (counted from 0) and p_i is that image's position in the
    prediction, counted from 0. Only the gold first and second images carry weight. A perfect ranking
    scores 3/log2(2) + 1/log2(3) = 3.6309; the worst (gold first image last, gold second image fourth)
    scores 3/log2(6) + 1/log2(5) = 1.5912.
    """
    _check_ranking(predicted, gold)
    if len(weights) != len(gold):
        raise ValueError(f"{len(weights)} weights for {len(gold)} images")
    return float(_dcg(predicted, gold, weights, len(gold)))


def ndcg_at(predicted: Sequence[str], gold: Sequence[str], gains: Sequence[float], k: int) -> float:
    """DCG of the first k predicted positions over the best possible (the ideal puts the largest gains first)."""
    ideal = sum(g / math.log2(2 + p) for p, g in enumerate(sorted(gains, reverse=True)[:k]) if g)
    return float(_dcg(predicted, gold, gains, k) / ideal) if ideal else 0.0


def official_name_corr(predicted: Sequence[str], gold: Sequence[str]) -> float:
    """The official scorer's `corr_*` of one item, reproduced for parity only: NOT a quality measure.

    It is scipy's Spearman rho of the two lists of file NAMES: each list is ranked by the
    alphabetical order of its names and the ranks are correlated position by position. What it
    measures is how alphabetical order lines up between the two lists, not whether the images were
    ranked well: a reversed ranking can score 0.5, a near-perfect one can score below 0, and only
    an identical list is guaranteed 1.0. Never use it to compare systems.
    """
    _check_ranking(predicted, gold)
    from scipy import stats  # imported when first needed: the table of tasks reads this module's metrics

    return float(stats.spearmanr(list(predicted), list(gold)).statistic)


def admire_expected_random_dcg(weights: Sequence[float] = DEFAULT_GAINS) -> float:
    """Exact mean DCG of a uniformly random ranking of len(weights) images (2.3588 for AdMIRe).

    Under a uniform permutation every gold image is at each position p with probability 1/n, so
    E[DCG] = (sum of weights) / n * sum_{p=0}^{n-1} 1 / log2(2 + p).
    """
    n = len(weights)
    return float(sum(weights) / n * sum(1 / math.log2(2 + p) for p in range(n)))


def _mean(key: str) -> PairedTest:
    return PairedTest("mean", column(key))


# Every AdMIRe metric, declared once (`senso.core.task.Metric`); each task lists the ones it reports.
METRICS = {metric.name: metric for metric in (
    Metric("top1", "Top-1", "mean(first-ranked image = gold's first)", short="Top-1",
           random_baseline=1 / len(DEFAULT_GAINS), paired=_mean("top1")),
    Metric("dcg", "DCG", "mean(Σ_p w(image at p) / log2(2 + p)), official weights",
           random_baseline=admire_expected_random_dcg(), paired=_mean("dcg")),
    Metric("official_name_corr", "name_corr* (official scorer's corr, parity only)",
           "the official scorer's corr, printed for parity", has_ci=False, plotted=False),
    Metric("image_accuracy", "image accuracy", "mean(chosen image = gold)", short="image acc.",
           paired=_mean("image_accuracy")),
    Metric("ndcg", "NDCG", "mean(DCG of the first k predicted positions / the best possible), the task's gains and k",
           paired=_mean("ndcg")),
    Metric("sentence_type_accuracy", "sentence-type accuracy", "mean(predicted sentence type = gold)",
           paired=_mean("sentence_type_accuracy")),
    Metric(MACRO_F1, "sentence-type macro-F1", "the mean over idiomatic and literal of F1"),
    Metric("sense_accuracy", "sense accuracy", "mean(predicted sense = gold sentence type)", short="sense acc.",
           paired=_mean("sense_accuracy")),
)}
METRIC_LABELS = {name: metric.label for name, metric in METRICS.items()}


def item_metrics(names: Sequence[str], predicted: Sequence[str], gold: Sequence[str], gains: Sequence[float],
                 k: int, predicted_type: str | None, gold_type: str | None) -> dict[str, float]:
    """The per-item values of `names` (in that order); sentence-type accuracy only when both types are known."""
    compute = {"top1": lambda: admire_top1(predicted, gold), "dcg": lambda: admire_dcg(predicted, gold, gains),
               "ndcg": lambda: ndcg_at(predicted, gold, gains, k),
               "official_name_corr": lambda: official_name_corr(predicted, gold),
               "sentence_type_accuracy": lambda: float(predicted_type == gold_type)}
    if predicted_type is None or gold_type is None:
        del compute["sentence_type_accuracy"]
    return {name: compute[name]() for name in names if name in compute}


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


def estimates(rows: Sequence[dict[str, Any]], names: Sequence[str], seed: int = 0) -> dict[str, Estimate]:
    """Each metric of `names` over `rows` (samples' JSON: per-item values, `sentence_type` and
    `predicted_sentence_type`), with its bootstrap interval; undefined with the reason where it has none."""
    out = {}
    for name in names:
        if name == MACRO_F1:
            pairs = [(r.get("predicted_sentence_type"), r.get("sentence_type")) for r in rows]
            pairs = [(p, g) for p, g in pairs if p in SENTENCE_TYPES and g in SENTENCE_TYPES]
            if not pairs:
                out[name] = Estimate(value=None, reason="no item has both a predicted and a gold sentence type")
                continue
            predicted, gold = ([float(x == "idiomatic") for x in column] for column in zip(*pairs))
            out[name] = bootstrap_estimate(macro_f1, predicted, gold, seed=seed)
            continue
        out[name] = bootstrap_estimate(mean, [r[name] for r in rows if name in r], seed=seed)
    return out


def grouped_estimates(rows: Sequence[dict[str, Any]], names: Sequence[str],
                      seed: int = 0) -> tuple[dict[str, Estimate], dict[str, dict[str, Estimate]]]:
    """Each metric of `names` over all rows and over the rows of each gold sentence type (idiomatic, literal),
    where the sentence-type macro-F1 is undefined (one gold type)."""
    by_group = {}
    for group in SENTENCE_TYPES:
        in_group = [r for r in rows if r.get("sentence_type") == group]
        by_group[group] = estimates(in_group, [n for n in names if n != MACRO_F1], seed=seed)
        if MACRO_F1 in names:
            by_group[group][MACRO_F1] = Estimate(value=None, reason="one gold sentence type in this group")
    return estimates(rows, names, seed=seed), by_group
