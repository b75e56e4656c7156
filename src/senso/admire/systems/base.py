"""What an AdMIRe system returns (`Ranking`, `SequenceChoice`), and what it is: a plain object with the methods
of `Ranker` (Subtask A) or `SequenceChooser` (B); admire-sense's are `senso.admire.systems.sense.SenseClassifier`s.

Every system has `name`, `describe() -> dict` (recorded in the run), `fitted_compounds` (the AdMIRe compounds it
was fit on; empty for training-free systems, used for split hygiene) and `uses_images` (the leaderboard track of
its runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from senso.admire.items import AdmireAItem, AdmireBItem


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


def ranking_by_scores(names: Sequence[str], scores: Sequence[float | None],
                      extra: dict[str, Any] | None = None) -> Ranking:
    """Images best first by score. Ties keep the item's own image order and unscored images (None) go last,
    so the order is deterministic; when scores tie, `extra["ties"]` says how they were broken."""
    if len(scores) != len(names):
        raise ValueError(f"{len(scores)} scores for {len(names)} images")
    values = [None if s is None else float(s) for s in scores]
    order = tuple(names[i] for i in sorted(range(len(names)),
                                             key=lambda i: (values[i] is None, -(values[i] or 0.0), i)))
    info = dict(extra or {})
    scored = [v for v in values if v is not None]
    if len(set(scored)) < len(scored):
        info["ties"] = "broken by the item's image order"
    return Ranking(order=order, scores=dict(zip(names, values)), extra=info)


def members_sense(rankings: Sequence[Ranking]) -> dict[str, Any]:
    """The sense the members decided for an item: the mean of their P(idiomatic), labelled at 0.5 (nothing when
    no member decides one)."""
    ps = [r.extra["p_idiomatic"] for r in rankings if isinstance(r.extra.get("p_idiomatic"), (int, float))]
    if not ps:
        return {}
    p = sum(ps) / len(ps)
    return {"sense": "idiomatic" if p >= 0.5 else "literal", "p_idiomatic": round(p, 6)}


class Composed:
    """A system of `members`: it learned what they learned, and reads the pictures when one of them does."""

    members: Sequence[Any]

    @property
    def fitted_compounds(self) -> frozenset[str]:
        return frozenset().union(*(frozenset(getattr(m, "fitted_compounds", frozenset())) for m in self.members))

    @property
    def uses_images(self) -> bool:
        return any(getattr(m, "uses_images", False) for m in self.members)


class Ranker(Protocol):
    name: str
    fitted_compounds: frozenset[str]
    uses_images: bool  # True: its runs are on the text+images leaderboard track

    def describe(self) -> dict[str, Any]: ...

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]: ...


class SequenceChooser(Protocol):
    name: str
    fitted_compounds: frozenset[str]
    uses_images: bool

    def describe(self) -> dict[str, Any]: ...

    def choose(self, items: Sequence[AdmireBItem]) -> list[SequenceChoice]: ...
