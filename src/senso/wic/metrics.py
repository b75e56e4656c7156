"""The word-in-context metrics, each declared once (`senso.core.task.Metric`) with its exact definition and its
paired test: accuracy, the F1 averaged over the two classes (macro: WiC-ITA's official binary score), the F1 of
the "same meaning" class alone (what lm-eval's Evalita WiC reports), Spearman's rho (WiC-ITA's official ranking
score, DWUG's pair-level score) and Pearson's r. An F1 is compared between two runs on the F1 itself, as a
correlation is (`core.stats.paired_statistic_difference`, gold shared)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from senso.core.stats import UndefinedMetric
from senso.core.task import Metric, PairedTest, column

BINARY_METRICS = ("accuracy", "macro_f1", "positive_f1")
GRADED_METRICS = ("spearman", "pearson")


def _f1_rows(pred: np.ndarray, gold: np.ndarray, positive: int) -> np.ndarray:
    """The F1 of class `positive` on every row (2-d arrays of 0/1): 2·TP / (2·TP + FP + FN), 0 where the class
    is neither predicted nor gold (scikit-learn's zero_division=0, as WiC-ITA's scorer computes it)."""
    hit_pred, hit_gold = pred == positive, gold == positive
    tp = (hit_pred & hit_gold).sum(axis=1)
    denominator = hit_pred.sum(axis=1) + hit_gold.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2.0 * tp / np.maximum(denominator, 1), 0.0)


def rowwise_macro_f1(pred: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """The F1 averaged over the two classes (1 = same meaning, 0 = different), per row."""
    pred, gold = np.atleast_2d(np.asarray(pred, dtype=float)), np.atleast_2d(np.asarray(gold, dtype=float))
    return (_f1_rows(pred, gold, 1) + _f1_rows(pred, gold, 0)) / 2


def rowwise_positive_f1(pred: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """The F1 of the "same meaning" class (1) alone, per row."""
    pred, gold = np.atleast_2d(np.asarray(pred, dtype=float)), np.atleast_2d(np.asarray(gold, dtype=float))
    return _f1_rows(pred, gold, 1)


def _one(rowwise: Callable[..., np.ndarray]) -> Callable[[Sequence[float], Sequence[float]], float]:
    def statistic(pred: Sequence[float], gold: Sequence[float]) -> float:
        if len(pred) == 0:
            raise UndefinedMetric("no items")
        return float(rowwise(np.asarray(pred)[None, :], np.asarray(gold)[None, :])[0])

    return statistic


macro_f1 = _one(rowwise_macro_f1)
positive_f1 = _one(rowwise_positive_f1)


def _rowwise(name: str) -> Callable[..., Any]:
    def statistic(*args: Any) -> Any:
        from senso.core import stats

        return getattr(stats, name)(*args)

    return statistic


def _on_gold(key: str, gold: str, statistic: Callable[..., Any]) -> PairedTest:
    # a statistic of the run's column against the gold both runs share, compared on the statistic itself
    return PairedTest("correlation", column(key), column(gold), statistic)


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("accuracy", "accuracy (same meaning or not)", "mean(decision = gold label)", short="acc.",
           hub_type="accuracy", random_baseline=0.5, paired=PairedTest("mean", column("correct"))),
    Metric("macro_f1", "macro F1 (the two classes' F1 averaged; WiC-ITA's official binary score)",
           "(F1(same) + F1(different)) / 2", short="macro F1", hub_type="f1", random_baseline=0.5,
           paired=_on_gold("decision", "gold_same", rowwise_macro_f1)),
    Metric("positive_f1", "positive-class F1 (the 'same meaning' class alone; lm-eval's Evalita WiC score)",
           "2·TP / (2·TP + FP + FN), class same", short="F1(same)", hub_type="f1",
           paired=_on_gold("decision", "gold_same", rowwise_positive_f1)),
    Metric("spearman", "Spearman ρ (relatedness vs gold score; WiC-ITA's official ranking score)",
           "ρ(system's relatedness, gold score)", short="ρ", hub_type="spearmanr", random_baseline=0.0,
           paired=_on_gold("relatedness", "gold_score", _rowwise("rowwise_spearman"))),
    Metric("pearson", "Pearson r (relatedness vs gold score)", "r(system's relatedness, gold score)", short="r",
           hub_type="pearsonr", random_baseline=0.0, paired=_on_gold("relatedness", "gold_score", _rowwise("rowwise_pearson"))),
)}


def metrics_of(names: Sequence[str]) -> tuple[Metric, ...]:
    return tuple(METRICS[name] for name in names)
