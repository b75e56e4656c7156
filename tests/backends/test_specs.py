"""Model specs BACKEND:NAME."""

from __future__ import annotations

import sys

import pytest

from senso.backends.specs import ModelSpec, load_loglikelihood_model, parse_model_spec
from senso.core.errors import SensoError


@pytest.mark.parametrize("spec", [None, "", "gemma3-270m", " gemma3-270m "])
def test_no_spec_or_bare_default_name_is_the_builtin_model(spec):
    parsed = parse_model_spec(spec)
    assert parsed == ModelSpec("default", "gemma3-270m")
    assert parsed.is_default
    assert str(parsed) == "gemma3-270m"


@pytest.mark.parametrize("spec, backend, name", [
    ("hf:google/gemma-3-270m", "hf", "google/gemma-3-270m"),
    ("hf:/path/to/dir", "hf", "/path/to/dir"),
    ("hf:/path/with:colon", "hf", "/path/with:colon"),
    ("openai:served-name", "openai", "served-name"),
    ("openai:org/model:tag", "openai", "org/model:tag"),
    ("google/gemma-3-270m", "hf", "google/gemma-3-270m"),
    ("/abs/path:odd", "hf", "/abs/path:odd"),
])
def test_backend_and_name(spec, backend, name):
    parsed = parse_model_spec(spec)
    assert (parsed.backend, parsed.name) == (backend, name)
    assert not parsed.is_default


def test_bare_name_takes_the_default_backend():
    assert parse_model_spec("served-name", default_backend="openai") == ModelSpec("openai", "served-name")


@pytest.mark.parametrize("spec", ["hf:", "openai:", "vllm:some-model"])
def test_bad_specs_are_clear_errors(spec):
    with pytest.raises(SensoError, match="model spec"):
        parse_model_spec(spec)


def test_openai_backend_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "senso.backends.openai", None)  # makes the import fail
    with pytest.raises(SensoError, match="openai backend is not available"):
        load_loglikelihood_model("openai:served-name")


def test_hf_backend_takes_no_server_options():
    with pytest.raises(SensoError, match="no options"):
        load_loglikelihood_model("hf:/nowhere", base_url="http://127.0.0.1:1")
