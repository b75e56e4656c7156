"""Trivial systems that need no model: every run path of the family works before the real systems do, and a
real system's score reads against them.

- `word-overlap`: how many words the two sentences share (Jaccard over lower-cased words, the target left out)
  is the relatedness; P(same) is a logistic curve through the threshold that best splits the training rows.
- `lemma-prior`: the share of "same meaning" (or the mean score) among the lemma's training pairs, shrunk
  towards the overall share by `prior_weight` pseudo-pairs; a lemma not in training gets the overall share.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from senso.core.errors import SensoError
from senso.core.params import Configurable, param
from senso.wic.items import Usage, WicPair

WORD = re.compile(r"\w+")
STEEPNESS = 12.0  # how fast word-overlap's P(same) rises through its threshold (per unit of Jaccard overlap)


def _words(usage: Usage) -> set[str]:
    return {w.lower() for w in WORD.findall(usage.text[:usage.start] + " " + usage.text[usage.end:])}


def overlap(pair: WicPair) -> float:
    """Jaccard overlap of the two sentences' words, the target left out."""
    a, b = _words(pair.first), _words(pair.second)
    return len(a & b) / len(a | b) if a | b else 0.0


def _gold(pair: WicPair) -> float:
    if pair.label is not None:
        return float(pair.label)
    if pair.score is not None:
        return float(pair.score)
    raise SensoError(f"{pair.source}: pair {pair.pair_id} has no gold to fit on")


@dataclass
class WordOverlap(Configurable):
    """Shared words as relatedness; a threshold on it, fitted on the training rows, for P(same)."""

    threshold: float | None = param(None, "The overlap above which a pair is judged the same meaning (default: "
                                          "fitted on the training rows, else 0.1).", minimum=0.0)
    fitted_threshold: float | None = field(default=None, init=False, repr=False)

    def fit(self, pairs: list[WicPair]) -> "WordOverlap":
        labelled = [(overlap(p), p.label) for p in pairs if p.label is not None]
        if labelled:
            candidates = sorted({value for value, _ in labelled})
            correct = lambda t: sum((value >= t) == bool(label) for value, label in labelled)
            self.fitted_threshold = max(candidates, key=correct)
        return self

    def _threshold(self) -> float:
        return self.threshold if self.threshold is not None else (
            self.fitted_threshold if self.fitted_threshold is not None else 0.1)

    def judge(self, pairs: list[WicPair]) -> list[float]:
        t = self._threshold()
        return [1.0 / (1.0 + math.exp(-STEEPNESS * (overlap(p) - t))) for p in pairs]

    def relate(self, pairs: list[WicPair]) -> list[float]:
        return [overlap(p) for p in pairs]

    def decide(self, p: float) -> bool:
        return p >= 0.5

    def describe(self) -> dict:
        return {"threshold": self._threshold(), "fitted": self.threshold is None and self.fitted_threshold is not None}


@dataclass
class LemmaPrior(Configurable):
    """What the lemma's training pairs say, nothing of the sentences."""

    prior_weight: float = param(2.0, "Pseudo-pairs of the overall share added to each lemma's pairs.", minimum=0.0)
    by_lemma: dict = field(default_factory=dict, init=False, repr=False)
    overall: float | None = field(default=None, init=False, repr=False)

    def fit(self, pairs: list[WicPair]) -> "LemmaPrior":
        values: dict[str, list[float]] = defaultdict(list)
        for pair in pairs:
            values[pair.lemma].append(_gold(pair))
        every = [v for vs in values.values() for v in vs]
        if not every:
            raise SensoError("lemma-prior needs training pairs with gold")
        self.overall = sum(every) / len(every)
        self.by_lemma = {lemma: (sum(vs) + self.prior_weight * self.overall) / (len(vs) + self.prior_weight)
                         for lemma, vs in values.items()}
        return self

    def _value(self, pair: WicPair) -> float:
        if self.overall is None:
            raise SensoError("lemma-prior must be fitted on training pairs before it judges")
        return self.by_lemma.get(pair.lemma, self.overall)

    def judge(self, pairs: list[WicPair]) -> list[float]:
        return [min(1.0, max(0.0, self._value(p))) for p in pairs]

    def relate(self, pairs: list[WicPair]) -> list[float]:
        return [self._value(p) for p in pairs]

    def describe(self) -> dict:
        return {"prior_weight": self.prior_weight, "lemmas": len(self.by_lemma), "overall": self.overall}
