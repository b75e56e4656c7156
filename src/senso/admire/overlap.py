"""What scored AdMIRe items share with a fitted system's training data: compound, sentence, captions.

AdMIRe's extended evaluation split (xeval) holds the 70 train, 15 dev and 15 test compounds again, each with the
opposite sentence type and exactly the captions of that compound's earlier item. A system fitted on EN train+dev
has seen 85 of its 100 items' captions with their roles; its score on them says what it remembers, not how it
generalises. Every run of a fitted system records, per item, what it shares with the training items
(`item_overlap`), and reports the metrics on the items that share nothing (`unseen`) beside the all-items figure.

Texts are compared exactly (after stripping outer whitespace) through their sha256, so a model file can record
its training items without holding their text (`training_records`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from senso.admire.items import AdmireAItem

OVERLAP_FIELDS = ("compound", "sentence", "captions")


def text_sha(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def item_captions(item: Any) -> list[str]:
    """The non-empty captions of an item (Subtask A: its five images; B: the sequence and the candidates)."""
    options = list(getattr(item, "images", ()) or getattr(item, "candidates", ()))
    sequence = [c for c in getattr(item, "sequence_captions", ()) if isinstance(c, str)]
    return [c for c in [*(o.caption for o in options), *sequence] if c and c.strip()]


def training_records(items: Sequence[AdmireAItem]) -> list[dict[str, Any]]:
    """What a model file keeps of each training item: its compound and the sha256 of its sentence and captions."""
    return [{"compound": i.compound, "sentence_sha256": text_sha(i.sentence),
             "caption_sha256": [text_sha(c) for c in item_captions(i)]} for i in items]


@dataclass(frozen=True)
class TrainingIndex:
    """The training data of a fitted system as overlap needs it: its compounds and, when known, the sha256 of
    its sentences and captions (None: unknown, e.g. a model file written before senso recorded them)."""

    compounds: frozenset[str]
    sentences: frozenset[str] | None
    captions: frozenset[str] | None
    source: str  # where the training data was read from, in words

    @classmethod
    def from_items(cls, items: Iterable[Any], source: str) -> "TrainingIndex":
        items = list(items)
        return cls(frozenset(i.compound for i in items), frozenset(text_sha(i.sentence) for i in items),
                   frozenset(text_sha(c) for i in items for c in item_captions(i)), source)

    @classmethod
    def from_document(cls, document: dict[str, Any], source: str) -> "TrainingIndex":
        """From a `senso fit admire-a` file: its `training_items` records, else its compounds alone."""
        records = document.get("training_items")
        if records is None:
            return cls(frozenset(document.get("compounds", ())), None, None,
                       f"{source} (compounds only: the file predates per-item records)")
        return cls(frozenset(r["compound"] for r in records), frozenset(r["sentence_sha256"] for r in records),
                   frozenset(h for r in records for h in r["caption_sha256"]), source)

    @property
    def known(self) -> tuple[str, ...]:
        return ("compound", *(("sentence",) if self.sentences is not None else ()),
                *(("captions",) if self.captions is not None else ()))


def item_overlap(item: Any, index: TrainingIndex) -> dict[str, Any]:
    """What `item` shares with the training data: `compound` (bool), `sentence` (bool; None when unknown) and
    `captions` (how many of its captions are identical to a training caption; None when unknown)."""
    sentence = getattr(item, "sentence", None)
    return {
        "compound": item.compound in index.compounds,
        "sentence": None if index.sentences is None or sentence is None else text_sha(sentence) in index.sentences,
        "captions": None if index.captions is None else sum(text_sha(c) in index.captions for c in item_captions(item)),
    }


def is_seen(overlap: dict[str, Any]) -> bool:
    """Whether an item shares anything known with the training data."""
    return bool(overlap["compound"] or overlap["sentence"] or overlap["captions"])


def overlap_summary(overlaps: Sequence[dict[str, Any]], index: TrainingIndex) -> dict[str, Any]:
    """results.json's `overlap`: the training data, the fields compared, how many items share each, seen/unseen."""
    seen = sum(is_seen(o) for o in overlaps)
    shared = {f: sum(bool(o[f]) for o in overlaps) for f in index.known}
    return {"training": index.source, "compared": list(index.known), "n": len(overlaps), "n_seen": seen,
            "n_unseen": len(overlaps) - seen, "shared": shared, "why": overlap_sentence(len(overlaps), seen, shared)}


def overlap_sentence(n: int, seen: int, shared: dict[str, int]) -> str:
    """The one sentence the terminal, results.json and the report page give."""
    if not seen:
        return f"None of the {n} items shares a compound, sentence or caption with the system's training data."
    parts = ", ".join(f"{k} {f if f != 'captions' else 'identical captions'}" for f, k in shared.items() if k)
    return (f"The system was fitted on data sharing material with {seen} of these {n} items ({parts}), so the "
            f"headline is the {n - seen} unseen items; the all-items figure is beside it, inflated by what it saw.")
