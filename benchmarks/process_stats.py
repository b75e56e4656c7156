"""Whole-process measurements for the benchmark scripts: wall and CPU seconds, peak RSS.

Each command runs as a child process and is reaped with `os.wait4`, which gives that child's own
resource usage (with its waited-for descendants), so children run one after another never mix.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass
class ProcessStats:
    wall_s: float
    cpu_s: float  # user + system
    peak_rss_mb: float
    returncode: int
    stdout: str
    stderr: str


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
