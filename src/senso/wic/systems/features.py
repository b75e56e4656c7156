"""Features of a pair of usages from their encoder vectors: the target's cosine at each layer (optionally after
centring, "all-but-the-top": the training usages' mean target vector per layer subtracted), the sentences'
cosine, and lemma-level statistics read from the pairs alone (never from gold)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.wic.items import Usage, WicPair
from senso.wic.systems.encoder import UsageEncoder, UsageVectors


def rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of a[i, ..., :] and b[i, ..., :] over the last axis (0 where a vector is zero)."""
    dot = (a * b).sum(-1)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return np.where(norms > 0, dot / np.where(norms > 0, norms, 1.0), 0.0)


def pair_usages(pairs: Sequence[WicPair]) -> tuple[list[Usage], list[str]]:
    """Every pair's first usage, then every pair's second, and the file and row each comes from."""
    return [p.first for p in pairs] + [p.second for p in pairs], [p.source or p.pair_id for p in pairs] * 2


def encode_pairs(encoder: UsageEncoder, pairs: Sequence[WicPair]) -> tuple[UsageVectors, UsageVectors]:
    """The vectors of each pair's first and second usage (each distinct usage computed once)."""
    both = encoder.encode(*pair_usages(pairs))
    n = len(pairs)
    return (UsageVectors(both.target[:n], both.sentence[:n]), UsageVectors(both.target[n:], both.sentence[n:]))


CHUNK_PAIRS = 2048  # pairs whose vectors are stacked at once: DWUG's 43,784 pairs at once took 10 GB


def in_chunks(encoder: UsageEncoder, pairs: Sequence[WicPair],
              rows: Callable[[Sequence[WicPair]], np.ndarray]) -> np.ndarray:
    """`rows(pairs)` computed CHUNK_PAIRS pairs at a time and stacked: the same rows (each pair's features are its
    own, and every usage is encoded first, in one call, as without chunks), with only one chunk's (pairs, layers,
    hidden) vectors held at once."""
    if len(pairs) <= CHUNK_PAIRS:
        return rows(pairs)
    encoder.prepare(*pair_usages(pairs))
    return np.concatenate([rows(pairs[start:start + CHUNK_PAIRS]) for start in range(0, len(pairs), CHUNK_PAIRS)])


def usage_means(encoder: UsageEncoder, pairs: Sequence[WicPair]) -> tuple[np.ndarray, np.ndarray]:
    """(layers + 1, hidden) each: the mean target vector and the mean sentence vector per layer over every usage of
    `pairs` (centring's offsets), summed a chunk of pairs at a time."""
    if not pairs:
        raise SensoError("a system is fit on at least one pair; none was given")
    target_sum = sentence_sum = 0.0
    encoder.prepare(*pair_usages(pairs))
    for start in range(0, len(pairs), CHUNK_PAIRS):
        for usages in encode_pairs(encoder, pairs[start:start + CHUNK_PAIRS]):
            target_sum = target_sum + usages.target.sum(axis=0, dtype=np.float64)
            sentence_sum = sentence_sum + usages.sentence.sum(axis=0, dtype=np.float64)
    count = 2 * len(pairs)
    return (target_sum / count).astype(np.float32), (sentence_sum / count).astype(np.float32)


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
