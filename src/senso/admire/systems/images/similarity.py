"""Rank an item's images by text-image similarity, and fuse the scores of several rankers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.backends.image_text import ImageTextModel
from senso.admire.items import AdmireAItem, ImageOption
from senso.core.errors import SensoError
from senso.admire.task import TEXT_AND_IMAGES, TEXT_ONLY
from senso.admire.systems.base import Composed, Ranker, Ranking, members_sense, ranking_by_scores
from senso.admire.systems.aggregate import zscore_fusion
from senso.admire.systems.parts import FusionOptions
from senso.core.params import Configurable, OptionError


def image_path(compound: str, image: ImageOption) -> Path:
    """The image's file; SensoError naming compound and image when the loader found none."""
    if image.path is None:
        raise SensoError(
            f"{compound!r}, image {image.name}: no image file (this split has no images here, or the loader was "
            "not given the image folder); image systems need the pictures"
        )
    return Path(image.path)


def picture_vectors(model: ImageTextModel, items: Sequence[AdmireAItem]) -> list[np.ndarray]:
    """Each item's picture embeddings, a row per image in the item's order."""
    vectors = model.embed_images([image_path(item.compound, image) for item in items for image in item.images])
    return np.split(vectors, np.cumsum([len(item.images) for item in items])[:-1])


@dataclass
class ClipRanker:
    """Images ranked by cosine(text embedding of the sentence, image embedding): `clip-rank`."""

    model: ImageTextModel
    name: str = "clip-rank"
    uses_images: bool = True
    fitted_compounds: frozenset[str] = frozenset()

    def describe(self) -> dict[str, Any]:
        return {"system": self.name, "track": TEXT_AND_IMAGES, "query": "sentence",
                "image_model": self.model.describe()}

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        if not items:
            return []
        texts = [item.sentence for item in items]
        queries = self.model.embed_texts(texts)
        return [ranking_by_scores(item.image_names, (pictures @ query).tolist(), {"query": text})
                for item, text, query, pictures in zip(items, texts, queries, picture_vectors(self.model, items))]


def check_fusion(params: FusionOptions) -> None:
    """One weight per member, when weights are given (before anything loads)."""
    weights, members = params.weights, params.members
    if weights is not None and len(weights) != len(members):
        raise OptionError(f"--set weights gives {len(weights)} weights for {len(members)} --members "
                          f"({', '.join(members)}): give one per member")


@dataclass
class FusionRanker(Composed, Configurable):
    """Weighted sum of the members' per-item z-scored scores (e.g. caption similarity + image similarity).

    z-scoring puts cosines of different models (and probabilities) on one scale per item before the sum;
    a member that gives an image no score makes the fusion fail loudly rather than guess.
    """

    members: Sequence[Ranker]
    weights: Sequence[float] | None = FusionOptions.weights
    name: str = "fusion"

    def __post_init__(self):
        if not self.members:
            raise SensoError("fusion needs at least one member system")
        self.weights = list(self.weights) if self.weights is not None else [1.0] * len(self.members)
        if len(self.weights) != len(self.members):
            raise SensoError(f"fusion: {len(self.weights)} weights for {len(self.members)} members")

    def describe(self) -> dict[str, Any]:
        track = TEXT_AND_IMAGES if self.uses_images else TEXT_ONLY
        return {"system": self.name, "track": track, "normalisation": "per-item z-score", "weights": list(self.weights),
                "members": [m.describe() for m in self.members]}

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        per_member = [member.rank(items) for member in self.members]
        rankings = []
        for k, item in enumerate(items):
            rows = []
            for member, results in zip(self.members, per_member):
                scores = results[k].scores
                missing = [image.name for image in item.images if scores.get(image.name) is None]
                if missing:
                    raise SensoError(f"fusion: {member.name} gave no score to {item.compound!r} image(s) {missing}")
                rows.append([scores[image.name] for image in item.images])
            member_scores = {member.name: row for member, row in zip(self.members, rows)}
            total = zscore_fusion(rows, self.weights)
            sense = members_sense([results[k] for results in per_member])
            rankings.append(ranking_by_scores(item.image_names, total.tolist(), {"member_scores": member_scores, **sense}))
        return rankings
