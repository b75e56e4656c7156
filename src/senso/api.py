"""The Python API behind the CLI: `run(RunOptions)` dispatches by task family."""

from __future__ import annotations

from pathlib import Path

from senso.core.errors import SensoError
from senso.core.options import RunOptions

ABRICOT_TASKS = ("abricot-abs", "abricot-inc")
ADMIRE_TASKS = ("admire-a", "admire-b", "admire-sense")


def run(options: RunOptions) -> Path:
    """Run a task end to end; returns the run folder (holding results.json and samples.jsonl).

    Every option is checked first (generic ones by `RunOptions.validate`, the task's and system's by its
    wing), so a bad value fails in a second, before any model loads or any run folder is written."""
    if options.task not in ABRICOT_TASKS + ADMIRE_TASKS:
        raise SensoError(f"unknown task {options.task!r}; choose from {', '.join(ABRICOT_TASKS + ADMIRE_TASKS)}")
    options.validate()
    if options.task in ABRICOT_TASKS:
        from senso.likert.run import run_abricot

        return run_abricot(options)
    if options.task in ADMIRE_TASKS:
        from senso.admire.run import run_admire

        return run_admire(options)
    raise SensoError(f"unknown task {options.task!r}; choose from {', '.join(ABRICOT_TASKS + ADMIRE_TASKS)}")
