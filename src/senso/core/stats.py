"""Pure metric functions with exact definitions, and bootstrap confidence intervals.

Every function takes plain sequences and returns plain numbers (or an `Estimate`); nothing
here reads files or knows about tasks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, asdict
from typing import Callable, Sequence

import numpy as np

from senso.core.errors import SensoError


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

    def __float__(self) -> float:
        """The value (`float(r.metrics["top1"])`); a SensoError saying why when the metric has none."""
        if self.value is None:
            raise SensoError(f"the estimate has no value: {self.reason or 'undefined'}")
        return float(self.value)

    def format(self, digits: int = 3) -> str:
        if self.value is None:
            return f"undefined ({self.reason})"
        text = f"{self.value:.{digits}f}"
        if self.ci_low is not None and self.ci_high is not None:
            text += f" [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}]"
        return text


def _scipy_stats():
    """scipy.stats, imported on first use: it takes seconds to import, and a run needs it only at the end."""
    from scipy import stats

    return stats


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


def zscores(values: Sequence[float]) -> np.ndarray:
    """(x - mean) / std within one group (population std); all zeros when the values are all equal."""
    x = np.asarray(values, dtype=np.float64)
    std = x.std()
    return np.zeros_like(x) if std == 0 else (x - x.mean()) / std


def pearson(x: Sequence[float], y: Sequence[float], names: tuple[str, str] = ("x", "y")) -> float:
    """Pearson's product-moment correlation r of x and y.

    Raises UndefinedMetric when either series is constant (r = 0/0), e.g. a model that answers
    the same digit for every item; `names` label the series in that message.
    """
    a, b = _as_arrays(x, y)
    _check_not_constant(a, names[0])
    _check_not_constant(b, names[1])
    return float(_scipy_stats().pearsonr(a, b).statistic)


def spearman(x: Sequence[float], y: Sequence[float], names: tuple[str, str] = ("x", "y")) -> float:
    """Spearman's rank correlation rho (Pearson r of average ranks; ties share their mean rank)."""
    a, b = _as_arrays(x, y)
    _check_not_constant(a, names[0])
    _check_not_constant(b, names[1])
    return float(_scipy_stats().spearmanr(a, b).statistic)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; UndefinedMetric for an empty sequence."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        raise UndefinedMetric("no items")
    return float(arr.mean())


# ---------------------------------------------------------------------------
# Paired comparison of two systems on one statistic (e.g. the difference in Pearson r
# of two ABRICOT runs): paired bootstrap interval and paired permutation p-value.
# Statistics here are row-wise: each row of a 2-d array is one resample, so thousands of
# resamples cost a few numpy operations; NaN marks a row where the statistic is undefined.
# ---------------------------------------------------------------------------


