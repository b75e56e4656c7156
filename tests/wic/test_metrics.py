"""The F1s are scikit-learn's, computed row-wise for thousands of resamples at once."""

from __future__ import annotations

import numpy as np
import pytest

from senso.wic.metrics import macro_f1, positive_f1, rowwise_macro_f1


@pytest.mark.parametrize("seed", range(5))
def test_f1s_equal_scikit_learns(seed):
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(seed)
    gold, pred = rng.integers(0, 2, 40), rng.integers(0, 2, 40)
    assert macro_f1(pred, gold) == pytest.approx(f1_score(gold, pred, average="macro"))
    assert positive_f1(pred, gold) == pytest.approx(f1_score(gold, pred))


def test_a_constant_answer_and_rows_at_once():
    from sklearn.metrics import f1_score

    gold = np.array([1, 0, 1, 1])
    assert macro_f1(np.ones(4), gold) == pytest.approx(f1_score(gold, np.ones(4), average="macro", zero_division=0))
    rows = np.array([[1, 0, 1, 1], [0, 0, 0, 0]])
    assert rowwise_macro_f1(rows, np.vstack([gold, gold])).tolist() == pytest.approx(
        [1.0, f1_score(gold, rows[1], average="macro", zero_division=0)])
