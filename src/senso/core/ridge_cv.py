"""Ridge regression with grouped (leave-one-group-out) cross-validation, in plain numpy.

The model: y ≈ X·w + b, minimising ||y - Xw - b||² + α||w||² (the intercept is not penalised;
X and y are centred on the training rows).

Nested evaluation (`nested_cv_predict`): the outer folds leave one group (ABRICOT: one lemma) out;
inside each outer training set, α is chosen by `select_alpha`, itself a leave-one-group-out CV over
the training groups only, so the outer test group never influences its own prediction (the folds and the
pooled out-of-fold predictions: `core.grouped_cv`).
Every ridge comes from one eigendecomposition of the smaller of the n×n kernel (dual form, few rows) and
the p×p Gram matrix (primal form, more rows than features), and in the primal form a fold's Gram matrix
is that of all rows minus the left-out group's (`Moments`): a nested leave-one-group-out run over G groups
costs G² decompositions of at most p×p plus O(G·n·p²) sums, linear in the rows n.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from threadpoolctl import threadpool_limits

from senso.core.grouped_cv import Fold, leave_one_group_out, out_of_fold

# Fixed grid, recorded in every run and model that uses it: 10^-3 ... 10^2 by half decades (11 values).
ALPHA_GRID: tuple[float, ...] = tuple(float(10.0 ** (k / 2)) for k in range(-6, 5))


def _one_blas_thread():
    """Hundreds of tiny (≈120×120) decompositions: a multi-threaded BLAS only adds synchronisation
    cost (measured 25x slower on 2 busy cores), so run them on one thread."""
    return threadpool_limits(limits=1, user_api="blas")


@dataclass(frozen=True)
class RidgePath:
    """A training set decomposed once, from which ridge solutions for any α follow cheaply.

    Every ridge solution has the form w(α) = B·diag(1 / (λ + α))·c, in one of two forms, chosen by shape:
    - dual (rows ≤ features): K = Xc·Xcᵀ = Q·diag(λ)·Qᵀ (n×n), B = Xcᵀ·Q, c = Qᵀ·yc;
    - primal (rows > features): Xcᵀ·Xc = V·diag(λ)·Vᵀ (p×p), B = V, c = Vᵀ·Xcᵀ·yc.
    Both equal (XcᵀXc + αI)⁻¹Xcᵀyc; the decomposition is of the smaller of the two matrices, so its
    cost stops growing with the rows once they outnumber the features (Xc, yc: the centred training data).
    """

    x_mean: np.ndarray
    y_mean: float
    eigvals: np.ndarray
    basis: np.ndarray  # B, (p, r)
    projected_y: np.ndarray  # c, (r,)

    @classmethod
    def from_data(cls, x: np.ndarray, y: np.ndarray) -> "RidgePath":
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if len(x) > x.shape[1]:
            return cls.from_moments(Moments.of(x, y))
        x_mean = x.mean(axis=0)
        y_mean = float(y.mean())
        x_centred = x - x_mean
        eigvals, eigvecs = np.linalg.eigh(x_centred @ x_centred.T)
        return cls(x_mean=x_mean, y_mean=y_mean, eigvals=np.clip(eigvals, 0.0, None),  # K is PSD: clip rounding noise
                   basis=x_centred.T @ eigvecs, projected_y=eigvecs.T @ (y - y_mean))

    @classmethod
    def from_moments(cls, moments: "Moments") -> "RidgePath":
        """Primal form from the sums of a training set (`Moments`): never touches its rows again."""
        gram, cross = moments.centred()
        eigvals, eigvecs = np.linalg.eigh(gram)
        return cls(x_mean=moments.x_mean, y_mean=moments.y_mean, eigvals=np.clip(eigvals, 0.0, None),
                   basis=eigvecs, projected_y=eigvecs.T @ cross)

    def coefs(self, alphas: Sequence[float]) -> np.ndarray:
        """(p, len(alphas)) ridge coefficients, one column per α."""
        alphas = np.asarray(alphas, dtype=np.float64)
        return self.basis @ (self.projected_y[:, None] / (self.eigvals[:, None] + alphas[None, :]))

    def coef(self, alpha: float) -> np.ndarray:
        return self.coefs([alpha])[:, 0]

    def intercept(self, coef: np.ndarray) -> float:
        return float(self.y_mean - self.x_mean @ coef)

    def predict_many(self, x: np.ndarray, alphas: Sequence[float]) -> np.ndarray:
        """(len(alphas), len(x)) predictions, one row per α."""
        return self.y_mean + ((np.asarray(x, dtype=np.float64) - self.x_mean) @ self.coefs(alphas)).T


@dataclass(frozen=True)
class Moments:
    """Sums over a set of rows, of x and y taken relative to a fixed `shift` (a mean of the whole data, so
    that the centring below subtracts no large numbers): n, Σx, Σy, Σxxᵀ, Σxy. The moments of a training set
    are those of all rows minus those of the left-out group's rows: O(rows of the group · p²) per fold."""

    n: int
    sum_x: np.ndarray
    sum_y: float
    sum_xx: np.ndarray
    sum_xy: np.ndarray
    x_shift: np.ndarray
    y_shift: float

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray, x_shift: np.ndarray | None = None, y_shift: float | None = None) -> "Moments":
        x_shift = x.mean(axis=0) if x_shift is None else x_shift
        y_shift = float(y.mean()) if y_shift is None else y_shift
        xs, ys = x - x_shift, y - y_shift
        return cls(n=len(x), sum_x=xs.sum(axis=0), sum_y=float(ys.sum()), sum_xx=xs.T @ xs, sum_xy=xs.T @ ys,
                   x_shift=x_shift, y_shift=y_shift)

    def without(self, x: np.ndarray, y: np.ndarray) -> "Moments":
        """The moments of these rows minus those of the rows `x`, `y` (which must be among them)."""
        part = Moments.of(x, y, self.x_shift, self.y_shift)
        return Moments(n=self.n - part.n, sum_x=self.sum_x - part.sum_x, sum_y=self.sum_y - part.sum_y,
                       sum_xx=self.sum_xx - part.sum_xx, sum_xy=self.sum_xy - part.sum_xy,
                       x_shift=self.x_shift, y_shift=self.y_shift)

    @property
    def x_mean(self) -> np.ndarray:
        return self.x_shift + self.sum_x / self.n

    @property
    def y_mean(self) -> float:
        return self.y_shift + self.sum_y / self.n

    def centred(self) -> tuple[np.ndarray, np.ndarray]:
        """Xcᵀ·Xc and Xcᵀ·yc of these rows centred on their own means."""
        mean_x, mean_y = self.sum_x / self.n, self.sum_y / self.n
        return self.sum_xx - self.n * np.outer(mean_x, mean_x), self.sum_xy - self.n * mean_x * mean_y


