"""Fixtures shared by the Likert tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random Llama checkpoint (the builders of tests/backends/test_hf.py), saved once per session."""
    sys.path.insert(0, str(REPO / "tests" / "backends"))
    from test_hf import build_model, build_tokenizer

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = build_tokenizer()
    build_model("llama", len(tokenizer)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
