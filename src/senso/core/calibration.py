"""Calibration of predicted probabilities: do they mean what they say? Pure functions, like scikit-learn's metrics.

Every function takes `probs`, an (n, K) array whose row i is a probability distribution over K labels (rows
sum to 1), and `gold`, the n gold label indices in 0..K-1. Y is the one-hot matrix of `gold`
(Y[i, k] = 1 when gold[i] = k). A binary classifier's P(positive) p is the distribution [1 - p, p]
(`binary_distribution`). Nothing here reads files or knows about tasks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from senso.core.stats import (Estimate, PairedDifference, UndefinedMetric, bootstrap_estimate,
                              paired_statistic_difference, rowwise_mean)

DEFAULT_BINS = 10  # equal-width probability bins of the ECE and the reliability diagram
LOG_LOSS_EPS = 1e-15  # log-loss clips probabilities to [eps, 1 - eps] (scikit-learn's historical default)
ROW_SUM_TOLERANCE = 1e-6


def _checked(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(probs, dtype=float)
    g = np.asarray(gold, dtype=float)
    if p.ndim != 2 or g.ndim != 1 or p.shape[0] != g.shape[0]:
        raise ValueError(f"need an (n, K) array of probabilities and n gold labels, got shapes {p.shape} and {g.shape}")
    if p.shape[0] == 0:
        raise UndefinedMetric("no items")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(np.abs(p.sum(axis=1) - 1) > ROW_SUM_TOLERANCE):
        raise ValueError("every row of probs must be a probability distribution (non-negative, summing to 1)")
    if np.any(g != np.round(g)) or np.any(g < 0) or np.any(g >= p.shape[1]):
        raise ValueError(f"gold labels must be indices 0..{p.shape[1] - 1}")
    return p, g.astype(int)


def one_hot(gold: Sequence[int] | np.ndarray, n_labels: int) -> np.ndarray:
    """Y: the (n, K) indicator matrix of the gold labels."""
    g = np.asarray(gold, dtype=int)
    y = np.zeros((g.size, n_labels))
    y[np.arange(g.size), g] = 1.0
    return y


def softmax(logprobs: Sequence[float] | np.ndarray) -> np.ndarray:
    """exp(l_k) / sum_j exp(l_j): log-probabilities (or scores) of K choices renormalised over the choices."""
    values = np.asarray(logprobs, dtype=float)
    weights = np.exp(values - values.max())
    return weights / weights.sum()


def binary_distribution(p_positive: Sequence[float] | np.ndarray) -> np.ndarray:
    """The (n, 2) distributions [1 - p, p] of n binary probabilities p = P(label 1)."""
    p = np.asarray(p_positive, dtype=float)
    return np.column_stack([1.0 - p, p])


@dataclass(frozen=True)
class ReliabilityBin:
    """One bin of a reliability diagram: probabilities in [low, high), `n` of them, their mean (`confidence`)
    and the share of them whose event happened (`frequency`); both None for an empty bin."""

    low: float
    high: float
    n: int
    confidence: float | None
    frequency: float | None

    def to_json(self) -> dict:
        return asdict(self)


def reliability_bins(confidences: Sequence[float] | np.ndarray, outcomes: Sequence[float] | np.ndarray,
                     n_bins: int = DEFAULT_BINS) -> list[ReliabilityBin]:
    """Predicted probabilities c_j of events and whether each happened (o_j in {0, 1}), in `n_bins` equal-width
    bins: bin b holds c in [b/M, (b+1)/M), the last bin [(M-1)/M, 1] (M = n_bins)."""
    c = np.asarray(confidences, dtype=float).ravel()
    o = np.asarray(outcomes, dtype=float).ravel()
    index = np.minimum((c * n_bins).astype(int), n_bins - 1)
    bins = []
    for b in range(n_bins):
        inside = index == b
        count = int(inside.sum())
        bins.append(ReliabilityBin(b / n_bins, (b + 1) / n_bins, count,
                                   float(c[inside].mean()) if count else None,
                                   float(o[inside].mean()) if count else None))
    return bins


def label_reliability(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray,
                      n_bins: int = DEFAULT_BINS) -> list[ReliabilityBin]:
    """The reliability bins of every (item, label) pair: confidence P[i, k], outcome Y[i, k] (n * K pairs)."""
    p, g = _checked(probs, gold)
    return reliability_bins(p.ravel(), one_hot(g, p.shape[1]).ravel(), n_bins)


def expected_calibration_error(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray,
                               n_bins: int = DEFAULT_BINS) -> float:
    """ECE over the label distribution (every label's probability, not only the top one's):

        ECE = sum_b (|B_b| / (n K)) * | mean_{(i,k) in B_b} P[i,k]  -  mean_{(i,k) in B_b} Y[i,k] |

    where B_b is the set of (item, label) pairs whose probability P[i, k] falls in bin b of `n_bins`
    equal-width bins of [0, 1] (`reliability_bins`). 0 for a perfectly calibrated predictor (among the labels
    given probability ~0.3, ~30% are the gold label), at most 1. For two labels ([1 - p, p]) it is, bins
    mirrored, the usual binary ECE of p. Like every binned ECE it is biased upwards on few items.
    """
    p, g = _checked(probs, gold)
    return _ece(p, g, n_bins)


def _ece(p: np.ndarray, g: np.ndarray, n_bins: int) -> float:
    """`expected_calibration_error` of checked arrays (vectorised over the bins)."""
    confidences = p.ravel()
    outcomes = one_hot(g, p.shape[1]).ravel()
    index = np.minimum((confidences * n_bins).astype(int), n_bins - 1)
    gaps = np.abs(np.bincount(index, confidences, n_bins) - np.bincount(index, outcomes, n_bins))
    return float(gaps.sum() / confidences.size)


def brier_score(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray) -> float:
    """Multiclass Brier score: (1/n) sum_i sum_k (P[i,k] - Y[i,k])^2; 0 (certain and right) to 2 (certain and
    wrong). For two labels it is twice the binary Brier score (p - y)^2."""
    return _brier(*_checked(probs, gold))


def _brier(p: np.ndarray, g: np.ndarray) -> float:
    """`brier_score` of checked arrays."""
    return float(np.mean(np.sum((p - one_hot(g, p.shape[1])) ** 2, axis=1)))


def item_log_loss(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray,
                  eps: float = LOG_LOSS_EPS) -> np.ndarray:
    """Each item's -ln P[i, gold_i], the probability clipped to [eps, 1 - eps] (so a 0 costs -ln eps, ~34.5)."""
    return _item_log_loss(*_checked(probs, gold), eps)


