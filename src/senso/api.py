"""The Python API behind the CLI: `run(RunOptions)` dispatches by task, through the one table of tasks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from senso.core.errors import SensoError
from senso.core.options import RunOptions

TASK_FILE_SUFFIX = ".toml"


def _run_likert(options: RunOptions) -> Path:
    from senso.likert.run import run_likert

    return run_likert(options)


def _run_admire(options: RunOptions) -> Path:
    from senso.admire.run import run_admire

    return run_admire(options)


def _check_likert(options: RunOptions) -> None:
    from senso.likert.run import check_options
    from senso.likert.systems.registry import get_system
    from senso.likert.task import get_task

    check_options(options, get_task(options.task), get_system(options.system))


def _check_admire(options: RunOptions) -> None:
    from senso.admire.run import check_options

    check_options(options)


@dataclass(frozen=True)
class TaskEntry:
    """A built-in task: its family, the runner of that family, and one line on what it measures."""

    name: str
    family: str
    run: Callable[[RunOptions], Path]
    description: str
    check: Callable[[RunOptions], None]  # the family's option checks, before anything slow


def _likert_builtins() -> list[TaskEntry]:
    from senso.likert.task import TASKS as LIKERT_TASKS

    return [TaskEntry(t.name, "likert", _run_likert, t.description, _check_likert) for t in LIKERT_TASKS.values()]


TASKS: dict[str, TaskEntry] = {t.name: t for t in (
    *_likert_builtins(),
    TaskEntry("admire-a", "admire", _run_admire, "AdMIRe Subtask A (SemEval-2025 Task 1): rank 5 images/captions "
                                                 "by how well they show the compound's sense in the sentence", _check_admire),
    TaskEntry("admire-b", "admire", _run_admire, "AdMIRe Subtask B: complete an image sequence, and say whether the "
                                                 "compound is used literally or idiomatically", _check_admire),
    TaskEntry("admire-sense", "admire", _run_admire, "AdMIRe sense classification alone: is the compound literal or "
                                                     "idiomatic in this sentence", _check_admire),
)}
TASK_FILE_ENTRY = TaskEntry("path/to/task.toml", "likert", _run_likert,
                            "any Likert task file: the word's rating in context on the file's scale (README: task files)",
                            _check_likert)


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


def run_many(runs: Sequence[RunOptions]) -> list[Path]:
    """Several runs in one process, in order; returns their run folders.

    Every run's options are checked before the first one starts (a typo in the last task fails in a second,
    not after the first task's work), and a model the runs share is loaded once (`senso.backends.load`)."""
    for options in runs:
        entry = task_entry(str(options.task))
        options.validate()
        entry.check(options)
    return [run(options) for options in runs]


def run_folder_name(task: str) -> str:
    """The folder of one task's run inside a parent `--out` folder: the task's name, or a task file's stem."""
    return Path(task).stem if str(task).endswith(TASK_FILE_SUFFIX) else task
