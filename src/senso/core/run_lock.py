"""While a run writes its folder: one writer at a time, and SIGTERM stops it as Ctrl-C does.

- `RunLock(folder)`: an exclusive lock on `folder/.senso-run.lock` (POSIX `flock`, so the system frees it
  when its holder dies however it dies). A second writer is refused with the holder's pid, start time and
  command; a lock file left by a dead holder is taken over, and `acquire` says so. `check_free(folder)` asks
  the same question early (with the options, before any model loads), without taking the lock.
- `signals_interrupt()`: inside the block, SIGTERM raises `Stopped` (a KeyboardInterrupt, as SIGINT raises),
  so the code that catches Ctrl-C handles both. Only the main thread can install signal handlers; elsewhere
  (a thread pool) the block changes nothing.

`senso.core.records.RunWriter` uses both (and `RunOptions.validate` `check_free`); nothing else needs to.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import signal
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from senso.core.errors import SensoError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: folders are not locked, and the run says so
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".senso-run.lock"
BUSY_TRIES, BUSY_PAUSE_S = 5, 0.05  # a lock held longer than this by a live process is a running run
STOP_SIGNALS = (signal.SIGTERM,)  # SIGINT already raises KeyboardInterrupt


class Stopped(KeyboardInterrupt):
    """SIGTERM (or another stop signal) arrived; `signum` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def interrupt_signal(exc: BaseException) -> int:
    """The signal behind a KeyboardInterrupt: SIGTERM for `Stopped`, else SIGINT (Ctrl-C)."""
    return getattr(exc, "signum", signal.SIGINT)


def _raise_stopped(signum: int, frame: Any) -> None:
    raise Stopped(signum)


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """SIGTERM raises `Stopped` inside the block; the previous handlers come back after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _raise_stopped) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _holder_text(holder: dict[str, Any]) -> str:
    if not holder.get("pid"):
        return "pid unknown"
    host = holder.get("host")
    where = f" on {host}" if host and host != socket.gethostname() else ""
    since = f", since {holder['started']}" if holder.get("started") else ""
    command = f": {holder['command']}" if holder.get("command") else ""
    return f"pid {holder['pid']}{where}{since}{command}"


def _read_holder(fd: int) -> dict[str, Any]:
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 65536)
    try:
        holder = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return {"pid": None}
    return holder if isinstance(holder, dict) else {"pid": None}


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def busy(folder: Path, holder: dict[str, Any], flag: str) -> SensoError:
    return SensoError(f"{folder} is being written by another senso run ({_holder_text(holder)}); "
                      f"wait for it to finish, or give {flag} another folder")


def _try_lock(fd: int, kind: int, tries: int = 1) -> bool:
    """flock(kind) without waiting, tried `tries` times a moment apart (a `check_free` holds its shared lock
    for an instant only)."""
    for attempt in range(tries):
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except OSError:
            if attempt + 1 < tries:
                time.sleep(BUSY_PAUSE_S)
    return False


def check_free(folder: str | Path, flag: str = "--out") -> None:
    """SensoError naming the holder when a run is writing `folder` now; checked with the options, before any
    model loads (the run's own `RunLock.acquire` is what guarantees it). Creates and removes nothing."""
    path = Path(folder) / LOCK_NAME
    if fcntl is None or not path.is_file():
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return  # gone meanwhile, or unreadable: the run's own lock decides
    try:
        if not _try_lock(fd, fcntl.LOCK_SH):
            raise busy(Path(folder), _read_holder(fd), flag)
    finally:
        os.close(fd)


class RunLock:
    """The exclusive lock of one run folder (`LOCK_NAME` inside it); `command` is recorded for whoever is refused."""

    def __init__(self, folder: str | Path, command: str = "", flag: str = "--out"):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.command = command
        self.flag = flag
        self._fd: int | None = None

    def acquire(self) -> str | None:
        """Take the lock; SensoError naming the holder when a live run has it. Returns a note when a lock file
        left by a dead run was taken over (None otherwise)."""
        if fcntl is None:  # pragma: no cover
            return f"{self.folder} is not locked (no flock on this system): do not start two runs into it at once"
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            if not _try_lock(fd, fcntl.LOCK_EX, tries=BUSY_TRIES):
                holder = _read_holder(fd)
                os.close(fd)
                raise busy(self.folder, holder, self.flag)
            if _same_file(fd, self.path):
                break
            os.close(fd)  # its holder removed the file as we opened it: lock the one there now
        left = _read_holder(fd)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                                 "started": _dt.datetime.now().isoformat(timespec="seconds")}).encode("utf-8"))
        self._fd = fd
        if not left:
            return None
        return (f"took over the lock of {self.folder} left by a run that is no longer running ({_holder_text(left)}): "
                "it was killed or crashed before it finished")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> "RunLock":
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
