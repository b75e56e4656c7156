"""Aggregators: fuse several rankings of the same item's images into one.

- `borda`: each ranking gives n-1 points to its first image, ..., 0 to its last; sum.
- `reciprocal_rank_fusion`: sum of 1 / (k + rank), rank from 1 (Cormack et al. 2009, k = 60).
- `score_average`: mean of each member's scores after z-normalising them within the item (members
  score on different scales: cosines, log-probabilities); a member without scores contributes Borda points.

Ties are broken deterministically: by the first member's order (the first member named wins), then by
image name. Every fused ranking records in `extra["ties"]` the groups of images that tied on the fused
score and in `extra["tie_break"]` the rule used, so a reader sees where the order came from the rule.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.stats import zscores
from senso.admire.systems.base import Ranking

TIE_BREAK = "first member's order, then image name"
_TIE_TOLERANCE = 1e-12


def _check_same_images(rankings: Sequence[Ranking]) -> list[str]:
    names = sorted(rankings[0].order)
    for ranking in rankings[1:]:
        if sorted(ranking.order) != names:
            raise SensoError(f"cannot aggregate rankings of different images: {sorted(ranking.order)} vs {names}")
    return names


def _fuse(rankings: Sequence[Ranking], fused: dict[str, float], method: str) -> Ranking:
    first = {name: i for i, name in enumerate(rankings[0].order)}
    order = tuple(sorted(fused, key=lambda n: (-fused[n], first[n], n)))
    ties: list[list[str]] = []
    for name in order:
        if ties and abs(fused[ties[-1][0]] - fused[name]) <= _TIE_TOLERANCE:
            ties[-1].append(name)
        else:
            ties.append([name])
    return Ranking(order=order, scores={n: float(fused[n]) for n in order},
                   extra={"aggregator": method, "ties": [g for g in ties if len(g) > 1], "tie_break": TIE_BREAK})


def ballot_points(ballot: Sequence[int], n: int) -> list[float]:
    """Borda points of candidates 0..n-1 from one ballot (candidates best first): rank r earns n-1-r;
    candidates a partial ballot leaves out share the points left (each gets their mean); an empty ballot
    gives nothing."""
    points = [0.0] * n
    if not ballot:
        return points
    for rank, candidate in enumerate(ballot):
        points[candidate] += n - 1 - rank
    rest = [c for c in range(n) if c not in ballot]
    for candidate in rest:
        points[candidate] += sum(range(n - len(ballot))) / len(rest)  # the points of ranks len(ballot)..n-1
    return points


def borda_points(ranking: Ranking) -> dict[str, float]:
    return {name: len(ranking.order) - 1 - position for position, name in enumerate(ranking.order)}


def _summed(rankings: Sequence[Ranking], points: Callable[[int, int], float]) -> dict[str, float]:
    """Per image, the sum over the rankings of `points(position from 0, number of images)`."""
    fused = dict.fromkeys(_check_same_images(rankings), 0.0)
    for ranking in rankings:
        for position, name in enumerate(ranking.order):
            fused[name] += points(position, len(fused))
    return fused


def zscore_fusion(member_scores: Sequence[Sequence[float]], weights: Sequence[float]) -> np.ndarray:
    """sum over members m of w_m * z(scores_m), each member's scores z-scored within the item, so that
    cosines, log-probabilities and points of different members share one scale."""
    return sum((w * zscores(s) for w, s in zip(weights, member_scores)), np.zeros(len(member_scores[0])))


def borda(rankings: Sequence[Ranking]) -> Ranking:
    """Borda count: the sum over members of (n - 1 - position)."""
    return _fuse(rankings, _summed(rankings, lambda position, n: n - 1 - position), "borda")


def reciprocal_rank_fusion(rankings: Sequence[Ranking], k: float = 60.0) -> Ranking:
    """RRF: the sum over members of 1 / (k + rank), rank counted from 1."""
    return _fuse(rankings, _summed(rankings, lambda position, n: 1.0 / (k + position + 1)), f"rrf(k={k:g})")


def _scores_or_points(ranking: Ranking, names: Sequence[str]) -> list[float]:
    values = borda_points(ranking) if set(ranking.scores) != set(ranking.order) else ranking.scores
    return [float(values[n]) for n in names]


def score_average(rankings: Sequence[Ranking]) -> Ranking:
    """Mean of the members' within-item z-scores (Borda points for a member without scores)."""
    names = _check_same_images(rankings)
    fused = zscore_fusion([_scores_or_points(r, names) for r in rankings], [1.0 / len(rankings)] * len(rankings))
    return _fuse(rankings, dict(zip(names, fused.tolist())), "score-average")


AGGREGATORS: dict[str, Callable[[Sequence[Ranking]], Ranking]] = {
    "borda": borda,
    "rrf": reciprocal_rank_fusion,
    "mean": score_average,
}


def aggregate(method: str, per_member: Sequence[Sequence[Ranking]]) -> list[Ranking]:
    """Fuse item by item: `per_member[m][i]` is member m's ranking of item i (`method` one of `AGGREGATORS`, and
    at least two members: the ensemble's options are checked before it is built)."""
    n_items = len(per_member[0])
    if any(len(rankings) != n_items for rankings in per_member):
        raise SensoError("members ranked different numbers of items")
    return [AGGREGATORS[method]([rankings[i] for rankings in per_member]) for i in range(n_items)]
