"""The encoder's usage vectors: sub-word tokens found by character offsets, states of every layer, the cache."""

from __future__ import annotations

import numpy as np
import pytest

from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.wic.items import Usage
from senso.wic.systems.encoder import UsageEncoder, cut_window, engine, target_positions

from conftest import usage


@pytest.fixture(scope="module")
def e5():
    return engine("e5-f32")


@pytest.mark.parametrize("text", ["Il  cane è un  animale .", " Sound carries well over water .",
                                  "L'età dell'oro, «perché» né.", "naïve café ﬁne"])
@pytest.mark.parametrize("kind", ["query", "passage"])
def test_spans_tokenise_as_the_embedder_does(e5, text, kind):
    ids, spans = e5.tokenizer.content_spans(text, kind)
    assert ids == e5.tokenizer.content_ids([text], kind)[0]
    pieces = [text[a:b] for a, b in spans if b > a]
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "").translate(e5.tokenizer._translate).replace(" ", "") \
        or len(pieces) > 0


def test_target_positions_cover_exactly_the_target(e5):
    u = usage("The wholesaler broke the container loads into palettes .", "broke")
    ids, spans = e5.tokenizer.content_spans(u.text, "query")
    found = target_positions(spans, u)
    assert "".join(u.text[a:b] for a, b in (spans[i] for i in found)) == "broke"
    assert all(spans[i][1] <= u.start or spans[i][0] >= u.end for i in range(len(spans)) if i not in found)


def test_last_layer_mean_is_the_sentence_embedding(e5):
    text = "Sound carries well over water ."
    states = e5.layer_states([e5.tokenizer.content_ids([text], "query")[0]])[0]
    assert states.shape == (e5.header.layers + 1, len(e5.tokenizer.content_ids([text], "query")[0]) + 2, 384)
    pooled = states[-1].mean(axis=0)
    assert float(pooled / np.linalg.norm(pooled) @ e5.embed([text], "query")[0]) > 0.9999


def test_a_target_outside_every_token_is_an_error_naming_its_row():
    with pytest.raises(SensoError, match="toy row 3: the target '' .*covers no token"):
        UsageEncoder().encode([Usage("A sentence .", 2, 2, "en")], ["toy row 3"])


def test_window_holds_the_target_and_stays_inside():
    assert cut_window(10, [3], 20) == (0, 10)
    assert cut_window(100, [50, 51], 20) == (40, 60)
    assert cut_window(100, [2], 20) == (0, 20)
    assert cut_window(100, [99], 20) == (80, 100)


def test_cached_vectors_are_the_computed_ones(tmp_path):
    usages = [usage("He swung the bat at the ball.", "bat"), usage("The bat flew out of the cave.", "bat")]
    cache = ResponseCache(tmp_path / "responses.sqlite")
    first = UsageEncoder(cache=cache).encode(usages)
    again = UsageEncoder(cache=cache).encode(usages)
    alone = UsageEncoder().encode(usages)
    assert cache.hits == 2
    assert np.array_equal(first.target, again.target) and np.array_equal(first.target, alone.target)
    assert first.target.shape == first.sentence.shape == (2, 13, 384)


def test_each_batch_is_reduced_before_the_next_runs_to_the_full_states_reduced(e5, monkeypatch):
    texts = ["Sound carries well over water .", "The bat flew out of the cave .", "A very long sentence " * 20]
    windows = [e5.tokenizer.content_ids([t], "query")[0] for t in texts]
    monkeypatch.setattr(e5, "batch_tokens", 12)  # one window a batch
    full = e5.layer_states(windows)
    events: list[str] = []
    forward = e5._all_layers
    monkeypatch.setattr(e5, "_all_layers", lambda batch, depth=None: events.append("pass") or forward(batch, depth))

    def first_token(index: int, states: np.ndarray) -> np.ndarray:
        events.append(f"reduce {index}")
        return states[:, 1]

    reduced = e5.layer_states(windows, first_token)
    assert events == ["pass", "reduce 2", "pass", "reduce 1", "pass", "reduce 0"]  # longest first
    assert all(np.array_equal(r, f[:, 1]) for r, f in zip(reduced, full))
