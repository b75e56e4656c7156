"""The ridge path's two forms (primal by moments, dual by kernel) give what the former all-dual code gave.

`_reference_*` is the former implementation, kept here as the yardstick: every fit a fresh eigendecomposition
of the n×n kernel of its own rows. The current code picks the primal form (p×p, fold Gram matrices by
subtracting the left-out group's moments) when the rows outnumber the features.
"""

from __future__ import annotations

import numpy as np
import pytest

from senso.core import ridge_cv
from senso.core.grouped_cv import leave_one_group_out


def _reference_predict_many(x_train, y_train, x_test, alphas):
    x_mean, y_mean = x_train.mean(axis=0), y_train.mean()
    xc = x_train - x_mean
    eigvals, eigvecs = np.linalg.eigh(xc @ xc.T)
    eigvals = np.clip(eigvals, 0.0, None)
    dual = eigvecs @ ((eigvecs.T @ (y_train - y_mean))[:, None] / (eigvals[:, None] + np.asarray(alphas)[None, :]))
    return y_mean + ((x_test - x_mean) @ xc.T @ dual).T


def _reference_select_alpha(x, y, groups, alphas):
    pooled = np.empty((len(alphas), len(y)))
    for fold in leave_one_group_out(groups):
        pooled[:, fold.test] = _reference_predict_many(x[fold.train], y[fold.train], x[fold.test], alphas)
    return ((pooled - y[None, :]) ** 2).mean(axis=1)


def _reference_nested(x, y, groups, alphas):
    predictions = np.empty(len(y))
    for fold in leave_one_group_out(groups):
        train_groups = [groups[i] for i in fold.train]
        mse = _reference_select_alpha(x[fold.train], y[fold.train], train_groups, alphas)
        best = min(range(len(alphas)), key=lambda i: (round(float(mse[i]), 12), -alphas[i]))
        predictions[fold.test] = _reference_predict_many(x[fold.train], y[fold.train], x[fold.test], [alphas[best]])[0]
    return predictions


def _data(n: int, p: int, n_groups: int, seed: int):
    """Anisotropic features with a large common mean (as sentence embeddings have), a noisy linear target."""
    rng = np.random.default_rng(seed)
    x = 3.0 + rng.normal(size=(n, p)) * rng.uniform(0.05, 2.0, size=p)
    y = x @ rng.normal(size=p) / p + rng.normal(size=n)
    groups = [f"g{i % n_groups}" for i in rng.permutation(n)]
    return x, y, groups


@pytest.mark.parametrize("n, p", [(40, 60), (300, 12)], ids=["dual: rows < features", "primal: rows > features"])
def test_both_forms_give_the_reference_predictions_within_1e_8(n, p):
    x, y, groups = _data(n, p, 6, seed=n)
    alphas = ridge_cv.ALPHA_GRID
    choice = ridge_cv.select_alpha(x, y, groups, alphas)
    np.testing.assert_allclose(list(choice.mse.values()), _reference_select_alpha(x, y, groups, alphas), rtol=0, atol=1e-8)
    result = ridge_cv.nested_cv_predict(x, y, groups, alphas)
    np.testing.assert_allclose(result.predictions, _reference_nested(x, y, groups, alphas), rtol=0, atol=1e-8)
    model = ridge_cv.fit_ridge(x, y, 0.3)
    np.testing.assert_allclose(model.predict(x[:5]), _reference_predict_many(x, y, x[:5], [0.3])[0], rtol=0, atol=1e-8)


def test_the_primal_form_is_taken_when_the_rows_outnumber_the_features():
    x, y, _ = _data(50, 8, 5, seed=1)
    assert ridge_cv.RidgePath.from_data(x, y).basis.shape == (8, 8)  # p×p eigenvectors
    assert ridge_cv.RidgePath.from_data(x[:6], y[:6]).basis.shape == (8, 6)  # Xcᵀ·Q, one column per row


def test_fold_moments_are_those_of_the_training_rows():
    x, y, groups = _data(60, 7, 4, seed=3)
    whole = ridge_cv.Moments.of(x, y)
    for fold in leave_one_group_out(groups):
        down = whole.without(x[fold.test], y[fold.test])
        direct = ridge_cv.Moments.of(x[fold.train], y[fold.train])
        for got, want in zip(down.centred(), direct.centred()):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
        np.testing.assert_allclose(down.x_mean, direct.x_mean, atol=1e-12)
        assert down.n == len(fold.train) and down.y_mean == pytest.approx(direct.y_mean, abs=1e-12)
