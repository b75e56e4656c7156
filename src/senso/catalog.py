"""THE table of tasks: every built-in task and every task-file kind, as `senso.core.task.Task` values declared
in their family folders. A benchmark family is one folder plus one row here.

The command line, `senso.tasks()`, the evaluation loop, the report pages, comparisons, exports and placement
find a task here (`task_for` by what a user typed, `task_of_record` by what a run folder recorded) and ask it;
none of them branches on a task's name or family. `register` adds a task at run time (a researcher's family,
or a test's): a new family's options join RunOptions, and its commands the command line (`ON_REGISTER`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from senso.admire.family import RANKING_FILE as ADMIRE_RANKING_FILE, TASKS as ADMIRE_TASKS
from senso.core.errors import SensoError
from senso.core.options import RunOptions as CommonOptions, run_fields
from senso.core.task import DataSet, Family, Task
from senso.likert.family import TASK_FILE as LIKERT_TASK_FILE, TASKS as LIKERT_TASKS
from senso.wic.family import TASKS as WIC_TASKS

TASKS: dict[str, Task] = {task.name: task for task in (*LIKERT_TASKS, *ADMIRE_TASKS, *WIC_TASKS) if task.file_kind is None}
TASK_FILE_SUFFIX = ".toml"  # a task named by its path is a task file, of the kind its `kind` key says
TASK_FILE_KINDS: dict[str, Task] = {task.file_kind: task for task in (ADMIRE_RANKING_FILE, LIKERT_TASK_FILE, *WIC_TASKS)
                                    if task.file_kind is not None}
UNSAID_KIND = LIKERT_TASK_FILE.file_kind  # a task file without `kind` (Likert task files came first)
# The main job (`senso showcase`, `make run`): the published protocol on the built-in model, then senso's
# strongest offline systems: (task, system (None: the task's default), options besides the data folder).
SHOWCASE = (
    ("abricot-abs", None, {}),
    ("abricot-inc", None, {}),
    ("abricot-abs", "embedding-ridge", {}),
    ("abricot-inc", "embedding-ridge", {}),
    ("admire-a", "fitted-pipeline", {"lang": "en", "split": "dev"}),
)
ON_REGISTER: list[Any] = []  # (family, added) -> None: what else a family brings (the command line's commands)


def all_tasks() -> list[Task]:
    """The built-in tasks, then the task-file kinds (as `senso tasks` lists them)."""
    return [*TASKS.values(), *TASK_FILE_KINDS.values()]


def families() -> list[Family]:
    """Every family of a task in the table, once each, in the table's order."""
    return list(dict.fromkeys(task.family for task in all_tasks()))


def data_sets() -> dict[str, DataSet]:
    """The data sets `senso data stats|fetch NAME` handles, by name (each family's)."""
    return {data.name: data for family in families() for data in family.data_sets}


def _run_options() -> type:
    """RunOptions: the options every task reads (`core.options`), then each family's own (`Family.options`),
    knowing which offered options each family reads."""
    own = tuple(family.options for family in families() if family.options is not None)
    joined = dataclasses.make_dataclass("RunOptions", [], bases=(*reversed(own), CommonOptions))
    joined.__module__, joined.__doc__ = __name__, CommonOptions.__doc__
    joined.READS = {family.name: family.reads for family in families()}
    joined.TITLES = {family.name: family.called for family in families()}
    return joined


def _declared_names(options: type | None, flags: Any) -> list[str]:
    """The names and flags of a family's own options (a dataclass of `core.options.option` fields) and flags."""
    own = run_fields(options).values() if options is not None else ()
    return [*(n for spec in own for n in (spec.name, spec.flag)), *(n for p in flags for n in (p.name, p.flag))]


def _score_flags(family: Family) -> list[str]:
    """The names and flags of a family's own `senso score` flags (`Family.scoring`)."""
    own = dataclasses.fields(family.scoring.flags) if family.scoring is not None else ()
    return [n for spec in own for n in (spec.name, spec.metadata["flag"])]


def _check_own_options(family: Family) -> None:
    """A new family's own options and flags take no name or flag already declared (by the core: a common option,
    read by saying so in `Family.reads`; or by another family), nor its `senso score` flags another family's:
    one option never silently shadows another."""
    taken = dict.fromkeys(_declared_names(CommonOptions, ()), "the core")
    scored: dict[str, str] = {}
    for known in families():
        taken.update(dict.fromkeys(_declared_names(known.options, known.flags()), f"family {known.name!r}"))
        scored.update(dict.fromkeys(_score_flags(known), f"family {known.name!r}"))
    for name in _declared_names(family.options, family.flags()):
        if name in taken:
            hint = " (a common option: name it in Family.reads)" if taken[name] == "the core" else ""
            raise SensoError(f"family {family.name!r} declares {name}, which {taken[name]} already declares{hint}")
    for name in _score_flags(family):
        if name in scored:
            raise SensoError(f"family {family.name!r} declares the senso score flag {name}, which {scored[name]} "
                             "already declares")


def _rebuild() -> None:
    """RunOptions, RUN_FIELDS and FLAG_NAMES of the families in the table now (after `register`)."""
    global RunOptions, RUN_FIELDS, FLAG_NAMES
    RunOptions = _run_options()
    RUN_FIELDS = run_fields(RunOptions)
    FLAG_NAMES = {spec.flag: spec.name for spec in RUN_FIELDS.values()}


