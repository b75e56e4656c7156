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
from senso.core.overlap import is_seen, overlap_summary as core_summary


def text_sha(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def _options(item: Any) -> list[Any]:
    """The images (Subtask A) or candidates (B) of an item that have a caption."""
    options = getattr(item, "images", ()) or getattr(item, "candidates", ())
    return [o for o in options if o.caption and o.caption.strip()]


def item_captions(item: Any) -> list[str]:
    """The non-empty captions of an item (Subtask A: its five images; B: the candidates and the sequence)."""
    sequence = [c for c in getattr(item, "sequence_captions", ()) if isinstance(c, str) and c.strip()]
    return [o.caption for o in _options(item)] + sequence


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
        sentences = [i.sentence for i in items if getattr(i, "sentence", None)]
        return cls(frozenset(i.compound for i in items), frozenset(text_sha(s) for s in sentences),
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


FIELD_WORDS = {"compound": "the compound", "sentence": "the sentence", "captions": "identical captions"}


def overlap_summary(overlaps: Sequence[dict[str, Any]], index: TrainingIndex, scored: bool = True) -> dict[str, Any]:
    """results.json's `overlap` (`senso.core.overlap.overlap_summary`) of AdMIRe items (`scored`: with gold)."""
    return core_summary(overlaps, index.known, index.source, FIELD_WORDS, scored)


@dataclass(frozen=True)
class OverlapRow:
    """One evaluation item that shares something with the training data (`senso data overlap`): its compound,
    the training items' subsets with that compound, whether its sentence is a training sentence, and its
    identical captions as (its image, the training image with that caption; None when only hashes are known)."""

    compound: str
    seen_in: tuple[str, ...]
    sentence: bool | None
    captions: tuple[tuple[str, str | None], ...]


def overlap_rows(eval_items: Sequence[Any], training: Sequence[tuple[str, Any]] | TrainingIndex) -> list[OverlapRow]:
    """Every evaluation item sharing a compound, sentence or caption with `training` ((split, item) pairs, or a
    model file's `TrainingIndex`), in the evaluation split's order."""
    pairs = [] if isinstance(training, TrainingIndex) else list(training)
    index = training if isinstance(training, TrainingIndex) else TrainingIndex.from_items([i for _, i in pairs], "")
    subsets: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for split, item in pairs:
        subsets.setdefault(item.compound, []).append(split)
        names.update({text_sha(o.caption): o.name for o in _options(item)})
    rows = []
    for item in eval_items:
        shared = item_overlap(item, index)
        captions = tuple((o.name, names.get(text_sha(o.caption))) for o in _options(item)
                         if index.captions is not None and text_sha(o.caption) in index.captions)
        if is_seen(shared):
            seen_in = tuple(subsets.get(item.compound, ("model file",) if shared["compound"] else ()))
            rows.append(OverlapRow(item.compound, seen_in, shared["sentence"], captions))
    return rows
