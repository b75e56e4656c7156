"""Pure metric functions with exact definitions, and bootstrap confidence intervals.

Every function takes plain sequences and returns plain numbers (or an `Estimate`); nothing
here reads files or knows about tasks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, asdict
from typing import Callable, Sequence

import numpy as np
from scipy import stats


class UndefinedMetric(ValueError):
    """A metric that has no value on these inputs (e.g. Pearson r of a constant series)."""


@dataclass(frozen=True)
class Estimate:
    """A point value with a 95% bootstrap interval, or a reason why there is no value."""

    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    reason: str | None = None

    def to_json(self) -> dict:
        data = {k: v for k, v in asdict(self).items() if v is not None or k == "value"}
        return data

    def format(self, digits: int = 3) -> str:
        if self.value is None:
            return f"undefined ({self.reason})"
        text = f"{self.value:.{digits}f}"
        if self.ci_low is not None and self.ci_high is not None:
            text += f" [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}]"
        return text


def _as_arrays(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"need two 1-d sequences of equal length, got shapes {a.shape} and {b.shape}")
    if len(a) < 2:
        raise UndefinedMetric(f"needs at least 2 items, got {len(a)}")
    return a, b


def _check_not_constant(a: np.ndarray, name: str) -> None:
    if np.all(a == a[0]):
        raise UndefinedMetric(f"{name} are constant (every item has value {a[0]:g}), so the correlation is undefined")


def pearson(x: Sequence[float], y: Sequence[float], names: tuple[str, str] = ("x", "y")) -> float:
    """Pearson's product-moment correlation r of x and y.

    Raises UndefinedMetric when either series is constant (r = 0/0), e.g. a model that answers
    the same digit for every item; `names` label the series in that message.
    """
    a, b = _as_arrays(x, y)
    _check_not_constant(a, names[0])
    _check_not_constant(b, names[1])
    return float(stats.pearsonr(a, b).statistic)


def spearman(x: Sequence[float], y: Sequence[float], names: tuple[str, str] = ("x", "y")) -> float:
    """Spearman's rank correlation rho (Pearson r of average ranks; ties share their mean rank)."""
    a, b = _as_arrays(x, y)
    _check_not_constant(a, names[0])
    _check_not_constant(b, names[1])
    return float(stats.spearmanr(a, b).statistic)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; UndefinedMetric for an empty sequence."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        raise UndefinedMetric("no items")
    return float(arr.mean())


def bootstrap_estimate(
    statistic: Callable[..., float],
    *columns: Sequence[float],
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """Value of `statistic(*columns)` with a percentile bootstrap interval.

    Items (rows across all columns) are resampled with replacement `n_resamples` times with a
    numpy Generator seeded by `seed`; resamples on which the statistic is undefined are skipped,
    and the interval is the (1-confidence)/2 and (1+confidence)/2 percentiles of the rest.
    When the statistic is undefined on the full data the Estimate carries the reason and no value.
    """
    arrays = [np.asarray(c, dtype=float) for c in columns]
    try:
        value = statistic(*arrays)
    except UndefinedMetric as exc:
        return Estimate(value=None, reason=str(exc))
    n = len(arrays[0])
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        try:
            samples.append(statistic(*(a[idx] for a in arrays)))
        except UndefinedMetric:
            continue
    samples_arr = np.asarray([s for s in samples if not math.isnan(s)])
    if samples_arr.size == 0:
        return Estimate(value=float(value), reason="no bootstrap resample had a defined value")
    alpha = (1 - confidence) / 2
    low, high = np.quantile(samples_arr, [alpha, 1 - alpha])
    return Estimate(value=float(value), ci_low=float(low), ci_high=float(high))
