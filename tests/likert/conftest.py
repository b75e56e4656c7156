"""Fixtures shared by the Likert tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random Llama checkpoint (tests/tiny_lm.py), saved once per session."""
    from tiny_lm import save_tiny_lm

    return save_tiny_lm(tmp_path_factory.mktemp("tiny-llama"))
