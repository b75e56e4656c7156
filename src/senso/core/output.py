"""Files and folders senso writes where the user said (`-o`, `--out`, `--data-dir`): checked before anything
slow starts, written beside the target and renamed (no reader ever sees half a file), and any OSError is a
SensoError naming the path, why it failed and the flag that chose it.

- `check_output_file(path, flag)` / `check_output_folder(path, flag)`: can it be written? (nothing is left behind)
- `make_folder(path, flag)`: the folder, with its parents
- `atomic_file(path, flag)`: a context manager yielding an open temporary file, renamed onto `path` on success
- `write_text(path, text, flag)` / `write_bytes(path, data, flag)`: one call each
"""

from __future__ import annotations

import errno
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from senso.core.errors import SensoError


def write_error(path: str | Path, exc: OSError, flag: str | None = None) -> SensoError:
    """The error for a path that cannot be written: the path, the system's reason, and the fix."""
    blocker = next((parent for parent in Path(path).parents if parent.is_file()), None)
    reason = f"{blocker} is a file, not a folder" if blocker else (exc.strerror or str(exc))
    where = f"give {flag} a path in a folder you can write to" if flag else "choose a path in a folder you can write to"
    return SensoError(f"cannot write {path} ({reason}); {where}")


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")


def _probe(folder: Path, target: Path, flag: str | None) -> None:
    """Create and remove a file in `folder` (permissions alone do not tell: root, read-only mounts, /proc)."""
    if not folder.is_dir():
        raise write_error(target, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)), flag)
    try:
        fd, probe = tempfile.mkstemp(prefix=".senso-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise write_error(target, exc, flag) from None


def check_output_file(path: str | Path, flag: str | None = None) -> None:
    """SensoError now, before anything slow, when `path` cannot be written as a file."""
    path = Path(path)
    if path.is_dir():
        raise SensoError(f"cannot write {path}: it is a folder; give {flag or 'the output'} a file name")
    _probe(_existing_ancestor(path.parent), path, flag)


def check_output_folder(path: str | Path, flag: str | None = None) -> None:
    """SensoError now, before anything slow, when files cannot be written in the folder `path`."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise SensoError(f"{flag + ' ' if flag else ''}{path} is a file; give a folder")
    _probe(_existing_ancestor(path), path, flag)


def make_folder(path: str | Path, flag: str | None = None) -> Path:
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(path, exc, flag) from None
    return path


@contextmanager
def atomic_file(path: str | Path, flag: str | None = None, binary: bool = False,
                newline: str | None = None) -> Iterator[IO]:
    """An open file beside `path` (`NAME.PID.tmp`), renamed onto `path` when the block ends without an
    exception, removed when it does not; an OSError becomes a SensoError naming `path` and `flag`."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with (tmp.open("wb") if binary else tmp.open("w", encoding="utf-8", newline=newline)) as fh:
            yield fh
        tmp.replace(path)
    except OSError as exc:
        raise write_error(path, exc, flag) from None
    finally:
        if tmp.is_file():
            tmp.unlink()


def write_text(path: str | Path, text: str, flag: str | None = None) -> Path:
    with atomic_file(path, flag) as fh:
        fh.write(text)
    return Path(path)


def write_bytes(path: str | Path, data: bytes, flag: str | None = None) -> Path:
    with atomic_file(path, flag, binary=True) as fh:
        fh.write(data)
    return Path(path)
