"""Features of a pair of usages from their encoder vectors: the target's cosine at each layer (optionally after
centring, "all-but-the-top": the training usages' mean target vector per layer subtracted), the sentences'
cosine, and lemma-level statistics read from the pairs alone (never from gold)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.wic.items import WicPair
from senso.wic.systems.encoder import UsageEncoder, UsageVectors


def rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of a[i, ..., :] and b[i, ..., :] over the last axis (0 where a vector is zero)."""
    dot = (a * b).sum(-1)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return np.where(norms > 0, dot / np.where(norms > 0, norms, 1.0), 0.0)


def encode_pairs(encoder: UsageEncoder, pairs: Sequence[WicPair]) -> tuple[UsageVectors, UsageVectors]:
    """The vectors of each pair's first and second usage (each distinct usage computed once)."""
    usages = [p.first for p in pairs] + [p.second for p in pairs]
    sources = [p.source or p.pair_id for p in pairs] * 2
    both = encoder.encode(usages, sources)
    n = len(pairs)
    return (UsageVectors(both.target[:n], both.sentence[:n]), UsageVectors(both.target[n:], both.sentence[n:]))


def target_mean(first: UsageVectors, second: UsageVectors) -> np.ndarray:
    """(layers + 1, hidden): the mean target vector per layer over every usage given (centring's offset)."""
    return np.concatenate([first.target, second.target]).mean(axis=0)


def target_cosines(first: UsageVectors, second: UsageVectors, offset: np.ndarray | None) -> np.ndarray:
    """(n, layers + 1): the target's cosine at each layer, after subtracting `offset` (None: raw)."""
    a, b = first.target, second.target
    if offset is not None:
        a, b = a - offset, b - offset
    return rowwise_cosine(a, b)


def sentence_cosines(first: UsageVectors, second: UsageVectors) -> np.ndarray:
    """(n, layers + 1): the two sentences' mean-pooled states' cosine at each layer."""
    return rowwise_cosine(first.sentence, second.sentence)


def check_layers(layers: Sequence[int], n_layers: int, owner: str) -> list[int]:
    """`layers` as indices into the encoder's layers + 1 states; out of range is a SensoError naming `owner`."""
    bad = [layer for layer in layers if not 0 <= layer <= n_layers]
    if bad or not layers:
        raise SensoError(f"{owner}: layers are 0 (the embeddings) to {n_layers}, at least one; got {tuple(layers)}")
    return list(layers)


def lemma_relative(values: np.ndarray, lemmas: Sequence[str]) -> np.ndarray:
    """Each value minus the mean of the values of its lemma's pairs (among those given: no gold is read)."""
    groups: dict[str, list[int]] = {}
    for index, lemma in enumerate(lemmas):
        groups.setdefault(lemma, []).append(index)
    out = np.empty_like(values)
    for indices in groups.values():
        out[indices] = values[indices] - values[indices].mean(axis=0)
    return out