def _item_log_loss(p: np.ndarray, g: np.ndarray, eps: float = LOG_LOSS_EPS) -> np.ndarray:
    """`item_log_loss` of checked arrays."""
    return -np.log(np.clip(p[np.arange(g.size), g], eps, 1 - eps))


def item_brier(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray) -> np.ndarray:
    """Each item's sum_k (P[i,k] - Y[i,k])^2 (the terms `brier_score` averages)."""
    p, g = _checked(probs, gold)
    return np.sum((p - one_hot(g, p.shape[1])) ** 2, axis=1)


def log_loss(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray,
             eps: float = LOG_LOSS_EPS) -> float:
    """Log-loss (cross-entropy against the gold label): -(1/n) sum_i ln P[i, gold_i], probabilities clipped to
    [eps, 1 - eps]; 0 when every gold label gets probability 1, ln K for the uniform distribution."""
    return float(np.mean(item_log_loss(probs, gold, eps)))


CALIBRATION_METRICS = ("ece", "brier", "log_loss")
CALIBRATION_LABELS = {
    "ece": f"ECE (all labels' probabilities, {DEFAULT_BINS} bins; 0 = calibrated)",
    "brier": "Brier (multiclass, 0-2; lower is better)",
    "log_loss": "log-loss (-ln P(gold); lower is better)",
}


