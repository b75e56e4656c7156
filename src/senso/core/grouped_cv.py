"""Grouped cross-validation with an inner choice from a grid: the folds and the pooled out-of-fold predictions
every fitted system chooses its regularisation on (Likert's ridge α, `core.ridge_cv`; AdMIRe's logistic C,
`admire.systems.roles.RoleModel`), written once.

Folds keep every row of a group (a lemma, a compound) on one side. `leave_one_group_out` is scikit-learn's
`LeaveOneGroupOut`, its folds in the order the groups first appear (the order a run records them in);
`grouped_folds` deals the distinct groups, shuffled with a seed, into k folds in turn (scikit-learn's `GroupKFold`
balances the folds' sizes instead, so its folds, and the C they choose, differ from those the shipped models were
fitted with). The inner choice is made on the pooled out-of-fold predictions, every row predicted once by a model
that did not see its group (`out_of_fold`); scikit-learn's `GridSearchCV` averages a score per fold instead, which
moves the choice, so it is not used here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from senso.core.errors import SensoError


@dataclass(frozen=True)
class Fold:
    """One fold: its name (the group it leaves out, or its number) and the row indices on each side."""

    group: Any
    train: np.ndarray
    test: np.ndarray

    @classmethod
    def holding_out(cls, group: Any, test: np.ndarray) -> "Fold":
        """The fold whose test side is the rows where `test` (a boolean mask over every row) is true."""
        return cls(group, np.flatnonzero(~test), np.flatnonzero(test))


def leave_one_group_out(groups: Sequence[str]) -> list[Fold]:
    """One fold per distinct group (in order of first appearance): test = that group's rows, train = the rest."""
    from sklearn.model_selection import LeaveOneGroupOut

    groups = list(groups)
    order = list(dict.fromkeys(groups))
    if len(order) < 2:
        raise SensoError(f"leave-one-group-out needs at least 2 groups, got {len(order)}")
    labels = np.asarray(groups, dtype=object)
    folds = {groups[test[0]]: Fold(groups[test[0]], train, test)
             for train, test in LeaveOneGroupOut().split(labels, groups=labels)}
    return [folds[group] for group in order]


def grouped_folds(groups: Sequence[str], k: int, seed: int, noun: str = "groups") -> list[np.ndarray]:
    """k folds of row indices, whole groups per fold: the distinct groups shuffled with `seed`, dealt in turn
    (`noun`: what a message calls the groups)."""
    distinct = sorted(set(groups))
    if len(distinct) < 2:
        raise SensoError(f"grouped cross-validation needs at least 2 {noun}, got {len(distinct)}")
    order = np.random.default_rng(seed).permutation(len(distinct))
    fold_of = {distinct[g]: n % min(k, len(distinct)) for n, g in enumerate(order)}
    labels = np.array([fold_of[g] for g in groups])
    return [np.flatnonzero(labels == f) for f in range(min(k, len(distinct)))]


def out_of_fold(folds: Iterable[Fold], shape: tuple[int, ...], predict: Callable[[Fold], np.ndarray | None]) -> np.ndarray:
    """The pooled out-of-fold predictions of every value of a grid, of `shape` (grid values, rows, ...):
    `predict(fold)` gives those of the fold's test rows from models fitted on its train rows, or None to leave
    the fold out (its rows stay NaN)."""
    pooled = np.full(shape, np.nan)
    for fold in folds:
        predicted = predict(fold)
        if predicted is not None:
            pooled[:, fold.test] = predicted
    return pooled
