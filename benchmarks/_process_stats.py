"""Whole-process measurements for the benchmark scripts: wall and CPU seconds, peak RSS.

Each command runs as a child process and is reaped with `os.wait4`, which gives that child's own
resource usage (with its waited-for descendants), so children run one after another never mix.
A helper module of the scripts (its name begins with `_`), not a script.

The peak RSS of a child includes what it had before `exec`, a copy of the parent's pages: measure from a
small parent (the scripts import neither torch nor transformers before measuring, except in smoke mode).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence


@dataclass
class ProcessStats:
    wall_s: float
    cpu_s: float  # user + system
    peak_rss_mb: float
    returncode: int
    stdout: str
    stderr: str


def senso_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment for a child that runs senso: the senso this process imports first on its PYTHONPATH
    (a child would otherwise import whichever senso is installed), plus `extra`."""
    import senso

    source = str(Path(senso.__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **(extra or {})}


def run_measured(command: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | None = None) -> ProcessStats:
    """Run `command` to completion and measure it (Linux: ru_maxrss is in KiB)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(command), stdout=out, stderr=err, text=True,
                                env=None if env is None else dict(env), cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return ProcessStats(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode,
                            out.read(), err.read())
