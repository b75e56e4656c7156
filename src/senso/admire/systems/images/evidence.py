"""Image evidence for the AdMIRe pipeline's rankers: the same `ItemEvidence`, with the pictures in place
of the captions and every text embedded by the image-text model's text tower (one shared space).

With it the pipeline's rankers rank pictures unchanged: `caption` becomes sentence <-> picture,
`substitution` meaning-substituted sentence <-> picture, and `structure` assigns the five roles
(strong/mild idiom, mild/strong literal, distractor) from picture similarities to the literal reading
and to the idiomatic meaning. The sense decision still comes from the text evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from senso.backends.image_text import ImageTextModel
from senso.admire.items import AdmireAItem
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.images.similarity import picture_vectors


@dataclass
class ImageEvidenceBuilder(EvidenceBuilder):
    """Builds `ItemEvidence` whose `captions` rows are the item's picture embeddings."""

    embedder: ImageTextModel  # type: ignore[assignment]  # CLIP's text tower: no query/passage prefixes
    uses_images = True

    def describe(self) -> dict[str, Any]:
        return {"evidence": "pictures", "image_model": self.embedder.describe(),
                "meaning": self.meanings.describe() if self.meanings else None,
                "wordnet": str(self.wordnet.source) if self.wordnet else None}

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed_texts(texts)

    def captions(self, items: list[AdmireAItem]) -> list[np.ndarray | None]:
        return list(picture_vectors(self.embedder, items))