def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of x[k] and y[k] for every row k (2-d arrays of equal shape); NaN where a row is constant."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    sxx = (xc * xc).sum(axis=1)
    syy = (yc * yc).sum(axis=1)
    constant = (np.ptp(x, axis=1) == 0) | (np.ptp(y, axis=1) == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt(sxx * syy)
    r[constant] = np.nan
    return np.clip(r, -1.0, 1.0)


def rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho per row: Pearson r of the rows' average ranks (ties share their mean rank)."""
    return rowwise_pearson(_scipy_stats().rankdata(x, axis=1), _scipy_stats().rankdata(y, axis=1))


def rowwise_mean(x: np.ndarray) -> np.ndarray:
    """Mean of every row (Top-1, DCG, accuracy as per-item 0/1 values)."""
    return np.asarray(x, dtype=float).mean(axis=1)


@dataclass(frozen=True)
class PairedDifference:
    """statistic(A) - statistic(B) on the same items, with a paired bootstrap 95% interval and the
    two-sided p-value of a paired permutation test; `difference` is None (and `reason` says why)
    when the statistic is undefined for either system."""

    n: int
    value_a: float | None
    value_b: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    method: str
    reason: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


def paired_statistic_difference(
    statistic: Callable[..., np.ndarray],
    pred_a: Sequence[float],
    pred_b: Sequence[float],
    *shared: Sequence[float],
    n_resamples: int = 2000,
    seed: int = 0,
    exact_up_to: int = 12,
) -> PairedDifference:
    """Compare `statistic(pred_a, *shared)` with `statistic(pred_b, *shared)` item by item.

    `statistic` is row-wise (`rowwise_pearson`, `rowwise_spearman`, `rowwise_mean`): it takes 2-d
    arrays whose rows are resamples and returns one value per row, NaN where undefined.
    `pred_a[i]` and `pred_b[i]` are the two systems' outputs on item i; the `shared` columns (gold
    labels, human means) are the same for both. The difference is d = stat(A) - stat(B).

    p-value (paired permutation): under the null hypothesis the two systems are exchangeable on
    every item, so each item's pair of outputs is swapped with probability 1/2 and d recomputed.
    The p-value is the share of swap patterns with |d'| >= |d|: all 2^n patterns (identity
    included) when n <= `exact_up_to`, else `n_resamples` random patterns from a numpy Generator
    seeded by `seed`, counted as (1 + hits) / (1 + valid). Patterns on which the statistic is
    undefined (a swapped series became constant) are left out and their number is given in `method`.

    Interval (paired bootstrap): items are resampled with replacement `n_resamples` times (a
    Generator seeded by `seed`), both statistics computed on the same resample; percentiles 2.5
    and 97.5 of d over the resamples where both are defined.
    """
    a = np.asarray(pred_a, dtype=float)
    b = np.asarray(pred_b, dtype=float)
    cols = [np.asarray(c, dtype=float) for c in shared]
    if a.shape != b.shape or a.ndim != 1 or any(c.shape != a.shape for c in cols):
        raise ValueError(f"need 1-d columns of equal length, got shapes {a.shape}, {b.shape}, "
                         f"{[c.shape for c in cols]}")
    n = int(a.size)
    if n < 1:
        raise UndefinedMetric("no items to compare")
    value_a = float(statistic(a[None, :], *(c[None, :] for c in cols))[0])
    value_b = float(statistic(b[None, :], *(c[None, :] for c in cols))[0])
    for side, value in (("A", value_a), ("B", value_b)):
        if math.isnan(value):
            return PairedDifference(
                n, None if math.isnan(value_a) else value_a, None if math.isnan(value_b) else value_b,
                None, None, None, None, "not tested",
                reason=f"the statistic is undefined for {side} on these items (a constant series)")
    observed = value_a - value_b

    rng = np.random.default_rng(seed)

    def swapped(swap: np.ndarray) -> np.ndarray:
        shared_rows = [np.broadcast_to(c, swap.shape) for c in cols]
        return statistic(np.where(swap, b, a), *shared_rows) - statistic(np.where(swap, a, b), *shared_rows)

    if n <= exact_up_to:
        permuted = swapped(((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool))
        label = f"exact paired permutation (all 2^{n} swap patterns)"
    else:
        permuted = _in_blocks(n_resamples, lambda rows: swapped(rng.random((rows, n)) < 0.5))
        label = f"paired permutation ({n_resamples} random swap patterns, seed {seed})"
    valid = permuted[~np.isnan(permuted)]
    hits = int(np.sum(np.abs(valid) >= abs(observed) - 1e-12))
    p_value = hits / valid.size if n <= exact_up_to else (1 + hits) / (1 + valid.size)
    skipped = int(permuted.size - valid.size)
    method = label + (f"; {skipped} undefined patterns left out" if skipped else "")

    boot_rng = np.random.default_rng(seed)

    def resampled(idx: np.ndarray) -> np.ndarray:
        return statistic(a[idx], *(c[idx] for c in cols)) - statistic(b[idx], *(c[idx] for c in cols))

    boots = _in_blocks(n_resamples, lambda rows: resampled(boot_rng.integers(0, n, size=(rows, n))))
    boots = boots[~np.isnan(boots)]
    ci_low = ci_high = None
    if boots.size:
        ci_low, ci_high = (float(q) for q in np.quantile(boots, [0.025, 0.975]))
    method += f"; interval: paired bootstrap ({boots.size} defined resamples, seed {seed})"
    return PairedDifference(n, value_a, value_b, observed, ci_low, ci_high, float(p_value), method)


RESAMPLE_BLOCK = 100  # resamples per call of a rowwise statistic: memory bounded at any number of items


def _in_blocks(n_rows: int, block: Callable[[int], np.ndarray]) -> np.ndarray:
    """`block(rows)` for consecutive blocks of at most RESAMPLE_BLOCK rows, concatenated: memory bounded at any
    number of items. Drawing a block's rows from a Generator draws the numbers one draw of all rows would."""
    values = [np.empty(0)]
    for start in range(0, n_rows, RESAMPLE_BLOCK):
        values.append(np.asarray(block(min(RESAMPLE_BLOCK, n_rows - start)), dtype=float))
    return np.concatenate(values)


def bootstrap_estimate(
    statistic: Callable[..., float],
    *columns: Sequence[float],
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    rowwise: Callable[..., np.ndarray] | None = None,
) -> Estimate:
    """Value of `statistic(*columns)` with a percentile bootstrap interval.

    Items (rows across all columns) are resampled with replacement `n_resamples` times with a
    numpy Generator seeded by `seed`; resamples on which the statistic is undefined are skipped,
    and the interval is the (1-confidence)/2 and (1+confidence)/2 percentiles of the rest.
    When the statistic is undefined on the full data the Estimate carries the reason and no value.
    `rowwise` is the same statistic on every row of 2-d arrays at once, with the same floats as `statistic`
    on each row and NaN where it is undefined: the resamples (the same ones) are then computed in blocks
    rather than one call each, and so is the interval. `pearson` and `mean` (also inside a
    `functools.partial`) have theirs already (`ROWWISE`); another statistic may pass its own.
    """
    arrays = [np.asarray(c, dtype=float) for c in columns]
    try:
        value = statistic(*arrays)
    except UndefinedMetric as exc:
        return Estimate(value=None, reason=str(exc))
    rng = np.random.default_rng(seed)
    rowwise = rowwise or ROWWISE.get(getattr(statistic, "func", statistic))
    resample = _resampled_rowwise if rowwise is not None else _resampled_one_by_one
    samples_arr = resample(rowwise or statistic, arrays, n_resamples, rng)
    if samples_arr.size == 0:
        return Estimate(value=float(value), reason="no bootstrap resample had a defined value")
    alpha = (1 - confidence) / 2
    low, high = np.quantile(samples_arr, [alpha, 1 - alpha])
    return Estimate(value=float(value), ci_low=float(low), ci_high=float(high))


def _resampled_one_by_one(statistic: Callable[..., float], arrays: list[np.ndarray], n_resamples: int,
                          rng: np.random.Generator) -> np.ndarray:
    """The statistic's defined values on `n_resamples` resamples of the rows, one call per resample."""
    n = len(arrays[0])
    samples = []
    for _ in range(n_resamples):
        idx = rng.integers(0, n, size=n)
        try:
            samples.append(statistic(*(a[idx] for a in arrays)))
        except UndefinedMetric:
            continue
    return np.asarray([s for s in samples if not math.isnan(s)])


def _resampled_rowwise(rowwise: Callable[..., np.ndarray], arrays: list[np.ndarray], n_resamples: int,
                       rng: np.random.Generator) -> np.ndarray:
    """What `_resampled_one_by_one` gives, from the same draws of `rng` (drawing the indices of a block of
    resamples at once draws the same numbers), RESAMPLE_BLOCK resamples per call of `rowwise` (on the columns'
    value codes where `CODED` has a faster form of it)."""
    n = len(arrays[0])
    if (coded := CODED.get(rowwise)) is not None and all(np.isfinite(a).all() for a in arrays):
        arrays, rowwise = coded(arrays)

    def resampled(idx: np.ndarray) -> np.ndarray:
        return rowwise(*(a[idx] for a in arrays))

    values = _in_blocks(n_resamples, lambda rows: resampled(rng.integers(0, n, size=(rows, n))))
    return values[~np.isnan(values)]


def exact_rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`pearson` of x[k] and y[k] for every row k, with the same floats (scipy's own computation, along the
    rows); NaN where a row is constant."""
    import warnings

    stats = _scipy_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)  # constant rows: NaN, skipped
        return np.asarray(stats.pearsonr(x, y, axis=-1).statistic, dtype=float)


ROWWISE: dict[Callable[..., float], Callable[..., np.ndarray]] = {pearson: exact_rowwise_pearson, mean: rowwise_mean}


def _average_ranks(codes: np.ndarray, n_values: int) -> np.ndarray:
    """`rankdata(values, axis=1)` (average ranks) of every row, from each value's code (its place among the
    column's `n_values` distinct values): a value's rank is the number of smaller values in its row plus the mean
    place among its ties, 0.5 * (smaller + smaller_or_equal + 1), exact in floats as rankdata's is."""
    rows = codes.shape[0]
    counts = np.bincount((codes + (np.arange(rows) * n_values)[:, None]).ravel(),
                         minlength=rows * n_values).reshape(rows, n_values)
    smaller_or_equal = np.cumsum(counts, axis=1)
    table = 0.5 * (2 * smaller_or_equal - counts + 1)
    return np.take_along_axis(table, codes, axis=1)


def _spearman_on_codes(arrays: list[np.ndarray]) -> tuple[list[np.ndarray], Callable[..., np.ndarray]]:
    """`rowwise_spearman` on resamples of `arrays`, as the resamples of each column's value codes and the
    statistic on those: a resample's ranks are then counted (no sort per resample), with the same floats."""
    coded = [np.unique(a, return_inverse=True) for a in arrays]
    sizes = [values.size for values, _ in coded]

    def on_codes(*codes: np.ndarray) -> np.ndarray:
        return rowwise_pearson(*(_average_ranks(c, size) for c, size in zip(codes, sizes)))

    return [np.asarray(inverse).reshape(-1) for _, inverse in coded], on_codes


# A row-wise statistic computed faster on resamples of codes than of values (finite values only: a NaN keeps the
# values' path, whose NaN rows are skipped): (columns) -> (columns to resample, row-wise statistic on them).
CODED: dict[Callable[..., np.ndarray], Callable[..., tuple[list[np.ndarray], Callable[..., np.ndarray]]]] = {
    rowwise_spearman: _spearman_on_codes}


# ---------------------------------------------------------------------------
# A paired test between two systems scored on the same items.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedComparison:
    """System A vs system B on the same items: means, the mean difference A - B with a paired
    bootstrap 95% interval, and the two-sided p-value of a paired sign-flip permutation test."""

    n: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str

    def to_json(self) -> dict:
        return asdict(self)


def paired_permutation_test(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10000, seed: int = 0, exact_up_to: int = 16
) -> PairedComparison:
    """Paired two-sided sign-flip permutation test of mean(a - b) = 0, with a paired bootstrap CI.

    Under the null hypothesis the two systems are exchangeable on every item, so each per-item
    difference d_i = a_i - b_i keeps its size and has a random sign. The p-value is the share of
    sign assignments whose |mean| is at least the observed |mean(d)|: all 2^m assignments of the m
    non-zero differences when m <= `exact_up_to` (exact), else `n_resamples` random ones from a
    Generator seeded by `seed`, counted as (1 + hits) / (1 + n_resamples). The interval resamples
    items (pairs kept together) `n_resamples` times with the same seed, percentiles 2.5 and 97.5.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"need two 1-d sequences of equal length, got shapes {x.shape} and {y.shape}")
    if x.size == 0:
        raise UndefinedMetric("no items to compare")
    d = x - y
    observed = abs(d.mean())
    nonzero = d[d != 0]
    m = nonzero.size
    tolerance = 1e-12
    if m == 0:
        p_value, method = 1.0, "exact sign-flip permutation (all differences are zero)"
    elif m <= exact_up_to:
        signs = 1 - 2 * ((np.arange(2**m)[:, None] >> np.arange(m)) & 1)
        flipped = np.abs((signs * nonzero).sum(axis=1) / d.size)
        p_value = float(np.mean(flipped >= observed - tolerance))
        method = f"exact sign-flip permutation (2^{m} sign assignments)"
    else:
        rng = np.random.default_rng(seed)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(n_resamples, m))
        flipped = np.abs((signs * nonzero).sum(axis=1) / d.size)
        p_value = float((1 + np.sum(flipped >= observed - tolerance)) / (1 + n_resamples))
        method = f"Monte Carlo sign-flip permutation ({n_resamples} resamples, seed {seed})"
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(n_resamples, d.size))
    low, high = np.quantile(d[idx].mean(axis=1), [0.025, 0.975])
    return PairedComparison(
        n=int(d.size), mean_a=float(x.mean()), mean_b=float(y.mean()), difference=float(d.mean()),
        ci_low=float(low), ci_high=float(high), p_value=p_value, method=method,
    )
