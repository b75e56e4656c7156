"""Image evidence for the AdMIRe pipeline's rankers: the same `ItemEvidence`, with the pictures in place
of the captions and every text embedded by the image-text model's text tower (one shared space).

With it the pipeline's rankers rank pictures unchanged: `caption` becomes sentence <-> picture,
`substitution` meaning-substituted sentence <-> picture, and `structure` assigns the five roles
(strong/mild idiom, mild/strong literal, distractor) from picture similarities to the literal reading
and to the idiomatic meaning. The sense decision still comes from the text evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from senso.backends.image_text import ImageTextModel
from senso.admire.items import AdmireAItem
from senso.admire.systems.evidence import EvidenceBuilder, ItemEvidence
from senso.admire.systems.meaning import MeaningSource
from senso.admire.systems.wordnet import WordNet
from senso.admire.systems.images.similarity import image_path


@dataclass
class ImageTextEmbedder:
    """The `Embedder` interface over an image-text model's text tower (CLIP has no query/passage prefixes)."""

    model: ImageTextModel

    @property
    def spec(self) -> str:
        return self.model.spec

    def embed(self, texts: Sequence[str], kind: str = "passage"):
        return self.model.embed_texts(texts)


@dataclass
class ImageEvidenceBuilder:
    """Builds `ItemEvidence` whose `captions` rows are the item's picture embeddings."""

    model: ImageTextModel
    meanings: MeaningSource | None
    wordnet: WordNet | None
    uses_images: bool = True

    def describe(self) -> dict[str, Any]:
        return {"evidence": "pictures", "image_model": self.model.describe(),
                "meaning": self.meanings.describe() if self.meanings else None,
                "wordnet": str(self.wordnet.source) if self.wordnet else None}

    def build(self, items: list[AdmireAItem]) -> list[ItemEvidence]:
        # Captions blanked so the text builder embeds none (the pictures replace them).
        blank = [replace(item, caption_lang="en", images=tuple(replace(i, caption="", caption_pt=None) for i in item.images))
                 for item in items]
        texts = EvidenceBuilder(ImageTextEmbedder(self.model), self.meanings, self.wordnet).build(blank)
        pictures = self.model.embed_images([image_path(item.compound, i) for item in items for i in item.images])
        out, start = [], 0
        for item, evidence in zip(items, texts):
            block = pictures[start:start + len(item.images)]
            start += len(item.images)
            out.append(replace(evidence, item=item, captions=block))
        return out
