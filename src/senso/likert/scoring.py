"""Which metrics a Likert run reports, computed from predictions and gold (metric names as ABRICOT's)."""

from __future__ import annotations

from functools import partial
from typing import Sequence

import numpy as np

from senso.core.calibration import BY_GROUP, CALIBRATION_LABELS, calibration_metrics, one_hot, reliability_record, softmax
from senso.core.stats import Estimate, bootstrap_estimate, pearson, rowwise_mean, spearman
from senso.likert.items import LikertItem
from senso.likert.task import LikertPrediction, LikertTask, require_gold


def accuracy(pred: Sequence[float], gold: Sequence[float]) -> float:
    """Share of items whose predicted label equals the gold label (lm-eval's `acc`)."""
    from senso.core.stats import mean

    return mean(np.asarray(pred) == np.asarray(gold))


def rowwise_accuracy(pred: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """`accuracy` of every row of 2-d arrays (the same floats: means of 0/1 values)."""
    return rowwise_mean(np.asarray(pred) == np.asarray(gold))


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
        "accuracy": bootstrap_estimate(accuracy, labels, gold, rowwise=rowwise_accuracy, **kw),
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


def label_distribution(prediction: LikertPrediction) -> list[float] | None:
    """The prediction's probabilities over the task's labels, in label order: the choices' log-probs renormalised
    (a softmax: likert-lm), or the distribution a researcher's system answered; None for a point answer."""
    if prediction.logprobs is not None:
        return list(softmax(prediction.logprobs))
    given = prediction.extra.get("distribution")
    return list(given) if given is not None else None


def likert_calibration(items: Sequence[LikertItem], predictions: Sequence[LikertPrediction], task: LikertTask,
                       seed: int = 0) -> dict:
    """results.json's `calibration` of a Likert run: ECE, Brier and log-loss of the label distributions against
    the gold labels (`senso.core.calibration`, 95% bootstrap CIs) overall and per domain, and the reliability
    bins of every (item, label) pair; or, when a system answers points rather than distributions, the reason."""
    distributions = [label_distribution(p) for p in predictions]
    if not predictions or any(d is None for d in distributions):
        return {"reason": "the system answers a point on the scale, not a distribution over the labels: "
                          "calibration needs probabilities"}
    labels = list(task.labels)
    probs = np.asarray(distributions, dtype=float)
    gold = np.asarray([labels.index(task.gold_label(require_gold(item))) for item in items])
    domains = sorted({item.domain for item in items} - {""})
    by_domain = {}
    for domain in domains:
        rows = [i for i, item in enumerate(items) if item.domain == domain]
        by_domain[domain] = {k: v.to_json() for k, v in calibration_metrics(probs[rows], gold[rows], seed=seed).items()}
    return {"n": len(items), "labels": CALIBRATION_LABELS,
            "metrics": {k: v.to_json() for k, v in calibration_metrics(probs, gold, seed=seed).items()},
            BY_GROUP: by_domain,
            "reliability": reliability_record(probs.ravel(), one_hot(gold, len(labels)).ravel(),
                                              "P(label) of every item and label, against whether it is the gold label")}
