"""What a system returns, per task family. Systems are plain objects with these methods.

- ABRICOT (`LikertSystem`): `predict(items, task) -> list[LikertPrediction]`
- AdMIRe A (`Ranker`): `rank(items) -> list[Ranking]`
- AdMIRe B (`SequenceChooser`): `choose(items) -> list[SequenceChoice]`

Every system has `name`, `describe() -> dict` (recorded in the run) and `fitted_compounds`
(the AdMIRe compounds it was fit on; empty for training-free systems, used for split hygiene).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from senso.data.admire_items import AdmireAItem, AdmireBItem


@dataclass
class LikertPrediction:
    """One ABRICOT answer: label 1-5, continuous score, and the five log-probs when an LM produced it.
    `label` and `expected` are None only for an unparseable generated answer (`likert-generate`)."""

    item_id: str
    label: int | None
    expected: float | None
    logprobs: list[float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Ranking:
    """One AdMIRe A answer: image names best first, and each image's score (higher = better)."""

    order: tuple[str, ...]
    scores: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SequenceChoice:
    """One AdMIRe B answer: the chosen candidate image and the predicted sentence type."""

    expected_item: str
    sentence_type: str
    scores: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


class Ranker(Protocol):
    name: str
    fitted_compounds: frozenset[str]

    def describe(self) -> dict[str, Any]: ...

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]: ...


class SequenceChooser(Protocol):
    name: str
    fitted_compounds: frozenset[str]

    def describe(self) -> dict[str, Any]: ...

    def choose(self, items: Sequence[AdmireBItem]) -> list[SequenceChoice]: ...