RunOptions = _run_options()
RUN_FIELDS = run_fields(RunOptions)  # every option of `senso run` and `senso.evaluate`, declared once each
FLAG_NAMES: dict[str, str] = {spec.flag: spec.name for spec in RUN_FIELDS.values()}  # --data-dir -> data_dir


def flag_names() -> dict[str, str]:
    """Every `senso run` flag -> its Python keyword: RunOptions fields, and the families' system flags (--sense)."""
    return {**FLAG_NAMES, **{p.flag: p.name for family in families() for p in family.flags()},
            "--model-args": "model_args"}


def register(task: Task) -> Task:
    """Add `task` to the table (a kind of task file when it has a `file_kind`); SensoError if its name or file
    kind is taken."""
    if any(known.name == task.name for known in all_tasks()):
        raise SensoError(f"a task named {task.name!r} is already registered")
    if task.file_kind is not None and task.file_kind in TASK_FILE_KINDS:
        raise SensoError(f"task files of kind {task.file_kind!r} are already read by {TASK_FILE_KINDS[task.file_kind].name}")
    new = task.family not in families()
    if new:
        _check_own_options(task.family)
    (TASK_FILE_KINDS if task.file_kind is not None else TASKS)[task.file_kind or task.name] = task
    if new:
        _rebuild()
        for listener in ON_REGISTER:
            listener(task.family, True)
    return task


def unregister(name: str) -> None:
    """Remove the task registered as `name` (a test's toy family, when it is done), and its family's options and
    commands with its last task."""
    gone = [task for task in all_tasks() if task.name == name]
    TASKS.pop(name, None)
    for kind in [kind for kind, task in TASK_FILE_KINDS.items() if task.name == name]:
        del TASK_FILE_KINDS[kind]
    for family in {task.family for task in gone} - set(families()):
        _rebuild()
        for listener in ON_REGISTER:
            listener(family, False)


def task_file_kind(path: str) -> Task:
    """The kind of task file `path` is, by its `kind` key (none: UNSAID_KIND); SensoError for a kind no family
    reads, listing those there are."""
    from senso.core.taskfile import declared_kind

    kind = declared_kind(path)
    if kind is None:
        return TASK_FILE_KINDS[UNSAID_KIND]
    if not isinstance(kind, str) or kind not in TASK_FILE_KINDS:
        raise SensoError(f"{path}, key 'kind': {kind!r} is no kind of task file; the kinds are "
                         f"{', '.join(map(repr, TASK_FILE_KINDS))} (no kind: {UNSAID_KIND!r})")
    return TASK_FILE_KINDS[kind]


def task_for(task: str | Path) -> Task:
    """The task a user named: a built-in task by name, else (a path ending TASK_FILE_SUFFIX) the kind of task
    file its `kind` key says."""
    name = str(task)
    if name in TASKS:
        return TASKS[name]
    if name.endswith(TASK_FILE_SUFFIX):
        return task_file_kind(name)
    for family in families():
        family.check_name(name)
    import difflib

    forms = " or ".join(kind.name for kind in TASK_FILE_KINDS.values())
    close = difflib.get_close_matches(name, TASKS, n=1)
    raise SensoError(f"unknown task {name!r}{f' (did you mean {close[0]}?)' if close else ''}; choose from "
                     f"{', '.join(TASKS)}" + (f", or give a task file ({forms})" if forms else ""))


def task_of_record(results: dict[str, Any]) -> Task:
    """The task of a finished run, from what it recorded: a built-in task by name when its kind (`task_kind`, the
    shape of its records) agrees, else the task-file kind, else any task of that kind; runs written before the
    kind was recorded are told by their family. SensoError for a run of no known kind."""
    name, kind, family = str(results.get("task", "")), results.get("task_kind"), results.get("family")
    if name in TASKS and (kind is None or TASKS[name].kind == kind):
        return TASKS[name]
    known = [*TASK_FILE_KINDS.values(), *TASKS.values()]
    found = [t for t in known if t.kind == kind] if kind is not None else [t for t in known if t.family.name == family]
    if found:
        return found[0]
    raise SensoError(f"no report page for a run of kind {kind or name!r} (task {results.get('task')!r}; reports "
                     f"cover {', '.join(t.called or t.name for t in all_tasks())})")


def tasks_help() -> str:
    """The task argument's help: every task by name, then the task-file forms."""
    return " | ".join(task.name for task in all_tasks())


def command_tasks_help(command: str) -> str:
    """The task argument's help of a common command a family may do (`fit`, `overlap`): the tasks it is done for."""
    served = [t.name for t in all_tasks() if getattr(t.family, command) is not None and getattr(t.family, command).serves(t)]
    return " | ".join(served)


def run_folder_name(task: str) -> str:
    """The folder of one task's run inside a parent `--out` folder: the task's name, or a task file's stem."""
    return task_for(task).folder_name(str(task))


def data_set(name: str, command: str) -> DataSet:
    """The data set `senso data COMMAND NAME` names; SensoError listing the known ones."""
    known = data_sets()
    if name not in known:
        raise SensoError(f"unknown dataset {name!r} for {command}; choose from {', '.join(known)}")
    return known[name]
