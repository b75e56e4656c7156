"""THE table of tasks: every installed family's tasks and task-file kinds, as `senso.core.task.Task` values declared
in their family folders and found through the entry-point group `senso.families` (FAMILY_GROUP), never imported
here by name. A benchmark family is one folder plus one line in its distribution's entry points:

    [project.entry-points."senso.families"]
    likert = "senso.likert.family:TASKS"

where `TASKS` is the tuple of the family's Task values, its built-in tasks first, then its kinds of task file (a
Task with a `file_kind`). The families are listed in the order each declares (`Family.listed`: senso's own
first, likert then admire), then by entry-point name (any other package's): the order `senso tasks` and the help
show. The kinds of task file are listed in the same order, the kind a file that says none is read as (its Task's
`file_default`) last.

The command line, `senso.tasks()`, the evaluation loop, the report pages, comparisons, exports and placement
find a task here (`task_for` by what a user typed, `task_of_record` by what a run folder recorded) and ask it;
none of them branches on a task's name or family. `register` adds a task at run time (a researcher's family,
or a test's), `load_installed` the families of a distribution installed since: a new family's options join
RunOptions, and its commands the command line (`ON_REGISTER`).
"""

from __future__ import annotations

import dataclasses
from importlib import metadata
from pathlib import Path
from typing import Any

from senso.core.errors import SensoError
from senso.core.options import RunOptions as CommonOptions, run_fields
from senso.core.task import DataSet, Family, Task

FAMILY_GROUP = "senso.families"  # the entry-point group every family (senso's own and any package's) is found in
TASK_FILE_SUFFIX = ".toml"  # a task named by its path is a task file, of the kind its `kind` key says


def _entry_points() -> list[metadata.EntryPoint]:
    """The group's entry points, by name (their order is the families' `listed`, `_installed_tasks`)."""
    return sorted(metadata.entry_points(group=FAMILY_GROUP), key=lambda point: (point.name, _distribution(point)))


def _distribution(point: metadata.EntryPoint) -> str:
    return point.dist.name if point.dist is not None else "?"


def _family_tasks(point: metadata.EntryPoint) -> tuple[Task, ...]:
    """The Task values an entry point names; SensoError naming the distribution and the entry point when it cannot
    be loaded or names anything else."""
    where = f"the entry point {point.name} = {point.value!r} of {_distribution(point)} (group {FAMILY_GROUP})"
    try:
        tasks = point.load()
    except Exception as exc:  # any failure of a package's import is the package's, said as such
        raise SensoError(f"{where} could not be loaded: {type(exc).__name__}: {exc}") from exc
    if not isinstance(tasks, (tuple, list)) or not tasks or not all(isinstance(task, Task) for task in tasks):
        raise SensoError(f"{where} names {type(tasks).__name__}, not a tuple of senso.core.task.Task values")
    return tuple(tasks)


def _installed_tasks() -> list[Task]:
    """Every installed family's tasks, the families in the order they say (`Family.listed`), then by entry point."""
    loaded = sorted((_family_tasks(point) for point in _entry_points()), key=lambda tasks: tasks[0].family.listed)
    if not loaded:
        raise SensoError(f"no benchmark family is installed (entry-point group {FAMILY_GROUP}): senso's own are "
                         "declared in its pyproject.toml; install senso (pip install -e .) to write its metadata")
    return [task for tasks in loaded for task in tasks]


TASKS: dict[str, Task] = {}  # the built-in tasks by name
TASK_FILE_KINDS: dict[str, Task] = {}  # the kinds of task file by what a file's `kind` key says
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


def unsaid_kind() -> str | None:
    """The kind of a task file that says none: the kind whose Task says `file_default` (at most one)."""
    return next((kind for kind, task in TASK_FILE_KINDS.items() if task.file_default), None)


def _add(task: Task) -> bool:
    """Put `task` in the table (SensoError if its name or file kind is taken, or the kind of files that say none);
    True when it is the first task of its family."""
    if any(known.name == task.name for known in all_tasks()):
        raise SensoError(f"a task named {task.name!r} is already registered")
    if task.file_kind is not None and task.file_kind in TASK_FILE_KINDS:
        raise SensoError(f"task files of kind {task.file_kind!r} are already read by {TASK_FILE_KINDS[task.file_kind].name}")
    if task.file_default and unsaid_kind() is not None:
        raise SensoError(f"{task.name} reads task files that say no kind, which "
                         f"{TASK_FILE_KINDS[unsaid_kind()].name} already does")
    new = task.family not in families()
    if new:
        _check_own_options(task.family)
    if task.file_kind is None:
        TASKS[task.name] = task
        return new
    kinds = sorted([*TASK_FILE_KINDS.values(), task], key=lambda known: known.file_default)  # stable: the default last
    TASK_FILE_KINDS.clear()
    TASK_FILE_KINDS.update((known.file_kind, known) for known in kinds)
    return new


for _task in _installed_tasks():
    _add(_task)
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
    if _add(task):
        _rebuild()
        for listener in ON_REGISTER:
            listener(task.family, True)
    return task


def load_installed() -> list[Task]:
    """Register the tasks of the group's entry points that are not in the table (a distribution installed since
    senso was imported, or a family unregistered since), in the group's order; the tasks added."""
    table = {id(task) for task in all_tasks()}
    return [register(task) for point in _entry_points() for task in _family_tasks(point) if id(task) not in table]


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
    """The kind of task file `path` is, by its `kind` key (none: `unsaid_kind()`); SensoError for a kind no
    family reads, listing those there are."""
    from senso.core.taskfile import declared_kind

    kind, unsaid = declared_kind(path), unsaid_kind()
    if kind is None and unsaid is not None:
        return TASK_FILE_KINDS[unsaid]
    if not isinstance(kind, str) or kind not in TASK_FILE_KINDS:
        raise SensoError(f"{path}, key 'kind': {kind!r} is no kind of task file; the kinds are "
                         f"{', '.join(map(repr, TASK_FILE_KINDS))} (no kind: {unsaid!r})")
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
