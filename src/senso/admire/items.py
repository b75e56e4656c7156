"""Typed records of AdMIRe (SemEval-2025 Task 1) items, shared by loaders, tasks and systems."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SENTENCE_TYPES = ("idiomatic", "literal")
N_IMAGES_A = 5  # the images of a Subtask A item, ranked


@dataclass(frozen=True)
class ImageOption:
    """One candidate image: its file name, its caption (in the language the task file chose), path if on disk."""

    name: str
    caption: str
    path: Path | None = None


@dataclass(frozen=True)
class AdmireAItem:
    """Subtask A: rank 5 images for how well they show the sense of `compound` in `sentence`.

    `sentence_type` and `expected_order` are None when the split carries no gold.
    """

    compound: str
    subset: str
    sentence: str
    images: tuple[ImageOption, ...]
    lang: str = "en"
    sentence_type: str | None = None
    expected_order: tuple[str, ...] | None = None

    @property
    def image_names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.images)

    def caption(self, name: str) -> str:
        """The caption of image `name`."""
        image = next((i for i in self.images if i.name == name), None)
        if image is None:
            raise KeyError(f"{self.compound!r} has no image {name!r}")
        return image.caption


@dataclass(frozen=True)
class AdmireBItem:
    """Subtask B: pick which of 4 candidates completes the 2-image sequence, and the sense."""

    compound: str
    subset: str
    sequence_captions: tuple[str, str]
    candidates: tuple[ImageOption, ...]
    lang: str = "en"
    sentence_type: str | None = None
    expected_item: str | None = None
    sequence_paths: tuple[Path, Path] | None = None
