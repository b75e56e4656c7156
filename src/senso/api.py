"""The Python API behind the CLI: `run(RunOptions)` dispatches by task, through the one table of tasks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from senso.core.errors import SensoError
from senso.core.options import RunOptions

TASK_FILE_SUFFIX = ".toml"


def _run_likert(options: RunOptions) -> Path:
    from senso.likert.run import run_likert

    return run_likert(options)


def _run_admire(options: RunOptions) -> Path:
    from senso.admire.run import run_admire

    return run_admire(options)


@dataclass(frozen=True)
class TaskEntry:
    """A built-in task: its family, the runner of that family, and one line on what it measures."""

    name: str
    family: str
    run: Callable[[RunOptions], Path]
    description: str


def _likert_builtins() -> list[TaskEntry]:
    from senso.likert.task import TASKS as LIKERT_TASKS

    return [TaskEntry(t.name, "likert", _run_likert, t.description) for t in LIKERT_TASKS.values()]


TASKS: dict[str, TaskEntry] = {t.name: t for t in (
    *_likert_builtins(),
    TaskEntry("admire-a", "admire", _run_admire, "AdMIRe Subtask A (SemEval-2025 Task 1): rank 5 images/captions "
                                                 "by how well they show the compound's sense in the sentence"),
    TaskEntry("admire-b", "admire", _run_admire, "AdMIRe Subtask B: complete an image sequence, and say whether the "
                                                 "compound is used literally or idiomatically"),
    TaskEntry("admire-sense", "admire", _run_admire, "AdMIRe sense classification alone: is the compound literal or "
                                                     "idiomatic in this sentence"),
)}
TASK_FILE_ENTRY = TaskEntry("path/to/task.toml", "likert", _run_likert,
                            "any Likert task file: the word's rating in context on the file's scale (README: task files)")


def task_entry(task: str) -> TaskEntry:
    """The table's entry for a built-in task name; a path ending .toml is a Likert task file."""
    if task in TASKS:
        return TASKS[task]
    if str(task).endswith(TASK_FILE_SUFFIX):
        return TASK_FILE_ENTRY
    raise SensoError(f"unknown task {task!r}; choose from {', '.join(TASKS)}, or give a task file (path/to/task.toml)")


def run(options: RunOptions) -> Path:
    """Run a task end to end; returns the run folder (holding results.json and samples.jsonl).

    Every option is checked first (generic ones by `RunOptions.validate`, the task's and system's by its
    wing), so a bad value fails in a second, before any model loads or any run folder is written."""
    entry = task_entry(str(options.task))
    options.validate()
    return entry.run(options)
