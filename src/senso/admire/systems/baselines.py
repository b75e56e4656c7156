"""Two simple AdMIRe systems that prove the pipeline: a seeded random baseline (Subtasks A and B) and
sentence-caption cosine similarity (Subtask A, text-only).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

import numpy as np

from senso.backends.embedders import Embedder
from senso.core.options import DEFAULT_BATCH_SIZE, check_batch_size
from senso.admire.items import SENTENCE_TYPES, AdmireAItem, AdmireBItem
from senso.admire.systems.base import Ranking, SequenceChoice, ranking_by_scores


def item_rng(seed: int, *parts: str) -> np.random.Generator:
    """A Generator seeded by (seed, parts): each item's draw depends on the item alone, not on order or batch."""
    digest = hashlib.sha256(json.dumps([seed, *parts], ensure_ascii=False).encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


class _SeededRandom:
    """A chance baseline whose draws for an item depend on (seed, the item) alone."""

    name = "random"
    fitted_compounds: frozenset[str] = frozenset()
    uses_images = False
    method = ""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "seed": self.seed, "method": self.method}


class RandomRanker(_SeededRandom):
    """Subtask A baseline: a uniformly random order per item (expected Top-1 0.2, DCG 2.3588)."""

    method = "uniform random score per image from a Generator seeded by (seed, compound, sentence)"

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        return [ranking_by_scores(item.image_names,
                                  item_rng(self.seed, item.compound, item.sentence).random(len(item.images)).tolist())
                for item in items]


class RandomChooser(_SeededRandom):
    """Subtask B baseline: a uniformly random candidate and sentence type per item."""

    method = "uniform random candidate and sentence type from a Generator seeded by (seed, compound)"

    def choose(self, items: Sequence[AdmireBItem]) -> list[SequenceChoice]:
        choices = []
        for item in items:
            rng = item_rng(self.seed, item.compound, *item.sequence_captions)
            draws = rng.random(len(item.candidates))
            names = [c.name for c in item.candidates]
            sentence_type = SENTENCE_TYPES[int(rng.integers(len(SENTENCE_TYPES)))]
            choices.append(SequenceChoice(expected_item=ranking_by_scores(names, draws.tolist()).order[0], sentence_type=sentence_type,
                                          scores=dict(zip(names, draws.tolist()))))
        return choices


class CaptionSimilarityRanker:
    """Subtask A, text-only: rank the 5 captions by cosine similarity to the sentence.

    The sentence is embedded as a query and the captions as passages (e5's asymmetric prefixes);
    captions are in the item's caption language. Embeddings are cached by model, kind and text.
    """

    name = "caption-similarity"
    fitted_compounds: frozenset[str] = frozenset()
    uses_images = False

    def __init__(self, embedder: Embedder, batch_size: int = DEFAULT_BATCH_SIZE):
        self.embedder = embedder
        self.batch_size = check_batch_size(batch_size)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "embedder": self.embedder.spec, "embedder_fingerprint": self.embedder.fingerprint,
                "query": "the sentence (kind=query)", "passages": "each image caption (kind=passage)",
                "score": "cosine similarity; ties keep the file's image order"}

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        # Items go to the embedder `batch_size` at a time, so each batch is cached as soon as it is done and a
        # killed run resumes where it stopped; embeddings do not depend on batch composition.
        rankings: list[Ranking] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start:start + self.batch_size]
            queries = self.embedder.embed([item.sentence for item in batch], kind="query")
            passages = self.embedder.embed([item.caption(name) for item in batch for name in item.image_names],
                                           kind="passage")
            blocks = np.split(passages, np.cumsum([len(item.image_names) for item in batch])[:-1])
            rankings += [ranking_by_scores(item.image_names, (block @ query).tolist())
                         for item, query, block in zip(batch, queries, blocks)]
        return rankings
