"""Which metrics a Likert run reports, computed from predictions and gold (metric names as ABRICOT's)."""

from __future__ import annotations

from functools import partial
from typing import Sequence

import numpy as np

from senso.core.stats import Estimate, bootstrap_estimate, pearson, spearman
from senso.likert.items import LikertItem
from senso.likert.task import LikertPrediction, LikertTask, require_gold


def accuracy(pred: Sequence[float], gold: Sequence[float]) -> float:
    """Share of items whose predicted label equals the gold label (lm-eval's `acc`)."""
    from senso.core.stats import mean

    return mean(np.asarray(pred) == np.asarray(gold))


def likert_metrics(items: Sequence[LikertItem], predictions: Sequence[LikertPrediction], task: LikertTask,
                   seed: int = 0, n_resamples: int = 1000) -> dict[str, Estimate]:
    """Each with a 95% bootstrap CI: `pearson` (official: predicted label vs gold label), `spearman`
    (same pair), `pearson_expected_vs_gold` (the continuous expected score vs the gold label),
    `pearson_expected_vs_mean` (expected score vs the raw gold, ABRICOT's human mean) and `accuracy`.
    """
    means = [require_gold(item) for item in items]
    gold = [task.gold_label(m) for m in means]
    labels = [p.label for p in predictions]
    expected = [p.expected for p in predictions]
    kw = {"seed": seed, "n_resamples": n_resamples}
    label_names = ("the predicted labels", "the gold labels")
    return {
        "pearson": bootstrap_estimate(partial(pearson, names=label_names), labels, gold, **kw),
        "spearman": bootstrap_estimate(partial(spearman, names=label_names), labels, gold, **kw),
        "pearson_expected_vs_gold": bootstrap_estimate(
            partial(pearson, names=("the expected scores", "the gold labels")), expected, gold, **kw),
        "pearson_expected_vs_mean": bootstrap_estimate(
            partial(pearson, names=("the expected scores", "the human means")), expected, means, **kw),
        "accuracy": bootstrap_estimate(accuracy, labels, gold, **kw),
    }


def likert_metrics_by_domain(items: Sequence[LikertItem], predictions: Sequence[LikertPrediction],
                             task: LikertTask, seed: int = 0) -> dict[str, dict[str, Estimate]]:
    """Metrics per domain; none when the data has no domain column (every domain empty)."""
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(item.domain, []).append(i)
    if set(groups) == {""}:
        return {}
    return {
        domain: likert_metrics([items[i] for i in idx], [predictions[i] for i in idx], task, seed=seed)
        for domain, idx in sorted(groups.items())
    }


METRIC_LABELS = {
    "pearson": "Pearson r (official: predicted vs gold label)",
    "spearman": "Spearman ρ (predicted vs gold label)",
    "pearson_expected_vs_gold": "Pearson r (expected score vs gold label)",
    "pearson_expected_vs_mean": "Pearson r (expected score vs human mean)",
    "accuracy": "accuracy (predicted = gold label)",
}
