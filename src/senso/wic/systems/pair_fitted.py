"""`pair-fitted`: a supervised model on features of the pair, learned from the training rows.

Features, at each of `layers` (each kind on or off by an option; benchmarks/wic_systems.py --variants measures
them, and docs/benchmarks.md says which were kept and by what grouped cross-validation):
- the target's cosine (after centring by the training usages' mean target vector, as in target-similarity:
  "all-but-the-top"), and with `raw` the uncentred cosine beside it;
- `sentence`: the two sentences' cosine (mean-pooled states), and with `centred_sentence` the cosine after
  subtracting the training usages' mean sentence vector;
- `cross`: each (centred) target vector's cosine with the other usage's sentence (does the word in one sentence fit
  the other context?), and `own`: each target's cosine with its own sentence; each kind as the mean and absolute
  difference of its two cosines, so that the pair's order does not matter;
- `lemma_stats`: each target cosine minus the mean over the pairs of its lemma among those scored together (a
  lemma whose usages are all alike is not read as one sense: no gold is read, so nothing leaks);
- `vectors`: the elementwise product and |difference| of the centred target vectors at `vector_layer`;
- `tune_layers`: the encoder's last blocks fine-tuned on the training pairs (`senso.wic.systems.tuning`), the
  targets' cosine after each tuned block (the tuned blocks read a window of `tune_window` tokens around the target).
Binary: a logistic regression (class-balanced; its C chosen by grouped, leave-lemma-out folds on the training
rows), P(same) its probability. Graded (`relate`): where the training rows have scores, a ridge regression on the
same features (`graded` linear; its alpha by the same folds) or an isotonic map of the logistic's log-odds to the
score (`graded` isotonic); with labels only, the logistic's log-odds. Its figures on training rows come from
`cross_fitted` (each fold's pairs scored by a model fit on the other lemmas).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.params import param
from senso.wic.items import WicPair
from senso.wic.systems.context import check_pairs, not_fitted
from senso.wic.systems.context_similarity import ContextSimilarity, fit_sample
from senso.wic.systems.features import (
    encode_pairs, in_chunks, lemma_relative, rowwise_cosine, sentence_cosines, target_cosines, usage_means,
)
from senso.wic.systems.tuning import (
    TUNE_EPOCHS, TUNE_LAYERS, TUNE_PAIRS, TUNE_RATE, TUNE_SEED, TUNE_WINDOW, TunedBlocks, tune_on_pairs,
    tuned_cosines, tuning_sample,
)

NAME = "pair-fitted"
ALL_LAYERS = tuple(range(13))
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
ALPHA_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
GRADED = ("linear", "isotonic")
BLOCKS = ALL_LAYERS[-1]  # the encoder's blocks (multilingual-e5-small's 12)
HELD_OUT = 0.2  # the share of training lemmas the fine-tuning is checked on


@dataclass
class PairFitted(ContextSimilarity):
    """Logistic (binary) and ridge or isotonic (graded) on pair features; see the module's docstring."""

    NAME: ClassVar[str] = NAME

    layers: tuple[int, ...] = param(ALL_LAYERS, "encoder layers whose target (and sentence) cosines are features")
    fit_pairs: int | None = param(None, "the most training pairs `fit` reads (a seeded sample; none: all)", minimum=2)
    centre: bool = param(True, "subtract the training usages' mean target vector per layer before the cosines")
    raw: bool = param(True, "the uncentred target cosines as well")
    sentence: bool = param(True, "the sentences' cosines at the same layers as features")
    centred_sentence: bool = param(True, "the sentences' cosines after subtracting the training usages' mean "
                                         "sentence vector as well")
    cross: bool = param(True, "each target's cosine with the other usage's sentence (their mean and |difference|)")
    own: bool = param(True, "each target's cosine with its own sentence (their mean and |difference|)")
    # off by default: they did not pay in grouped cross-validation on the training rows (docs/benchmarks.md)
    lemma_stats: bool = param(False, "each target cosine beside its lemma's mean over the pairs scored together")
    vectors: bool = param(False, "the product and |difference| of the target vectors at vector_layer as features")
    vector_layer: int = param(8, "the layer whose target vectors give the vectors features", minimum=0)
    tune_layers: int = param(TUNE_LAYERS, "the encoder's last blocks fine-tuned on the training pairs, their "
                                          "target cosines features (0: none)", minimum=0)
    tune_epochs: int = param(TUNE_EPOCHS, "passes over the training pairs when fine-tuning", minimum=1)
    tune_rate: float = param(TUNE_RATE, "the fine-tuning's initial learning rate (AdamW, decaying linearly to 0)",
                             minimum=0.0)
    tune_pairs: int | None = param(TUNE_PAIRS, "the most training pairs the fine-tuning reads (a seeded sample; "
                                               "none: all)", minimum=2)
    tune_window: int = param(TUNE_WINDOW, "the window of sub-word tokens around the target the tuned blocks read",
                             minimum=8)
    graded: str = param("linear", "the graded fit where training rows have scores: linear (ridge) or isotonic "
                                  "(on the logistic's log-odds)", choices=GRADED)
    folds: int = param(5, "grouped (leave-lemma-out) folds that choose C and alpha on the training rows", minimum=2)
    sentence_mean_: np.ndarray | None = field(default=None, init=False, repr=False)
    classifier_: Any = field(default=None, init=False, repr=False)
    regressor_: Any = field(default=None, init=False, repr=False)
    chosen_: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    tuned_: TunedBlocks | None = field(default=None, init=False, repr=False)
    tuning_: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def features(self, pairs: Sequence[WicPair]) -> np.ndarray:
        """One row of features per pair, in `feature_names`' order (computed a chunk of pairs at a time; the lemma
        statistics read every pair given, so they are added after)."""
        x = in_chunks(self.encoder_, pairs, self._features)
        if self.tuned_ is not None:
            x = np.concatenate([x, self._tuned_cosines(pairs)], axis=1)
        if not self.lemma_stats:
            return x
        n = len(self.layers)
        at = n * (2 if self.raw else 1)  # after the target cosines and their raw twins
        return np.concatenate([x[:, :at], lemma_relative(x[:, :n], [p.lemma for p in pairs]), x[:, at:]], axis=1)

    def _features(self, pairs: Sequence[WicPair]) -> np.ndarray:
        first, second = encode_pairs(self.encoder_, pairs)
        layers = list(self.layers)
        offset = self.mean_ if self.centre else None
        cosines = target_cosines(first, second, offset)[:, layers]
        parts = [cosines]
        if self.raw:
            parts.append(target_cosines(first, second, None)[:, layers])
        if self.sentence:
            parts.append(sentence_cosines(first, second)[:, layers])
        if self.centred_sentence:
            parts.append(rowwise_cosine(first.sentence - self.sentence_mean_, second.sentence - self.sentence_mean_)
                         [:, layers])
        parts += self._context_features(first, second, layers)
        if self.vectors:
            a, b = first.target[:, self.vector_layer], second.target[:, self.vector_layer]
            if offset is not None:
                a, b = a - offset[self.vector_layer], b - offset[self.vector_layer]
            a, b = a / np.linalg.norm(a, axis=1, keepdims=True), b / np.linalg.norm(b, axis=1, keepdims=True)
            parts += [a * b, np.abs(a - b)]
        return np.concatenate(parts, axis=1)

    def _tuned_cosines(self, pairs: Sequence[WicPair]) -> np.ndarray:
        return tuned_cosines(self.encoder_, self.tuned_, pairs, self.tune_window)

    def _tune(self, pairs: Sequence[WicPair]) -> TunedBlocks:
        """The last `tune_layers` blocks fine-tuned on (a seeded sample of `tune_pairs` of) the pairs with gold."""
        kept, targets = tuning_sample(pairs, self.tune_pairs)
        return tune_on_pairs(self.encoder_, kept, targets, self.tune_layers, self.tune_epochs, self.tune_rate,
                             self.tune_window)

    def _context_features(self, first, second, layers: list[int]) -> list[np.ndarray]:
        """`cross` and `own`: targets against sentences, both centred by the training usages' mean target vector
        (the offset that measured best: docs/benchmarks.md)."""
        if not (self.cross or self.own):
            return []
        offset = self.mean_
        ta, tb = first.target[:, layers] - offset[layers], second.target[:, layers] - offset[layers]
        sa, sb = first.sentence[:, layers] - offset[layers], second.sentence[:, layers] - offset[layers]
        both = [(rowwise_cosine(ta, sb), rowwise_cosine(tb, sa))] if self.cross else []
        both += [(rowwise_cosine(ta, sa), rowwise_cosine(tb, sb))] if self.own else []
        return [part for one, other in both for part in ((one + other) / 2, np.abs(one - other))]  # either order

    def fit(self, pairs: Sequence[WicPair]) -> "PairFitted":
        pairs = fit_sample(check_pairs(pairs, f"{NAME}.fit"), self.fit_pairs)
        labelled = [p.label is not None for p in pairs]
        scored = [p.score is not None for p in pairs]
        if not any(labelled) and not any(scored):
            raise SensoError(f"{NAME} is fit on pairs with a gold label or score; none of the {len(pairs)} has one")
        if self.tune_layers > BLOCKS:
            raise SensoError(f"{NAME}: tune_layers is 0 to the encoder's {BLOCKS} blocks, got {self.tune_layers}")
        if self.tune_layers:  # a usage the encoder computes now gives the tuned blocks' input in the same pass
            self.encoder_.keep_states = (BLOCKS - self.tune_layers, self.tune_window)
        self.mean_, self.sentence_mean_ = usage_means(self.encoder_, pairs)
        self.tuned_, self.tuning_ = None, {}
        x = self.features(pairs)
        if self.tune_layers:
            x = self._tune_if_it_pays(pairs, x)
        self.classifier_, self.regressor_, self.chosen_ = self._fit_models(pairs, x)
        return self

    def _tune_if_it_pays(self, pairs: list[WicPair], x: np.ndarray) -> np.ndarray:
        """The blocks tuned on a seeded four fifths of the training lemmas, kept (and their cosines added to `x`)
        if the models fit on those lemmas' pairs do better on the other fifth's with them than without (log-loss of
        P(same) where the pairs have labels, else the Spearman of the graded fit): on WiC-ITA they do, on English
        WiC they do not (docs/benchmarks.md)."""
        from sklearn.model_selection import GroupShuffleSplit

        groups = np.array([p.lemma for p in pairs])
        if len(set(groups)) < 2:
            raise SensoError(f"{NAME} checks its fine-tuning on lemmas it was not tuned on: it needs training pairs "
                             f"of at least two lemmas, got {len(set(groups))}")
        train, held = next(GroupShuffleSplit(n_splits=1, test_size=HELD_OUT, random_state=TUNE_SEED)
                           .split(groups, groups=groups))
        self.tuned_ = self._tune([pairs[i] for i in train])
        both = np.concatenate([x, self._tuned_cosines(pairs)], axis=1)
        without, with_tuned = (self._held_out_loss(pairs, features, train, held) for features in (x, both))
        kept = with_tuned < without
        self.tuning_ = {"held_out_pairs": len(held), "held_out_loss_without": without,
                        "held_out_loss_with": with_tuned, "kept": kept}
        if not kept:
            self.tuned_ = None
        return both if kept else x

    def _held_out_loss(self, pairs: list[WicPair], x: np.ndarray, train: np.ndarray, held: np.ndarray) -> float:
        """Lower is better: the `held` pairs' log-loss under a classifier fit on the `train` pairs (labels), or
        minus the Spearman of the graded fit (scores only)."""
        from scipy.stats import spearmanr
        from sklearn.metrics import log_loss

        classifier, regressor, _ = self._fit_models([pairs[i] for i in train], x[train])
        held_pairs = [pairs[i] for i in held]
        if classifier is not None and any(p.label is not None for p in held_pairs):
            keep = [i for i, p in zip(held, held_pairs) if p.label is not None]
            p_same = classifier.predict_proba(x[keep])[:, 1]
            return float(log_loss([pairs[i].label for i in keep], np.clip(p_same, 1e-6, 1 - 1e-6), labels=[0, 1]))
        keep = [i for i, p in zip(held, held_pairs) if p.score is not None]
        if regressor is None or len(keep) < 3:
            return float("inf")  # nothing to measure the tuning by: it is not kept
        return -float(spearmanr(self._graded(classifier, regressor, x[keep]), [pairs[i].score for i in keep]).statistic)

    def _fit_models(self, pairs: list[WicPair], x: np.ndarray) -> tuple[Any, Any, dict[str, float]]:
        """(classifier, regressor, chosen): the logistic on the labelled pairs and the graded fit on the scored
        ones (None where there are none), and the C and alpha chosen."""
        labelled = np.array([p.label is not None for p in pairs])
        scored = np.array([p.score is not None for p in pairs])
        groups, classifier, regressor, chosen = np.array([p.lemma for p in pairs]), None, None, {}
        if labelled.any():
            y = np.array([p.label for p in pairs if p.label is not None])
            classifier, chosen["C"] = _fit_classifier(x[labelled], y, groups[labelled], self.folds)
        if scored.any():
            y = np.array([p.score for p in pairs if p.score is not None], dtype=float)
            if self.graded == "isotonic" and classifier is not None:
                regressor = _fit_isotonic(classifier.decision_function(x[scored]), y)
            else:
                regressor, chosen["alpha"] = _fit_ridge(x[scored], y, groups[scored], self.folds)
        return classifier, regressor, chosen

    def _graded(self, classifier: Any, regressor: Any, x: np.ndarray) -> np.ndarray:
        if regressor is None:
            return classifier.decision_function(x)
        if self.graded == "isotonic" and classifier is not None:  # a map of the classifier's log-odds
            return regressor.predict(classifier.decision_function(x))
        return regressor.predict(x)

    def judge(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, f"{NAME}.judge")
        if self.classifier_ is None:
            raise not_fitted(NAME, "judging (its classifier is fit on pairs with binary labels)")
        return [float(p) for p in self.classifier_.predict_proba(self.features(pairs))[:, 1]]

    def relate(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, f"{NAME}.relate")
        if self.classifier_ is None and self.regressor_ is None:
            raise not_fitted(NAME, "relating")
        return [float(v) for v in self._graded(self.classifier_, self.regressor_, self.features(pairs))]

    def describe(self) -> dict[str, Any]:
        return {"system": NAME, **self.describe_encoder(self.encoder_), "layers": list(self.layers),
                "centre": self.centre, "features": self.feature_names, "chosen": dict(self.chosen_),
                "tuned": {"layers": self.tune_layers, "epochs": self.tune_epochs, "rate": self.tune_rate,
                          "pairs": self.tune_pairs, "window": self.tune_window, **self.tuning_}
                if self.tune_layers else None,
                "graded": self.graded if self.regressor_ is not None else "log-odds"}

    @property
    def feature_names(self) -> list[str]:
        """One name per column kind of `features`, in its order (each kind spans `layers`, but `vectors`)."""
        at = lambda kind: [f"{kind}_{layer}" for layer in self.layers]  # noqa: E731
        names = at("target_cos")
        names += at("raw_target_cos") if self.raw else []
        names += [f"target_cos_{layer}_minus_lemma_mean" for layer in self.layers] if self.lemma_stats else []
        names += at("sentence_cos") if self.sentence else []
        names += at("centred_sentence_cos") if self.centred_sentence else []
        names += at("cross_sentence_cos_mean") + at("cross_sentence_cos_absdiff") if self.cross else []
        names += at("own_sentence_cos_mean") + at("own_sentence_cos_absdiff") if self.own else []
        names += [f"product_{self.vector_layer}", f"absdiff_{self.vector_layer}"] if self.vectors else []
        tuned = self.tune_layers if self.tuned_ is not None or not self.tuning_ else 0  # 0 where the check dropped it
        return names + [f"tuned_target_cos_{layer}" for layer in range(BLOCKS - tuned + 1, BLOCKS + 1)]


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

