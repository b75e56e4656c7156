"""Grouped cross-validation's folds and pooled out-of-fold predictions (`senso.core.grouped_cv`)."""

from __future__ import annotations

import numpy as np
import pytest

from senso.core.errors import SensoError
from senso.core.grouped_cv import Fold, grouped_folds, leave_one_group_out, out_of_fold


def test_leave_one_group_out_in_order_of_first_appearance():
    groups = ["b", "a", "b", "c", "a", "b"]
    folds = leave_one_group_out(groups)
    assert [f.group for f in folds] == ["b", "a", "c"]  # not scikit-learn's sorted order
    for fold in folds:
        assert [groups[i] for i in fold.test] == [fold.group] * len(fold.test)
        assert sorted([*fold.train, *fold.test]) == list(range(len(groups)))
        assert fold.group not in {groups[i] for i in fold.train}
    with pytest.raises(SensoError, match="at least 2 groups"):
        leave_one_group_out(["a", "a"])


def test_grouped_folds_are_seeded_and_keep_groups_whole():
    groups = [f"g{i % 7}" for i in range(30)]
    folds = grouped_folds(groups, 3, seed=4)
    assert sorted(i for fold in folds for i in fold) == list(range(30))
    assert all(len({groups[i] for i in fold} & {groups[i] for i in other}) == 0
               for k, fold in enumerate(folds) for other in folds[k + 1:])
    assert [list(f) for f in folds] == [list(f) for f in grouped_folds(groups, 3, seed=4)]
    with pytest.raises(SensoError, match="at least 2 compounds"):
        grouped_folds(["x"] * 4, 3, seed=0, noun="compounds")


def test_out_of_fold_pools_every_fold_and_leaves_a_skipped_one_nan():
    groups = ["a", "a", "b", "c", "c"]
    seen = []

    def predict(fold: Fold):
        seen.append(fold.group)
        if fold.group == "b":
            return None  # left out: its row stays NaN
        return np.stack([np.full(len(fold.test), k + 10.0 * len(fold.train)) for k in range(2)])

    pooled = out_of_fold(leave_one_group_out(groups), (2, len(groups)), predict)
    assert seen == ["a", "b", "c"]
    assert pooled[0].tolist()[:2] == [30.0, 30.0] and pooled[1].tolist()[3:] == [31.0, 31.0]
    assert np.isnan(pooled[:, 2]).all()
    held_out = Fold.holding_out("x", np.array([True, False, True]))
    assert held_out.test.tolist() == [0, 2] and held_out.train.tolist() == [1]
