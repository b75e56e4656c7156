"""Downloads with pinned checksums. Nothing unverified is ever kept."""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path

from senso.core.errors import SensoError


class DownloadError(SensoError):
    pass


def download(url: str, dest: str | Path, *, sha256: str | None = None, md5: str | None = None, timeout: float = 60) -> Path:
    """Fetch `url` into `dest` atomically; refuse (and delete) it if a given checksum differs."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".part{os.getpid()}")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, tmp.open("wb") as fh:
            while chunk := resp.read(1 << 20):
                fh.write(chunk)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        tmp.unlink(missing_ok=True)
        raise DownloadError(f"could not download {url}: {exc}") from exc
    for algo, expected in (("sha256", sha256), ("md5", md5)):
        if expected is None:
            continue
        digest = hashlib.new(algo)
        with tmp.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
        if digest.hexdigest() != expected.lower():
            tmp.unlink(missing_ok=True)
            raise DownloadError(
                f"refusing {url}: its {algo} is {digest.hexdigest()}, expected {expected} (file not kept)"
            )
    tmp.replace(dest)
    return dest
