"""Where data and caches live: --data-dir, then SENSO_DATA_DIR, then the user cache."""

from __future__ import annotations

import os
from pathlib import Path

from senso.core.errors import DataNotFound, SensoError


def cache_dir(create: bool = True) -> Path:
    """SENSO_CACHE_DIR, default ~/.cache/senso (response cache, converted models, downloads).

    `create=False` only names the folder (readers that find nothing there must not create it)."""
    path = Path(os.environ.get("SENSO_CACHE_DIR") or Path.home() / ".cache" / "senso").expanduser()
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SensoError(f"cannot create the cache folder {path} ({exc.strerror}); point SENSO_CACHE_DIR "
                             "at a writable folder") from None
    return path


def check_data_dir(data_dir: str | Path | None) -> None:
    """An explicit --data-dir must be an existing folder: a typo never falls back to other data."""
    if data_dir is None:
        return
    path = Path(data_dir).expanduser()
    if not path.is_dir():
        what = "is a file, not a folder" if path.exists() else "does not exist"
        raise DataNotFound(f"--data-dir {data_dir} {what}; give the folder holding the data sets "
                         "(e.g. --data-dir ../shared/data), or leave --data-dir out to use $SENSO_DATA_DIR")


def data_dir_candidates(data_dir: str | Path | None) -> list[Path]:
    """Folders searched for data, in order. An explicit folder is the only one searched (it must exist);
    otherwise SENSO_DATA_DIR, then the cache's data folder."""
    if data_dir:
        check_data_dir(data_dir)
        return [Path(data_dir).expanduser()]
    candidates: list[Path] = []
    if os.environ.get("SENSO_DATA_DIR"):
        candidates.append(Path(os.environ["SENSO_DATA_DIR"]).expanduser())
    candidates.append(cache_dir(create=False) / "data")
    return candidates


def find_data_file(relative: str, data_dir: str | Path | None) -> Path | None:
    """First existing `<candidate>/<relative>`, or None."""
    for base in data_dir_candidates(data_dir):
        path = base / relative
        if path.exists():
            return path
    return None