def calibration_metrics(probs: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray,
                        seed: int = 0, n_resamples: int = 1000, n_bins: int = DEFAULT_BINS) -> dict[str, Estimate]:
    """`ece`, `brier` and `log_loss` of the distributions `probs` against `gold`, each with a 95% percentile
    bootstrap interval (items resampled, `core.stats.bootstrap_estimate`). The arrays are checked once: a
    resample of checked rows needs no second look (the checks cost more than the metrics)."""
    p, g = _checked(probs, gold)
    kw = {"seed": seed, "n_resamples": n_resamples}
    functions = {"ece": lambda pp, gg: _ece(pp, gg.astype(int), n_bins),  # the bootstrap hands on floats
                 "brier": lambda pp, gg: _brier(pp, gg.astype(int)),
                 "log_loss": lambda pp, gg: float(np.mean(_item_log_loss(pp, gg.astype(int))))}
    return {name: bootstrap_estimate(functions[name], p, g, **kw) for name in CALIBRATION_METRICS}


BY_GROUP = "by_group"  # a calibration record's metrics per group: the values of its task's first group key
RELIABILITY_AXIS = "predicted probability of a label"  # what a reliability diagram bins, unless a record says


def reliability_record(confidences: Sequence[float] | np.ndarray, outcomes: Sequence[float] | np.ndarray,
                       what: str, n_bins: int = DEFAULT_BINS, axis: str = RELIABILITY_AXIS) -> dict:
    """What results.json keeps for a reliability diagram: `what` was binned, the diagram's `axis` (the probability
    binned, in a few words), and the bins (`reliability_bins`)."""
    return {"what": what, "axis": axis, "n_bins": n_bins,
            "bins": [b.to_json() for b in reliability_bins(confidences, outcomes, n_bins)]}


def paired_calibration_differences(probs_a: Sequence[Sequence[float]] | np.ndarray,
                                   probs_b: Sequence[Sequence[float]] | np.ndarray, gold: Sequence[int] | np.ndarray,
                                   n_resamples: int = 2000, seed: int = 0,
                                   n_bins: int = DEFAULT_BINS) -> dict[str, PairedDifference]:
    """A - B in `ece`, `brier` and `log_loss` for two systems' distributions on the same items (row i of both
    is item i, with gold label gold[i]), each with a paired bootstrap 95% interval and a paired permutation
    p-value (`core.stats.paired_statistic_difference`: per item the two systems' distributions are swapped
    under the null hypothesis; items are resampled together for the interval). Brier and log-loss are means
    of per-item values; ECE is recomputed on every swap pattern and resample."""
    pa, g = _checked(probs_a, gold)
    pb, _ = _checked(probs_b, gold)
    if pa.shape != pb.shape:
        raise ValueError(f"the two systems' distributions differ in shape: {pa.shape} and {pb.shape}")
    n = g.size
    stacked = np.vstack([pa, pb])  # row i: A's distribution of item i; row n + i: B's

    def rowwise_ece(rows: np.ndarray, gold_rows: np.ndarray) -> np.ndarray:
        return np.array([_ece(stacked[r.astype(int)], gr.astype(int), n_bins) for r, gr in zip(rows, gold_rows)])

    kw = {"n_resamples": n_resamples, "seed": seed}
    return {
        "ece": paired_statistic_difference(rowwise_ece, np.arange(n), np.arange(n) + n, g, **kw),
        "brier": paired_statistic_difference(rowwise_mean, item_brier(pa, g), item_brier(pb, g), **kw),
        "log_loss": paired_statistic_difference(rowwise_mean, item_log_loss(pa, g), item_log_loss(pb, g), **kw),
    }
