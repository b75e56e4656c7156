"""Where data and caches live: --data-dir, then SENSO_DATA_DIR, then the user cache."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """SENSO_CACHE_DIR, default ~/.cache/senso (response cache, converted models, downloads)."""
    path = Path(os.environ.get("SENSO_CACHE_DIR") or Path.home() / ".cache" / "senso").expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir_candidates(data_dir: str | Path | None) -> list[Path]:
    """Folders searched for data, in order: the explicit one, SENSO_DATA_DIR, the cache's data folder."""
    candidates: list[Path] = []
    if data_dir:
        candidates.append(Path(data_dir).expanduser())
    if os.environ.get("SENSO_DATA_DIR"):
        candidates.append(Path(os.environ["SENSO_DATA_DIR"]).expanduser())
    candidates.append(cache_dir() / "data")
    return candidates


def find_data_file(relative: str, data_dir: str | Path | None) -> Path | None:
    """First existing `<candidate>/<relative>`, or None."""
    for base in data_dir_candidates(data_dir):
        path = base / relative
        if path.exists():
            return path
    return None