@dataclass(frozen=True)
class RidgeModel:
    """A fitted ridge: prediction = x · coef + intercept."""

    coef: np.ndarray
    intercept: float
    alpha: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=np.float64) @ self.coef + self.intercept


def fit_ridge(x: np.ndarray, y: np.ndarray, alpha: float) -> RidgeModel:
    """Ridge with an unpenalised intercept, fitted on all rows of x."""
    with _one_blas_thread():
        path = RidgePath.from_data(x, y)
        coef = path.coef(alpha)
    return RidgeModel(coef=coef, intercept=path.intercept(coef), alpha=float(alpha))


@dataclass(frozen=True)
class AlphaChoice:
    """The α chosen by an inner CV, with the inner-CV mean squared error of every α of the grid."""

    alpha: float
    mse: dict[float, float]
    groups_seen: tuple[str, ...]


def select_alpha(x: np.ndarray, y: np.ndarray, groups: Sequence[str], alphas: Sequence[float] = ALPHA_GRID) -> AlphaChoice:
    """α of the grid with the lowest mean squared error of leave-one-group-out predictions over these rows.

    Criterion: MSE of the pooled out-of-fold predictions (every row predicted once, by a model that
    did not see its group). Ties go to the larger α (the simpler model).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    moments = Moments.of(x, y) if len(y) > x.shape[1] else None  # primal form: each fold's sums from all rows'

    def predict(fold: Fold) -> np.ndarray:
        if moments is not None:
            path = RidgePath.from_moments(moments.without(x[fold.test], y[fold.test]))
        else:
            path = RidgePath.from_data(x[fold.train], y[fold.train])
        return path.predict_many(x[fold.test], alphas)

    pooled = out_of_fold(leave_one_group_out(groups), (len(alphas), len(y)), predict)
    mse = ((pooled - y[None, :]) ** 2).mean(axis=1)
    best = min(range(len(alphas)), key=lambda i: (round(float(mse[i]), 12), -alphas[i]))
    return AlphaChoice(
        alpha=float(alphas[best]),
        mse={float(a): float(m) for a, m in zip(alphas, mse)},
        groups_seen=tuple(dict.fromkeys(groups)),
    )


AlphaSelector = Callable[[np.ndarray, np.ndarray, Sequence[str], Sequence[float]], AlphaChoice]


@dataclass
class NestedCVResult:
    """Out-of-fold predictions: `predictions[i]` comes from the fold that left out row i's group."""

    predictions: np.ndarray
    fold_of_row: list[str]
    alpha_of_fold: dict[str, float] = field(default_factory=dict)


def nested_cv_predict(
    x: np.ndarray,
    y: np.ndarray,
    groups: Sequence[str],
    alphas: Sequence[float] = ALPHA_GRID,
    selector: AlphaSelector = select_alpha,
) -> NestedCVResult:
    """Leave-one-group-out predictions, α chosen per outer fold by `selector` on that fold's training rows only."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    groups = list(groups)
    if len(x) != len(y) or len(y) != len(groups):
        raise ValueError(f"x, y and groups differ in length: {len(x)}, {len(y)}, {len(groups)}")
    predictions = np.empty(len(y))
    fold_of_row = [""] * len(y)
    alpha_of_fold: dict[str, float] = {}
    with _one_blas_thread():
        for fold in leave_one_group_out(groups):
            train_groups = [groups[i] for i in fold.train]
            choice = selector(x[fold.train], y[fold.train], train_groups, alphas)
            model = fit_ridge(x[fold.train], y[fold.train], choice.alpha)
            predictions[fold.test] = model.predict(x[fold.test])
            alpha_of_fold[fold.group] = choice.alpha
            for i in fold.test:
                fold_of_row[i] = fold.group
    return NestedCVResult(predictions=predictions, fold_of_row=fold_of_row, alpha_of_fold=alpha_of_fold)
