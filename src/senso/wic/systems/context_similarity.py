"""`target-similarity`: how alike the target word's contextual vectors are in the two sentences.

The target's vector in each sentence is the mean of its sub-word states in the shipped multilingual encoder
(multilingual-e5-small) at each declared layer; the pair's similarity is their cosine averaged over those layers
(`relate`). `fit` learns, from the training rows (a seeded sample of at most `fit_pairs` of them), the mean target
vector per layer (subtracted before the cosine when `centre` is on: "all-but-the-top", which removes the direction
every usage shares) and a one-feature logistic regression on the similarity (class-balanced), whose 0.5 point is
the binary threshold and whose probability is P(same meaning) (`judge`). A cross-lingual pair goes through the same encoder: the model is multilingual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Sequence, TypeVar

import numpy as np

from senso.core.params import Configurable, param
from senso.wic.items import WicPair
from senso.wic.systems.context import WicContext, check_pairs, not_fitted
from senso.wic.systems.encoder import ENGINES, PREFIXES, WINDOW_TOKENS, UsageEncoder, engine
from senso.wic.systems.features import check_layers, encode_pairs, in_chunks, target_cosines, usage_means

NAME = "target-similarity"
# The last layer alone, uncentred: on WiC-ITA and English WiC dev it beat layers 6-9 and 1-12, centred or not
# (docs/benchmarks.md, "Word in context: the systems").
DEFAULT_LAYERS = (12,)
FIT_PAIRS = 800
FIT_SEED = 0
T = TypeVar("T")


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def fit_sample(pairs: list[T], most: int | None) -> list[T]:
    """At most `most` of `pairs` (None: all), drawn with a fixed seed and kept in their order."""
    if most is None or len(pairs) <= most:
        return pairs
    chosen = np.random.default_rng(FIT_SEED).choice(len(pairs), size=most, replace=False)
    return [pairs[i] for i in sorted(chosen)]


def fit_threshold(similarity: Callable[[list[WicPair]], np.ndarray],
                  pairs: list[WicPair]) -> tuple[float, float] | None:
    """(slope, intercept) of a class-balanced logistic regression of the pairs' labels on their `similarity`; None
    unless every pair has a label and both labels occur."""
    from sklearn.linear_model import LogisticRegression

    if not all(p.label is not None for p in pairs) or len({p.label for p in pairs}) < 2:
        return None
    model = LogisticRegression(class_weight="balanced").fit(similarity(pairs)[:, None], [p.label for p in pairs])
    return float(model.coef_[0, 0]), float(model.intercept_[0])


@dataclass
class EncoderOptions(Configurable):
    """How usages are encoded; shared by the encoder systems."""

    encoder: str = param("e5-f32", "the encoder's arithmetic: e5-f32 (fast) or e5-f64 (the same vectors on every "
                                   "host, slower)", choices=ENGINES)
    prefix: str = param("query", "e5's prefix before each sentence (none: no prefix)", choices=PREFIXES)
    window: int = param(WINDOW_TOKENS, "longest sentence in sub-word tokens; a longer one is cut around the target",
                        minimum=8)

    def usage_encoder(self, context: WicContext | None) -> UsageEncoder:
        """The encoder of these settings: the run's own (shared by its systems), else one of this system's."""
        if context is None:
            return UsageEncoder(self.encoder, self.prefix, self.window, None)
        settings = (self.encoder, self.prefix, self.window)
        if settings not in context.encoders:
            context.encoders[settings] = UsageEncoder(*settings, context.open_cache)
        return context.encoders[settings]

    def describe_encoder(self, encoder: UsageEncoder) -> dict[str, Any]:
        return {"encoder": "multilingual-e5-small", "fingerprint": encoder.fingerprint}

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: the options and what was fit, not the run's cache or the encoder's memo."""
        return {**self.__dict__, "_context": None, "_encoder": None}


@dataclass
class SimilaritySystem(EncoderOptions):
    """A system that answers from one similarity per pair (`similarity`, its subclass's): bound to a run's
    context, relatedness the similarity, P(same) a logistic of it (`coef_`, fit on training labels)."""

    NAME: ClassVar[str] = ""
    coef_: tuple[float, float] | None = field(default=None, init=False, repr=False)  # slope, intercept
    _context: WicContext | None = field(default=None, init=False, repr=False)
    _encoder: UsageEncoder | None = field(default=None, init=False, repr=False)

    def bind(self, context: WicContext) -> "SimilaritySystem":
        self._context, self._encoder = context, None
        return self

    @property
    def encoder_(self) -> UsageEncoder:
        if self._encoder is None:
            self._encoder = self.usage_encoder(self._context)
        return self._encoder

    def similarity(self, pairs: Sequence[WicPair]) -> np.ndarray:
        raise NotImplementedError

    def judge(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, f"{self.NAME}.judge")
        if self.coef_ is None:
            raise not_fitted(self.NAME, "judging (its threshold is fit on pairs with both labels)")
        slope, intercept = self.coef_
        return [float(p) for p in sigmoid(slope * self.similarity(pairs) + intercept)]

    def relate(self, pairs: Sequence[WicPair]) -> list[float]:
        return [float(s) for s in self.similarity(check_pairs(pairs, f"{self.NAME}.relate"))]

    @property
    def threshold(self) -> float | None:
        """The similarity at which P(same) is 0.5."""
        return None if self.coef_ is None else -self.coef_[1] / self.coef_[0]


@dataclass
class ContextSimilarity(SimilaritySystem):
    """The target's contextual cosine; a threshold fit on training rows. See the module's docstring."""

    NAME: ClassVar[str] = NAME

    layers: tuple[int, ...] = param(DEFAULT_LAYERS, "encoder layers whose target cosines are averaged (0: the "
                                                    "embeddings, 12: the last)")
    centre: bool = param(False, "subtract the training usages' mean target vector per layer before the cosine")
    # A threshold is one number: a sample of the training rows sets it as well as all of them (docs/benchmarks.md)
    # and costs a fraction of the encoder's time.
    fit_pairs: int | None = param(FIT_PAIRS, "the most training pairs `fit` reads (a seeded sample; none: all)",
                                  minimum=2)
    mean_: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        check_layers(self.layers, 12, NAME)

    def similarity(self, pairs: Sequence[WicPair]) -> np.ndarray:
        check_layers(self.layers, engine(self.encoder).header.layers, NAME)
        offset = self.mean_ if self.centre else None
        if self.centre and offset is None:
            raise not_fitted(NAME, "scoring with centre on (the offset is the training usages' mean)")

        def mean_cosine(chunk: Sequence[WicPair]) -> np.ndarray:
            return target_cosines(*encode_pairs(self.encoder_, chunk), offset)[:, list(self.layers)].mean(axis=1)

        return in_chunks(self.encoder_, pairs, mean_cosine)

    def fit(self, pairs: Sequence[WicPair]) -> "ContextSimilarity":
        pairs = fit_sample(check_pairs(pairs, f"{NAME}.fit"), self.fit_pairs)
        self.mean_ = usage_means(self.encoder_, pairs)[0]
        self.coef_ = fit_threshold(self.similarity, pairs)
        return self

    def describe(self) -> dict[str, Any]:
        return {"system": NAME, **self.describe_encoder(self.encoder_), "layers": list(self.layers),
                "centre": self.centre, "threshold": self.threshold,
                "slope": None if self.coef_ is None else self.coef_[0]}

