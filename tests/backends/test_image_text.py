"""Image-text backends on tiny random models built here: specs, shapes, batching, caching, errors."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from image_models import TINY_OPEN_CLIP_CFG, open_clip_module, tiny_hf_dir, tiny_open_clip_dir, write_png
from senso.backends.cached import with_cache
from senso.backends.image_text import ImageModelSpec, ImageTextModel, parse_image_model, weights_fingerprint
from senso.core.errors import DataError, SensoError
from senso.core.cache import ResponseCache

pytestmark = pytest.mark.images

COLORS = [(200, 20, 20), (20, 200, 20), (20, 20, 200), (220, 220, 30), (10, 10, 10), (120, 60, 200)]
TEXTS = ["a dog in the water", "dirty money", "the big fish of the office", "a red house", "people", "a cat"]


@pytest.fixture
def pngs(tmp_path):
    return [write_png(tmp_path / "img" / f"{i}.png", c, stripe=3 * i) for i, c in enumerate(COLORS)]


def test_parse_image_model_forms():
    assert parse_image_model("ViT-B-32:openai") == ImageModelSpec("open_clip", "ViT-B-32", "openai")
    assert parse_image_model("open_clip:ViT-B-32:openai") == ImageModelSpec("open_clip", "ViT-B-32", "openai")
    assert parse_image_model("open_clip:ViT-L-14:/ckpt/a:b.pt") == ImageModelSpec("open_clip", "ViT-L-14", "/ckpt/a:b.pt")
    assert parse_image_model("open_clip:local-dir:/m") == ImageModelSpec("open_clip", "local-dir:/m")
    assert parse_image_model("hf-hub:timm/x") == ImageModelSpec("open_clip", "hf-hub:timm/x")
    assert parse_image_model("hf:openai/clip-vit-base-patch32") == ImageModelSpec("hf", "openai/clip-vit-base-patch32")
    assert str(parse_image_model("ViT-B-32:openai")) == "open_clip:ViT-B-32:openai"
    for bad in ("ViT-B-32", "hf:", "open_clip:local-dir:", ":openai"):
        with pytest.raises(SensoError):
            parse_image_model(bad)


@pytest.mark.parametrize("kind", ["clip", "siglip"])
def test_hf_model_shapes_batching_and_cache(tmp_path, pngs, kind):
    folder = tiny_hf_dir(tmp_path / kind, kind)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    one = ImageTextModel(f"hf:{folder}", batch_size=1)
    images = one.embed_images(pngs)
    texts = one.embed_texts(TEXTS)
    dim = 8 if kind == "clip" else 16
    assert images.shape == (len(pngs), dim) and texts.shape == (len(TEXTS), dim)
    assert np.allclose(np.linalg.norm(images, axis=1), 1, atol=1e-5)
    assert one.computed == len(pngs) + len(TEXTS)
    # Batch size and order change nothing beyond float rounding.
    many = with_cache(ImageTextModel(f"hf:{folder}", batch_size=4), cache)
    assert np.allclose(many.embed_images(pngs[::-1])[::-1], images, atol=1e-5)
    assert np.allclose(many.embed_texts(TEXTS[::-1])[::-1], texts, atol=1e-5)
    # Distinct inputs give distinct embeddings (the model is not constant).
    assert np.abs(images[0] - images[1]).max() > 1e-3 and np.abs(texts[0] - texts[1]).max() > 1e-3
    # A second model object on the same cache computes nothing and builds no model.
    again = with_cache(ImageTextModel(f"hf:{folder}", batch_size=2), cache)
    sims = again.similarity(TEXTS, pngs)
    assert again.computed == 0 and again.encoder is None
    assert np.allclose(sims, texts @ images.T, atol=1e-5)


def test_hf_model_records_truncation(tmp_path):
    folder = tiny_hf_dir(tmp_path / "clip")
    long_text = " ".join(["dog"] * 40)
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = with_cache(ImageTextModel(f"hf:{folder}"), cache)
    model.embed_texts([long_text, "a dog"])
    assert model.truncated_texts == {long_text}
    cached = with_cache(ImageTextModel(f"hf:{folder}"), cache)
    cached.embed_texts([long_text, "a dog"])
    assert cached.computed == 0 and cached.truncated_texts == {long_text}


def test_cache_is_keyed_by_content_and_model(tmp_path, pngs):
    folder = tiny_hf_dir(tmp_path / "a", seed=0)
    other = tiny_hf_dir(tmp_path / "b", seed=1)
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = with_cache(ImageTextModel(f"hf:{folder}"), cache)
    first = model.embed_images(pngs[:1])
    renamed = shutil.copy(pngs[0], tmp_path / "renamed.png")  # xeval reuses pictures under new names
    fresh = with_cache(ImageTextModel(f"hf:{folder}"), cache)
    assert np.array_equal(fresh.embed_images([renamed]), first) and fresh.computed == 0
    different = with_cache(ImageTextModel(f"hf:{other}"), cache)
    assert different.fingerprint != model.fingerprint
    assert not np.allclose(different.embed_images(pngs[:1]), first) and different.computed == 1


def test_missing_and_unreadable_images_are_named(tmp_path, pngs):
    folder = tiny_hf_dir(tmp_path / "clip")
    model = ImageTextModel(f"hf:{folder}")
    missing = tmp_path / "big fish" / "0123.png"
    with pytest.raises(DataError, match=r"big fish/0123\.png: image file not found"):
        model.embed_images([pngs[0], missing])
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png at all")
    with pytest.raises(DataError, match=r"broken\.png: not a readable image"):
        model.embed_images([broken])


def test_encoder_in_memory_needs_and_uses_a_fingerprint(tmp_path, pngs):
    from transformers import AutoImageProcessor, AutoModel, AutoTokenizer

    from senso.backends.image_text import HFClipEncoder

    folder = tiny_hf_dir(tmp_path / "clip")
    net = AutoModel.from_pretrained(folder)
    encoder = HFClipEncoder(net, AutoTokenizer.from_pretrained(folder), AutoImageProcessor.from_pretrained(folder, backend="pil"))
    with pytest.raises(SensoError, match="fingerprint"):
        ImageTextModel("in-memory", encoder=encoder).embed_texts(["a dog"])
    model = ImageTextModel("in-memory", encoder=encoder, fingerprint_value=weights_fingerprint(net))
    from_spec = ImageTextModel(f"hf:{folder}")
    assert np.allclose(model.embed_images(pngs), from_spec.embed_images(pngs), atol=1e-6)


def test_not_an_image_text_model_is_refused(tmp_path):
    from transformers import BertConfig, BertModel

    from image_models import tiny_tokenizer

    folder = tmp_path / "bert"
    BertModel(BertConfig(vocab_size=40, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=16)).save_pretrained(folder)
    tiny_tokenizer().save_pretrained(folder)
    from transformers import CLIPImageProcessor

    CLIPImageProcessor().save_pretrained(folder)
    with pytest.raises(SensoError, match="not an image-text model"):
        ImageTextModel(f"hf:{folder}").embed_texts(["a dog"])


def test_open_clip_local_dir(tmp_path, pngs):
    open_clip_module()
    folder = tiny_open_clip_dir(tmp_path / "oc")
    cache = ResponseCache(tmp_path / "c.sqlite")
    spec = f"open_clip:local-dir:{folder}"
    one = ImageTextModel(spec, batch_size=1)
    images, texts = one.embed_images(pngs), one.embed_texts(TEXTS)
    assert images.shape == (len(pngs), 16) and texts.shape == (len(TEXTS), 16)
    batched = with_cache(ImageTextModel(spec, batch_size=5), cache)
    assert np.allclose(batched.embed_images(pngs), images, atol=1e-5)
    assert np.allclose(batched.embed_texts(TEXTS), texts, atol=1e-5)
    again = with_cache(ImageTextModel(spec), cache)
    assert np.allclose(again.similarity(TEXTS, pngs), texts @ images.T, atol=1e-5) and again.computed == 0
    info = batched.describe()
    assert info["library"] == "open_clip" and info["context_length"] == 77


def test_open_clip_arch_with_checkpoint_file(tmp_path, pngs):
    """The `ARCH:FILE` form: a built-in architecture with weights from a file (the tiny config registered)."""
    open_clip_module()
    from open_clip.factory import _MODEL_CONFIGS

    folder = tiny_open_clip_dir(tmp_path / "oc")
    _MODEL_CONFIGS["senso-tiny-test"] = dict(TINY_OPEN_CLIP_CFG)
    try:
        model = ImageTextModel(f"senso-tiny-test:{folder / 'open_clip_model.safetensors'}")
        via_dir = ImageTextModel(f"open_clip:local-dir:{folder}")
        assert np.allclose(model.embed_images(pngs[:2]), via_dir.embed_images(pngs[:2]), atol=1e-5)
        assert model.fingerprint.startswith("open_clip:senso-tiny-test:sha256:")
        with pytest.raises(SensoError, match="no pretrained tag"):
            ImageTextModel("senso-tiny-test:no-such-tag").embed_texts(["a"])
    finally:
        _MODEL_CONFIGS.pop("senso-tiny-test", None)
