"""`pair-fitted`: a supervised model on features of the pair, learned from the training rows.

Features (each on or off by an option; benchmarks/wic_systems.py --variants measures them):
- the target's cosine at each of `layers` (after centring by the training usages' mean target vector, as in
  target-similarity: "all-but-the-top");
- `sentence`: the two sentences' cosine (mean-pooled states) at each of `layers`;
- `lemma_stats`: each target cosine minus the mean over the pairs of its lemma among those scored together (a
  lemma whose usages are all alike is not read as one sense: no gold is read, so nothing leaks);
- `vectors`: the elementwise product and |difference| of the centred target vectors at `vector_layer`.
Binary: a logistic regression (class-balanced; its C chosen by grouped, leave-lemma-out folds on the training
rows), P(same) its probability. Graded (`relate`): where the training rows have scores, a ridge regression on the
same features (`graded` linear; its alpha by the same folds) or an isotonic map of the logistic's log-odds to the
score (`graded` isotonic); with labels only, the logistic's log-odds. Its figures on training rows come from
`cross_fitted` (each fold's pairs scored by a model fit on the other lemmas).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.params import param
from senso.wic.items import WicPair
from senso.wic.systems.context import check_pairs, not_fitted
from senso.wic.systems.context_similarity import ContextSimilarity
from senso.wic.systems.features import (
    encode_pairs, lemma_relative, sentence_cosines, target_cosines, target_mean,
)

NAME = "pair-fitted"
ALL_LAYERS = tuple(range(13))
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
ALPHA_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
GRADED = ("linear", "isotonic")


@dataclass
class PairFitted(ContextSimilarity):
    """Logistic (binary) and ridge or isotonic (graded) on pair features; see the module's docstring."""

    layers: tuple[int, ...] = param(ALL_LAYERS, "encoder layers whose target (and sentence) cosines are features")
    centre: bool = param(True, "subtract the training usages' mean target vector per layer before the cosines")
    sentence: bool = param(True, "the sentences' cosines at the same layers as features")
    # off by default: the measured configuration (docs/benchmarks.md) is centred target and sentence cosines
    lemma_stats: bool = param(False, "each target cosine beside its lemma's mean over the pairs scored together")
    vectors: bool = param(False, "the product and |difference| of the target vectors at vector_layer as features")
    vector_layer: int = param(8, "the layer whose target vectors give the vectors features", minimum=0)
    graded: str = param("linear", "the graded fit where training rows have scores: linear (ridge) or isotonic "
                                  "(on the logistic's log-odds)", choices=GRADED)
    folds: int = param(5, "grouped (leave-lemma-out) folds that choose C and alpha on the training rows", minimum=2)
    classifier_: Any = field(default=None, init=False, repr=False)
    regressor_: Any = field(default=None, init=False, repr=False)
    chosen_: dict[str, float] = field(default_factory=dict, init=False, repr=False)

    def features(self, pairs: Sequence[WicPair]) -> np.ndarray:
        first, second = encode_pairs(self.encoder_, pairs)
        layers = list(self.layers)
        offset = self.mean_ if self.centre else None
        cosines = target_cosines(first, second, offset)[:, layers]
        parts = [cosines]
        if self.lemma_stats:
            parts.append(lemma_relative(cosines, [p.lemma for p in pairs]))
        if self.sentence:
            parts.append(sentence_cosines(first, second)[:, layers])
        if self.vectors:
            a, b = first.target[:, self.vector_layer], second.target[:, self.vector_layer]
            if offset is not None:
                a, b = a - offset[self.vector_layer], b - offset[self.vector_layer]
            a, b = a / np.linalg.norm(a, axis=1, keepdims=True), b / np.linalg.norm(b, axis=1, keepdims=True)
            parts += [a * b, np.abs(a - b)]
        return np.concatenate(parts, axis=1)

    def fit(self, pairs: Sequence[WicPair]) -> "PairFitted":
        pairs = check_pairs(pairs, f"{NAME}.fit")
        labelled = [p.label is not None for p in pairs]
        scored = [p.score is not None for p in pairs]
        if not any(labelled) and not any(scored):
            raise SensoError(f"{NAME} is fit on pairs with a gold label or score; none of the {len(pairs)} has one")
        self.mean_ = target_mean(*encode_pairs(self.encoder_, pairs))
        x, groups = self.features(pairs), np.array([p.lemma for p in pairs])
        self.classifier_ = self.regressor_ = None
        self.chosen_ = {}
        if any(labelled):
            keep = np.array(labelled)
            y = np.array([p.label for p in pairs if p.label is not None])
            self.classifier_, self.chosen_["C"] = _fit_classifier(x[keep], y, groups[keep], self.folds)
        if any(scored):
            keep = np.array(scored)
            y = np.array([p.score for p in pairs if p.score is not None], dtype=float)
            if self.graded == "isotonic" and self.classifier_ is not None:
                self.regressor_ = _fit_isotonic(self.classifier_.decision_function(x[keep]), y)
            else:
                self.regressor_, self.chosen_["alpha"] = _fit_ridge(x[keep], y, groups[keep], self.folds)
        return self

    def judge(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, f"{NAME}.judge")
        if self.classifier_ is None:
            raise not_fitted(NAME, "judging (its classifier is fit on pairs with binary labels)")
        return [float(p) for p in self.classifier_.predict_proba(self.features(pairs))[:, 1]]

    def relate(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, f"{NAME}.relate")
        if self.classifier_ is None and self.regressor_ is None:
            raise not_fitted(NAME, "relating")
        x = self.features(pairs)
        if self.regressor_ is None:
            return [float(v) for v in self.classifier_.decision_function(x)]
        if self.graded == "isotonic" and self.classifier_ is not None:  # a map of the classifier's log-odds
            return [float(v) for v in self.regressor_.predict(self.classifier_.decision_function(x))]
        return [float(v) for v in self.regressor_.predict(x)]

    def describe(self) -> dict[str, Any]:
        return {"system": NAME, **self.describe_encoder(self.encoder_), "layers": list(self.layers),
                "centre": self.centre, "features": self.feature_names, "chosen": dict(self.chosen_),
                "graded": self.graded if self.regressor_ is not None else "log-odds"}

    @property
    def feature_names(self) -> list[str]:
        names = [f"target_cos_{layer}" for layer in self.layers]
        names += [f"{n}_minus_lemma_mean" for n in names] if self.lemma_stats else []
        names += [f"sentence_cos_{layer}" for layer in self.layers] if self.sentence else []
        return names + ([f"product_{self.vector_layer}", f"absdiff_{self.vector_layer}"] if self.vectors else [])


