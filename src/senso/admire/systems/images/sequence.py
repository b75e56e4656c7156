"""Subtask B with images (`sequence-continuation --modality images`).

The sense of the story (literal or idiomatic) is decided from the two sequence captions by the text
chooser this wraps; the candidate is chosen by what the pictures show: each candidate's visual
coherence with the two sequence images (mean cosine of the image embeddings), per-item z-scored and
added to the text chooser's z-scored candidate scores with weight `text_weight` (0: images alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.backends.image_text import ImageTextModel
from senso.admire.items import AdmireBItem
from senso.core.errors import SensoError
from senso.admire.task import TEXT_AND_IMAGES
from senso.admire.systems.images.similarity import image_path
from senso.core.stats import zscores
from senso.admire.systems.base import SequenceChoice, SequenceChooser
from senso.admire.systems.parts import SequenceContinuationOptions
from senso.core.params import Configurable


def sequence_paths(item: AdmireBItem) -> tuple[Path, Path]:
    if item.sequence_paths is None:
        raise SensoError(f"{item.compound!r}: no sequence images (s1.png, s2.png); image systems need the pictures")
    return item.sequence_paths


@dataclass
class ImageSequenceChooser(Configurable):
    model: ImageTextModel
    text_chooser: SequenceChooser
    text_weight: float = SequenceContinuationOptions.text_weight
    name: str = "sequence-continuation"
    uses_images: bool = True

    @property
    def fitted_compounds(self) -> frozenset[str]:
        return self.text_chooser.fitted_compounds

    def describe(self) -> dict[str, Any]:
        return {"system": self.name, "track": TEXT_AND_IMAGES, "modality": "images", "candidate_score":
                "z(mean cosine with the two sequence images) + text_weight * z(text chooser score)",
                "text_weight": self.text_weight, "sense_and_text_scores": self.text_chooser.describe(),
                "image_model": self.model.describe()}

    def choose(self, items: Sequence[AdmireBItem]) -> list[SequenceChoice]:
        if not items:
            return []
        text_choices = self.text_chooser.choose(items)
        paths = [path for item in items
                 for path in (*sequence_paths(item), *(image_path(item.compound, c) for c in item.candidates))]
        blocks = np.split(self.model.embed_images(paths), np.cumsum([2 + len(item.candidates) for item in items])[:-1])
        choices = []
        for item, text_choice, block in zip(items, text_choices, blocks):
            coherence = (block[2:] @ block[0] + block[2:] @ block[1]) / 2
            total = zscores(coherence)
            if self.text_weight:
                missing = [c.name for c in item.candidates if c.name not in text_choice.scores]
                if missing:
                    raise SensoError(f"{self.text_chooser.name} gave no score to {item.compound!r} candidate(s) {missing}")
                total = total + self.text_weight * zscores([text_choice.scores[c.name] for c in item.candidates])
            best = int(np.argmax(total))  # first maximum: ties go to the earlier candidate
            choices.append(SequenceChoice(
                expected_item=item.candidates[best].name, sentence_type=text_choice.sentence_type,
                scores={c.name: float(s) for c, s in zip(item.candidates, total)},
                extra={"image_coherence": {c.name: float(s) for c, s in zip(item.candidates, coherence)},
                       "text_choice": text_choice.expected_item, **({"text": text_choice.extra} if text_choice.extra else {})},
            ))
        return choices
