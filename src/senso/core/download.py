"""Downloads with pinned checksums. Nothing unverified is ever kept, nor a folder a failed download created."""

from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
import tarfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from senso.core.errors import DataError, SensoError
from senso.core.output import write_error


class DownloadError(SensoError):
    pass


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_folders(folders: list[Path]) -> None:
    """Remove `folders` (deepest first) that are still empty: what a failed download created, nothing else."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:  # not empty (another process put something there) or already gone: leave it
            return


def download(url: str, dest: str | Path, *, sha256: str | None = None, md5: str | None = None, timeout: float = 60) -> Path:
    """Fetch `url` into `dest` atomically; refuse (and delete) it if a given checksum differs."""
    dest = Path(dest)
    created = _missing_folders(dest.parent)
    tmp = dest.with_name(dest.name + f".part{os.getpid()}")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(url, timeout=timeout) as resp, tmp.open("wb") as fh:
            while chunk := resp.read(1 << 20):
                fh.write(chunk)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        tmp.unlink(missing_ok=True)
        _remove_folders(created)
        raise DownloadError(f"could not download {url} into {dest.parent}: {exc}") from exc
    for algo, expected in (("sha256", sha256), ("md5", md5)):
        if expected is None:
            continue
        digest = hashlib.new(algo)
        with tmp.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
        if digest.hexdigest() != expected.lower():
            tmp.unlink(missing_ok=True)
            _remove_folders(created)
            raise DownloadError(
                f"refusing {url}: its {algo} is {digest.hexdigest()}, expected {expected} (file not kept)"
            )
    tmp.replace(dest)
    return dest


def is_archive(path: Path) -> bool:
    return zipfile.is_zipfile(path) or tarfile.is_tarfile(path)


def unpack(archive: Path, into: Path) -> Path:
    """Extract a zip or tar archive into `into/<archive name>` (emptied first; members must stay inside it)."""
    target = into / archive.name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                resolved = (target / member).resolve()
                if not resolved.is_relative_to(target.resolve()):
                    raise DataError(archive, f"archive member {member!r} would land outside the folder it is unpacked into")
            zf.extractall(target)
    elif tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            tf.extractall(target, filter="data")
    else:
        raise DataError(archive, "not a zip or tar archive")
    return target


def place_file(src: Path, dest: Path, force: bool, flag: str) -> bool:
    """Copy `src` to `dest`: False when `dest` already holds the same bytes (nothing written); a different file
    there is never overwritten unless `force` (DataError naming it); `flag` names the folder's option in errors."""
    if dest.exists():
        if dest.is_file() and filecmp.cmp(dest, src, shallow=False):
            return False
        if not force:
            raise DataError(dest, f"already exists with different content than {src}; not overwritten (use --force to replace it)")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    except OSError as exc:
        raise write_error(dest, exc, flag) from None
    return True
