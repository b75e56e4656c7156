"""Reports: one self-contained HTML page per run or comparison, and dataset cards."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from senso.core.errors import SensoError


def write_report(run_dirs: Sequence[str | Path], out: str | Path | None = None, thumbnails: bool = True) -> Path:
    """One folder: its run page (default RUN_DIR/report.html). Several: a comparison page written to `out`."""
    if not run_dirs:
        raise SensoError("give at least one run folder")
    if len(run_dirs) == 1:
        from senso.reporting.run_page import write_run_report

        return write_run_report(run_dirs[0], out=out, thumbnails=thumbnails)
    if out is None:
        raise SensoError("a comparison of several runs needs -o FILE.html (where to write the page)")
    from senso.reporting.compare import write_comparison

    return write_comparison(run_dirs, out, thumbnails=thumbnails)
