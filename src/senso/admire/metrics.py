"""AdMIRe (SemEval-2025 Task 1): the official per-item metrics and their random-ranking reference values."""

from __future__ import annotations

import math
from typing import Sequence

from senso.core.task import Metric, PairedTest, column


ADMIRE_DCG_WEIGHTS = (3.0, 1.0, 0.0, 0.0, 0.0)


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


def admire_dcg(predicted: Sequence[str], gold: Sequence[str], weights: Sequence[float] = ADMIRE_DCG_WEIGHTS) -> float:
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
    position = {name: p for p, name in enumerate(predicted)}
    return float(sum(w / math.log2(2 + position[name]) for w, name in zip(weights, gold) if w))


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


def admire_expected_random_dcg(weights: Sequence[float] = ADMIRE_DCG_WEIGHTS) -> float:
    """Exact mean DCG of a uniformly random ranking of len(weights) images (2.3588 for AdMIRe).

    Under a uniform permutation every gold image is at each position p with probability 1/n, so
    E[DCG] = (sum of weights) / n * sum_{p=0}^{n-1} 1 / log2(2 + p).
    """
    n = len(weights)
    return float(sum(weights) / n * sum(1 / math.log2(2 + p) for p in range(n)))


def admire_expected_random_top1(n_images: int = 5) -> float:
    """Exact mean Top-1 of a uniformly random ranking: 1 / n_images (0.2 for AdMIRe)."""
    return 1.0 / n_images


# What a uniformly random Subtask A system scores on average, exactly.
RANDOM_BASELINES = {"top1": admire_expected_random_top1(), "dcg": admire_expected_random_dcg()}


def _mean(key: str) -> PairedTest:
    return PairedTest("mean", column(key))


# Every AdMIRe metric, declared once (`senso.core.task.Metric`); each task lists the ones it reports.
METRICS = {metric.name: metric for metric in (
    Metric("top1", "Top-1", "mean(first-ranked image = gold's first)", short="Top-1",
           random_baseline=RANDOM_BASELINES["top1"], paired=_mean("top1")),
    Metric("dcg", "DCG", "mean(Σ_p w(image at p) / log2(2 + p)), official weights", random_baseline=RANDOM_BASELINES["dcg"],
           paired=_mean("dcg")),
    Metric("official_name_corr", "name_corr* (official scorer's corr, parity only)",
           "the official scorer's corr, printed for parity", has_ci=False, plotted=False),
    Metric("image_accuracy", "image accuracy", "mean(chosen image = gold)", short="image acc.",
           paired=_mean("image_accuracy")),
    Metric("ndcg", "NDCG", "mean(DCG of the first k predicted positions / the best possible), the task's gains and k",
           paired=_mean("ndcg")),
    Metric("sentence_type_accuracy", "sentence-type accuracy", "mean(predicted sentence type = gold)",
           paired=_mean("sentence_type_accuracy")),
    Metric("sentence_type_macro_f1", "sentence-type macro-F1", "the mean over idiomatic and literal of F1"),
    Metric("sense_accuracy", "sense accuracy", "mean(predicted sense = gold sentence type)", short="sense acc."),
)}
METRIC_LABELS = {name: metric.label for name, metric in METRICS.items()}


def exact_match(predicted: str, gold: str) -> float:
    """1.0 if the two labels are identical strings, else 0.0 (Subtask B image and sentence-type accuracy per item)."""
    return float(predicted == gold)
