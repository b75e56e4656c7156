"""`decomposed` and `lexical-prior`: a word's level from the lexical prior, its context's deviation from a ridge.

For any Likert task (built-in or a task file), item i of group G (ABRICOT: the lemma) with raw gold y_i:

    pred_i = (a · s(G) + b)  +  d(x_i)

- s(G): the lexical prior's concreteness of the group's word (`lexical_prior.py`, fitted on English norms
  only): the group's own text, or the item's word when the data has no group column;
- a, b: ordinary least squares of the training groups' mean gold ȳ_G on s(G) — the only thing learned from
  the task about the between-group level (2 numbers from the group means, never from single items);
- d: ridge from the embedding-ridge features x_i (default `"<target>: <sentence>"`, e5-f64, query) to the
  deviation y_i - ȳ_G(i), α by inner leave-one-group-out CV on the training rows (`ridge_cv.select_alpha`).

`lexical-prior` is the first term alone (constant within a group). Evaluated leave-one-group-out: in each
fold a, b and d are refitted on the other groups, so the left-out group's level comes from the prior alone.
The equal weight of the two terms is fixed by the decomposition (mean + deviation), not fitted.
Predictions are clipped into the task's gold_range and labelled by its rule (`ridge.to_prediction`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.core.version import __version__
from senso.backends.embedders import Embedder
from senso.backends.specs import DEFAULT_EMBEDDER
from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.core.records import write_json_atomically
from senso.core.grouped_cv import leave_one_group_out
from senso.core.ridge_cv import ALPHA_GRID, RidgeModel, fit_ridge, select_alpha
from senso.core.params import Configurable
from senso.likert.generalisation import TrainingProfile
from senso.likert.items import LikertItem, group_key, has_group
from senso.likert.systems.lexical_prior import LexicalPrior, PriorSettings, get_prior
from senso.likert.systems.ridge import (
    EmbeddingRidge, RidgeOptions, ModelFileWarning, SeenLemmaWarning, seen_lemma_message,
    to_prediction, RIDGE_PARAMS, EmbedderLoader, embedder_loader,
)
from senso.likert.task import LikertPrediction, LikertTask, as_likert_items, get_task, require_gold

MODEL_FORMAT = "senso-abricot-decomposed"
MODEL_FORMAT_VERSION = 1


@dataclass
class _Parts:
    a: float
    b: float
    context: RidgeModel | None


@dataclass
class _Fitted:
    task: LikertTask
    parts: _Parts
    item_ids: list[str]
    lemmas: list[str]
    profile: TrainingProfile
    trained_at: str


def prior_word(item: LikertItem) -> str:
    """The word the prior scores for an item's group: the group's text (ABRICOT: the lemma), else the word."""
    return item.group.strip() if has_group(item) and item.group.strip() else item.word.strip()


def _as_task(task: LikertTask | str) -> LikertTask:
    return get_task(task) if isinstance(task, str) else task


def calibrate(prior_scores: Sequence[float], lemma_means: Sequence[float]) -> tuple[float, float]:
    """(a, b) of the least-squares line lemma_mean ≈ a · prior_score + b."""
    s, m = np.asarray(prior_scores, float), np.asarray(lemma_means, float)
    if len(s) < 2 or np.allclose(s, s[0]):
        raise SensoError(f"calibrating the prior needs at least 2 groups with different prior scores, got {len(s)}")
    a, b = np.polyfit(s, m, 1)
    return float(a), float(b)


@dataclass
class Decomposed(Configurable):
    """See the module docstring. `context=False` is the `lexical-prior` system."""

    embedder: str | Embedder = DEFAULT_EMBEDDER
    features: tuple[str, ...] = RidgeOptions.features
    kind: str = RidgeOptions.kind
    context: bool = True
    cache: ResponseCache | None = None
    seed: int = 0
    prior_settings: PriorSettings = PriorSettings()
    alphas: tuple[float, ...] = ALPHA_GRID
    prior: LexicalPrior | None = None
    load_embedder: EmbedderLoader | None = field(default=None, repr=False)
    _ridge: EmbeddingRidge = field(init=False, repr=False)
    _fitted: _Fitted | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._ridge = EmbeddingRidge(embedder=self.embedder, features=self.features, kind=self.kind, cache=self.cache,
                                     load_embedder=self.load_embedder)
        if len(self._ridge._embedders) != 1:
            raise SensoError("the decomposed systems take one embedder (the prior's), not a '+' combination")
        self.embedder = self._ridge.embedder

    @property
    def name(self) -> str:
        return "decomposed" if self.context else "lexical-prior"

    @classmethod
    def from_options(cls, embedder: str | None, options: dict[str, Any] | None = None,
                     cache: ResponseCache | None = None, seed: int = 0, context: bool = True,
                     load_embedder: EmbedderLoader | None = None) -> "Decomposed":
        """From `--embedder` and the values of RIDGE_PARAMS (`features`, `kind`: the context part's)."""
        values = RIDGE_PARAMS.resolve(options or {}, f"--system {'decomposed' if context else 'lexical-prior'}")
        return cls(embedder=embedder or DEFAULT_EMBEDDER, **RidgeOptions.from_values(values).get_params(),
                   cache=cache, seed=seed, context=context, load_embedder=load_embedder)

    def _prior(self) -> LexicalPrior:
        if self.prior is None:
            self.prior = get_prior(self._ridge._embedders[0], self.cache, self.prior_settings)
        return self.prior

    def _scores(self, items: Sequence[LikertItem]) -> np.ndarray:
        """s(G) per item (one prior call per distinct group)."""
        text: dict[str, str] = {}
        for it in items:
            text.setdefault(group_key(it), prior_word(it))
        keys = list(text)
        scores = dict(zip(keys, self._prior().score([text[k] for k in keys])))
        return np.asarray([scores[group_key(it)] for it in items], dtype=np.float64)

    def _fit_arrays(self, x: np.ndarray | None, s: np.ndarray, y: np.ndarray, groups: list[str]) -> _Parts:
        order = list(dict.fromkeys(groups))
        g = np.asarray(groups, dtype=object)
        means = {k: float(y[g == k].mean()) for k in order}
        a, b = calibrate([float(s[g == k][0]) for k in order], [means[k] for k in order])
        model = None
        if self.context:
            dev = y - np.asarray([means[k] for k in groups])
            choice = select_alpha(x, dev, groups, self.alphas)
            model = fit_ridge(x, dev, choice.alpha)
        return _Parts(a=a, b=b, context=model)

    @staticmethod
    def _predict_arrays(parts: _Parts, x: np.ndarray | None, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level = parts.a * s + parts.b
        dev = parts.context.predict(x) if parts.context is not None else np.zeros_like(level)
        return level, dev

    def _arrays(self, items: Sequence[LikertItem], with_gold: bool):
        x = self._ridge.feature_matrix(items) if self.context else None
        y = np.asarray([require_gold(it) for it in items], dtype=np.float64) if with_gold else None
        return x, self._scores(items), y

    def cross_validated_predict(self, items: Sequence[LikertItem], task: LikertTask | str) -> list[LikertPrediction]:
        """Leave-one-group-out: a, b and d refitted without each group; `extra` has level, deviation, fold, a, b, alpha."""
        task = _as_task(task)
        items = as_likert_items(items, task)
        x, s, y = self._arrays(items, with_gold=True)
        groups = [group_key(it) for it in items]
        out: list[LikertPrediction | None] = [None] * len(items)
        for fold in leave_one_group_out(groups):
            parts = self._fit_arrays(None if x is None else x[fold.train], s[fold.train], y[fold.train],
                                     [groups[i] for i in fold.train])
            level, dev = self._predict_arrays(parts, None if x is None else x[fold.test], s[fold.test])
            for i, lv, dv in zip(fold.test, level, dev):
                out[i] = to_prediction(items[i].id, lv + dv, self._extra(parts, lv, dv, fold=fold.group), task)
        return out  # type: ignore[return-value]

    @staticmethod
    def _extra(parts: _Parts, level: float, dev: float, **more: Any) -> dict[str, Any]:
        return {"level": float(level), "deviation": float(dev), "a": parts.a, "b": parts.b,
                "alpha": parts.context.alpha if parts.context else None, **more}

    def fit(self, items: Sequence[LikertItem], task: LikertTask | str) -> "Decomposed":
        task = _as_task(task)
        items = as_likert_items(items, task)
        x, s, y = self._arrays(items, with_gold=True)
        groups = [group_key(it) for it in items]
        self._fitted = _Fitted(task=task, parts=self._fit_arrays(x, s, y, groups), item_ids=[it.id for it in items],
                               lemmas=groups, profile=TrainingProfile.from_items(items),
                               trained_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        return self

    def _require_fitted(self) -> _Fitted:
        if self._fitted is None:
            raise SensoError(f"this {self.name} model is not fitted: call fit() or load a saved model")
        return self._fitted

    @property
    def profile(self) -> TrainingProfile:
        return self._require_fitted().profile

    @property
    def task(self) -> LikertTask:
        """The task the model was fitted for."""
        return self._require_fitted().task

    def seen_items(self, items: Sequence[LikertItem]) -> list[LikertItem]:
        """The items whose group (or ID) the fitted model was trained on."""
        fitted = self._require_fitted()
        groups, ids = set(fitted.lemmas), set(fitted.item_ids)
        return [it for it in as_likert_items(items, fitted.task) if group_key(it) in groups or it.id in ids]

    def predict(self, items: Sequence[LikertItem], task: LikertTask | str | None = None, *,
                warn: bool = True) -> list[LikertPrediction]:
        fitted = self._require_fitted()
        if task is not None and _as_task(task).name != fitted.task.name:
            raise SensoError(f"this model was fitted for {fitted.task.name}, not {_as_task(task).name}")
        items = as_likert_items(items, fitted.task)
        if not items:
            raise SensoError("no items to predict")
        if warn and (seen := self.seen_items(items)):
            warnings.warn(SeenLemmaWarning(seen_lemma_message(seen, len(items), fitted.task.group_noun)), stacklevel=2)
        x, s, _ = self._arrays(items, with_gold=False)
        level, dev = self._predict_arrays(fitted.parts, x, s)
        return [to_prediction(it.id, lv + dv, self._extra(fitted.parts, lv, dv), fitted.task)
                for it, lv, dv in zip(items, level, dev)]

    def describe(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "system": self.name, "supervised": True, "cross_validated": True,
            "cv": "leave-one-group-out (ABRICOT: leave-one-lemma-out)",
            "formula": "a * prior(group) + b" + (" + ridge(features) fitted on deviations from the group means"
                                                 if self.context else ""),
            "calibration": "a, b: least squares of the training groups' mean gold on the prior (group means only)",
            "weights": "level + deviation, equal by construction (fixed by reasoning, not fitted)",
            "lexical_prior": self._prior().describe(), "embedder": self.embedder, "seed": self.seed,
        }
        if self.context:
            data.update({"features": list(self.features), "embedding_kind": self.kind, "alpha_grid": list(self.alphas),
                         "alpha_selection": "inner leave-one-group-out CV on the training rows only; lowest MSE"})
        if self._fitted:
            p = self._fitted.parts
            data.update({"task": self._fitted.task.name, "a": p.a, "b": p.b,
                         "alpha": p.context.alpha if p.context else None, "n_train_items": len(self._fitted.item_ids),
                         "train_lemmas": sorted(set(self._fitted.lemmas)),
                         "train_profile": self._fitted.profile.to_json()})
        return data

    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
        fitted = self._require_fitted()
        p = fitted.parts
        data = {
            "format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "system": self.name,
            "senso_version": __version__, "trained_at": fitted.trained_at, "task": fitted.task.name,
            "task_file": fitted.task.reference,
            "embedder": self.embedder, "embedder_fingerprint": self._ridge.embedder_fingerprint,
            "features": list(self.features), "embedding_kind": self.kind, "alpha_grid": list(self.alphas),
            "context": self.context, "a": p.a, "b": p.b,
            "context_model": None if p.context is None else {
                "alpha": p.context.alpha, "intercept": p.context.intercept, "coef": [float(c) for c in p.context.coef]},
            "lexical_prior": self._prior().to_json(), "train_item_ids": fitted.item_ids, "train_lemmas": fitted.lemmas,
            "train_profile": fitted.profile.to_json(), **(extra or {}),
        }
        return write_json_atomically(path, data, indent=1)

    @classmethod
    def load_data(cls, data: dict[str, Any], path: Path, cache: ResponseCache | None = None,
                  load_embedder: EmbedderLoader | None = None) -> "Decomposed":
        """A model from the parsed JSON of a file written by `save`."""
        if data.get("format_version") != MODEL_FORMAT_VERSION:
            raise SensoError(f"{path}: model format version {data.get('format_version')} is not supported")
        try:
            embedder = (load_embedder or embedder_loader(cache))(data["embedder"])
            prior = LexicalPrior.from_json(data["lexical_prior"], embedder)
            system = cls(embedder=embedder, features=tuple(data["features"]), kind=data["embedding_kind"],
                         context=bool(data["context"]), cache=cache, prior_settings=prior.settings,
                         alphas=tuple(data["alpha_grid"]), prior=prior)
            system._ridge._embedders = [embedder]
            cm = data["context_model"]
            parts = _Parts(a=float(data["a"]), b=float(data["b"]), context=None if cm is None else RidgeModel(
                coef=np.asarray(cm["coef"], dtype=np.float64), intercept=float(cm["intercept"]), alpha=float(cm["alpha"])))
            system._fitted = _Fitted(task=get_task(data.get("task_file") or data["task"]), parts=parts, item_ids=list(data["train_item_ids"]),
                                     lemmas=list(data["train_lemmas"]),
                                     profile=TrainingProfile.from_json(data["train_profile"]),
                                     trained_at=data["trained_at"])
        except KeyError as exc:
            raise SensoError(f"{path}: model file lacks the field {exc.args[0]!r}") from None
        if data["embedder_fingerprint"] != system._ridge.embedder_fingerprint:
            warnings.warn(ModelFileWarning(f"{path} was fitted with embedder {data['embedder_fingerprint']}, but "
                                           f"{system._ridge.embedder_fingerprint} is installed"), stacklevel=2)
        return system


def lexical_prior(embedder: str | None, options: dict[str, Any] | None = None, cache: ResponseCache | None = None,
                  seed: int = 0, load_embedder: EmbedderLoader | None = None) -> Decomposed:
    """`lexical-prior`: the decomposed system without its context part."""
    return Decomposed.from_options(embedder, options, cache, seed, context=False, load_embedder=load_embedder)
