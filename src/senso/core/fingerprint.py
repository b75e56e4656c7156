"""Model fingerprints that stay cheap for very large models.

A local folder or file: sha256 over (relative path, size, content sha256) of each file, where each
file's content hash is cached by (absolute path, size, mtime) so a 70B checkpoint is hashed once.
A hub name: the hub's recorded file hashes (LFS sha256 / git blob id) when the hub is reachable,
else the local snapshot in the Hugging Face cache, else a FingerprintError (never the name alone).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

from senso.core.errors import DataError, SensoError
from senso.core.paths import cache_dir

_CHUNK = 1 << 20


def file_sha256(path: str | Path, kind: str = "") -> str:
    """sha256 of a file's bytes, as hex; a DataError naming the file when it is missing or unreadable
    (`kind`, e.g. "image", says what the file should have been)."""
    what = f"{kind} file" if kind else "file"
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
    except FileNotFoundError:
        raise DataError(path, f"{what} not found") from None
    except OSError as err:
        raise DataError(path, f"cannot read {what}: {err}") from None
    return digest.hexdigest()


def _read_memo(name: str) -> dict:
    """The JSON memo file `name` of the cache folder, or {} when it is missing or unreadable."""
    try:
        memo = json.loads((cache_dir(create=False) / name).read_text())
    except (OSError, ValueError):
        return {}
    return memo if isinstance(memo, dict) else {}


def _write_memo(name: str, memo: dict) -> None:
    """Writes the memo file atomically; a cache folder that cannot be written is skipped (a memo is never required)."""
    path = cache_dir(create=False) / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(memo))
        tmp.replace(path)
    except OSError:
        pass


def remembered(name: str, key: str, compute: Callable[[], Any], memo: bool = True) -> Any:
    """`compute()`, remembered under `key` in the cache folder's JSON memo file `name` (its value must be JSON):
    a result already recorded for this exact key is returned without computing. `memo=False` touches no file."""
    known = _read_memo(name) if memo else {}
    if key in known:
        return known[key]
    value = compute()
    if memo:
        known = _read_memo(name)  # another process may have added its own keys meanwhile
        known[key] = value
        _write_memo(name, known)
    return value


def _indexed_file_sha256(path: Path, memo: bool = True) -> str:
    """file_sha256, remembered by (absolute path, size, mtime) in the cache folder's file_hashes.json so a
    large checkpoint is hashed once (a memo only: never required, and a cache folder that cannot be written
    is skipped). `memo=False` touches no cache file."""
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    return remembered("file_hashes.json", key, lambda: file_sha256(path), memo)


def path_fingerprint(path: str | Path, memo: bool = True) -> str:
    """Content fingerprint of a file or folder (hidden files skipped)."""
    root = Path(path)
    files = [root] if root.is_file() else sorted(
        p for p in root.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    digest = hashlib.sha256()
    for file in files:
        rel = file.name if root.is_file() else str(file.relative_to(root))
        digest.update(f"{rel}\0{file.stat().st_size}\0{_indexed_file_sha256(file, memo)}\n".encode())
    return "sha256:" + digest.hexdigest()


class FingerprintError(SensoError):
    """A model whose files cannot be fingerprinted: a run never records a name where a fingerprint belongs."""


def hub_fingerprint(name: str, revision: str | None = None) -> str:
    """Fingerprint of a hub model from the hub's recorded file hashes, else from its snapshot in the Hugging Face
    cache; a FingerprintError naming the model and why each failed when neither is available."""
    import httpx2
    from huggingface_hub import HfApi, snapshot_download

    try:
        info = HfApi().model_info(name, revision=revision, files_metadata=True)
    except (OSError, ValueError, httpx2.TransportError) as exc:  # offline, unreachable, unknown, gated: the local snapshot
        hub_failure = f"{type(exc).__name__}: {exc}"
    else:
        parts = []
        for sib in sorted(info.siblings or [], key=lambda s: s.rfilename):
            lfs = getattr(sib, "lfs", None)
            sha = (lfs.sha256 if lfs is not None else None) or getattr(sib, "blob_id", None) or ""
            parts.append(f"{sib.rfilename}\0{sha}")
        return "hub:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()
    try:
        local = snapshot_download(name, revision=revision, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise FingerprintError(
            f"cannot fingerprint the hub model {name!r}: the hub gave no file hashes ({hub_failure}) and the Hugging "
            f"Face cache holds no snapshot of it ({type(exc).__name__}: {exc}); download it once online, or give its "
            "local folder") from None
    return path_fingerprint(local)