def _folds(groups: np.ndarray, folds: int):
    from sklearn.model_selection import GroupKFold

    n = min(folds, len(set(groups)))
    if n < 2:
        raise SensoError(f"{NAME} chooses its regularisation by leave-lemma-out folds: it needs training pairs of at "
                         f"least two lemmas, got {len(set(groups))}")
    return list(GroupKFold(n_splits=n).split(groups, groups=groups))


def _fit_classifier(x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int) -> tuple[Any, float]:
    """A scaled, class-balanced logistic regression; C the grid's best grouped-CV log-loss."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if len(set(y.tolist())) < 2:
        raise SensoError(f"{NAME}'s classifier needs training pairs of both labels; all {len(y)} are {y[0]}")
    make = lambda c: make_pipeline(StandardScaler(), LogisticRegression(C=c, class_weight="balanced", max_iter=2000))  # noqa: E731
    splits = _folds(groups, folds)

    def loss(c: float) -> float:
        out = np.empty(len(y))
        for train, held in splits:
            out[held] = make(c).fit(x[train], y[train]).predict_proba(x[held])[:, 1]
        return log_loss(y, np.clip(out, 1e-6, 1 - 1e-6))

    best = min(C_GRID, key=loss)
    return make(best).fit(x, y), best


def _fit_ridge(x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int) -> tuple[Any, float]:
    """A scaled ridge regression; alpha the grid's best grouped-CV Spearman."""
    from scipy.stats import spearmanr
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    make = lambda a: make_pipeline(StandardScaler(), Ridge(alpha=a))  # noqa: E731
    splits = _folds(groups, folds)

    def rho(alpha: float) -> float:
        out = np.empty(len(y))
        for train, held in splits:
            out[held] = make(alpha).fit(x[train], y[train]).predict(x[held])
        return float(spearmanr(out, y).statistic)

    best = max(ALPHA_GRID, key=rho)
    return make(best).fit(x, y), best


def _fit_isotonic(log_odds: np.ndarray, y: np.ndarray) -> Any:
    from sklearn.isotonic import IsotonicRegression

    return IsotonicRegression(out_of_bounds="clip").fit(log_odds, y)


def cross_fitted(system: PairFitted | ContextSimilarity, pairs: Sequence[WicPair], folds: int = 5) -> \
        tuple[list[float | None], list[float]]:
    """(P(same), relatedness) of each training pair from a clone fit on the other lemmas' pairs (GroupKFold):
    how a supervised system is scored on the rows it learns from. P(same) is None where a fold had no labels."""
    from senso.core.params import clone

    pairs = check_pairs(pairs, "cross_fitted")
    groups = np.array([p.lemma for p in pairs])
    judged: list[float | None] = [None] * len(pairs)
    related: list[float] = [0.0] * len(pairs)
    for train, held in _folds(groups, folds):
        model = clone(system)
        model._context, model._encoder = system._context, system.encoder_  # one memo of usage vectors
        model.fit([pairs[i] for i in train])
        held_pairs = [pairs[i] for i in held]
        if model.coef_ is not None or getattr(model, "classifier_", None) is not None:
            for i, p in zip(held, model.judge(held_pairs)):
                judged[i] = p
        for i, r in zip(held, model.relate(held_pairs)):
            related[i] = r
    return judged, related

