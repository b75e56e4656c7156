"""The metrics of a Likert task, each declared once (`senso.core.task.Metric`): name, label, formula, CI,
the Hub's name, and how two runs are compared on it (a correlation on the correlation itself)."""

from __future__ import annotations

from typing import Any

from senso.core.task import Metric, PairedTest, Samples, column


def _pearson(*args: Any) -> Any:
    from senso.core.stats import rowwise_pearson

    return rowwise_pearson(*args)


def _spearman(*args: Any) -> Any:
    from senso.core.stats import rowwise_spearman

    return rowwise_spearman(*args)


def _correct(samples: Samples) -> list[float]:
    return [float(s["prediction"] == s["gold"]) for s in samples]


def _correlation(key: str, gold: str, statistic: Any = _pearson) -> PairedTest:
    return PairedTest("correlation", column(key), column(gold), statistic)


METRICS = (
    Metric("pearson", "Pearson r (official: predicted vs gold label)", "r(predicted label, gold label)", short="r",
           hub_type="pearsonr", paired=_correlation("prediction", "gold")),
    Metric("spearman", "Spearman ρ (predicted vs gold label)", "ρ(predicted label, gold label)",
           hub_type="spearmanr", paired=_correlation("prediction", "gold", _spearman)),
    Metric("pearson_expected_vs_gold", "Pearson r (expected score vs gold label)", "r(Σ p·k, gold label)",
           paired=_correlation("expected", "gold")),
    Metric("pearson_expected_vs_mean", "Pearson r (expected score vs human mean)", "r(Σ p·k, human mean)",
           paired=_correlation("expected", "gold_mean")),
    Metric("accuracy", "accuracy (predicted = gold label)", "mean(predicted label = gold label)",
           hub_type="accuracy", paired=PairedTest("mean", _correct)),
)
METRIC_LABELS = {metric.name: metric.label for metric in METRICS}
