"""What the command line does with finished runs, from Python, typed: compare two runs, a report page, an
export (a `datasets` folder, the model-index block), placement beside published results, one tidy table.

Each call takes results of `senso.evaluate` (saved or not) or run folders (paths), reads them as the command
line does (`senso.report`, `senso.export`) and returns typed values; nothing is printed. A result that was
never saved is written to a temporary run folder for the call and removed after it.

```python
mine = senso.evaluate("admire-a", system=MyRanker(), split="dev")
chance = senso.evaluate("admire-a", system="random", split="dev")
c = senso.compare(mine, chance)                 # typed paired differences: c["top1"].p_value; c.to_pandas()
table = senso.results_table([mine, chance])     # run, task, system, metric, group, value, ci_low, ci_high, reason
senso.report([mine], "mine.html"); senso.export([mine, chance], to="export/")
```
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from senso.core.comparison import Comparison
from senso.core.errors import SensoError
from senso.core.evaluation import EvalResult, calibration_groups
from senso.core.stats import Estimate


@contextmanager
def run_folders(runs: Sequence[Any]) -> Iterator[list[Path]]:
    """The run folder of each run: its own, or (a result never saved) a temporary one, removed afterwards."""
    if not runs:
        raise SensoError("give at least one result (of senso.evaluate, or a run folder)")
    with tempfile.TemporaryDirectory(prefix="senso-runs-") as scratch:
        folders = []
        for k, run in enumerate(runs):
            if isinstance(run, EvalResult):
                name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{run.task}-{run.system}-{k}")  # the run's label in exports
                saved = run.run_dir or dataclasses.replace(run).save(Path(scratch) / name)  # `run` keeps run_dir None
                folders.append(saved)
            elif isinstance(run, (str, Path)):
                folders.append(Path(run))
            else:
                raise SensoError(f"expected a result of senso.evaluate or a run folder, got {type(run).__name__}")
        yield folders


def _label(run: Any) -> str:
    if isinstance(run, EvalResult):
        return str(run.run_dir) if run.run_dir is not None else f"<in memory: {run.system}>"
    return str(run)


def _recorded(path: Path) -> dict[str, Any] | None:
    """The results.json of a run folder; None for a file (an AdMIRe submission)."""
    from senso.core.records import load_results

    return load_results(path) if path.is_dir() else None


def _compare_runs(task: str, a: Path, b: Path, gold: Any, n_resamples: int, seed: int) -> Comparison:
    """Two run folders of a task with no comparison of its own: per metric its task declares a test for (and
    calibration), overall and per domain."""
    from senso.catalog import all_tasks
    from senso.reporting.compare_runs import compare_runs

    if gold is not None:
        own = ", ".join(t.name for t in all_tasks() if t.compare is not None)
        raise SensoError(f"gold= (--gold) is for comparisons of {own} (against a targets file); two {task} runs are "
                         "compared on the gold in their samples")
    return compare_runs(task, a, b, n_resamples=n_resamples, seed=seed).typed()


def _task_of(folders: Sequence[Path], labels: Sequence[str], task: str | None) -> tuple[str, Any]:
    """The task both runs record (and its `senso.core.task.Task`); SensoError naming each run's task when they
    differ, or the task given (`task`) when a run records another."""
    from senso.catalog import task_for, task_of_record

    recorded = [(label, r) for label, r in zip(labels, map(_recorded, folders)) if r and r.get("task")]
    if len({r["task"] for _, r in recorded}) > 1:
        (first, a), (second, b) = recorded
        raise SensoError(f"cannot compare runs of different tasks: {first} is a run of {a['task']}, {second} a run "
                         f"of {b['task']} (a comparison needs two runs of one task)")
    if task is not None and recorded and task_for(task) is not task_of_record(recorded[0][1]):
        raise SensoError(f"{recorded[0][0]} is a run of {recorded[0][1]['task']}, not {task}")
    if recorded:
        return recorded[0][1]["task"], task_of_record(recorded[0][1])
    if task is None:
        raise SensoError("neither side is a run folder: give the task (task='admire-a') to compare two files")
    return task, task_for(task)


def compare(a: Any, b: Any, *, task: str | None = None, gold: str | Path | None = None, n_resamples: int = 10000,
            seed: int = 0) -> Comparison:
    """Run A vs run B of one task on the same items (results of `senso.evaluate` or run folders; AdMIRe: also
    submission files): per metric and group, A - B with a paired bootstrap 95% CI and a paired permutation
    p-value, calibration included. The task is read from the runs (`task` only checks it, or names it when both
    sides are submission files); runs of different tasks or items are refused, saying which."""
    from senso.core.options import check_python_value, python_value

    n_resamples, seed = python_value(n_resamples), python_value(seed)
    check_python_value("n_resamples", n_resamples, (int,))
    check_python_value("seed", seed, (int,))
    check_python_value("gold", gold, (Path,), optional=True)
    labels = [_label(a), _label(b)]
    with run_folders([a, b]) as folders:
        name, task_def = _task_of(folders, labels, task)
        try:
            typed = (task_def.compare or _compare_runs)(name, folders[0], folders[1], gold, n_resamples, seed)
        except SensoError as exc:  # a temporary folder is named as the result it holds
            message = str(exc)
            for folder, label in zip(folders, labels):
                message = message.replace(str(folder), label)
            exc.args = (message,) + exc.args[1:]
            raise
        typed.system_a, typed.system_b = [(_recorded(f) or {}).get("system") for f in folders]
    typed.a, typed.b = labels
    return typed


def report(results: Sequence[Any], path: str | Path | None = None, thumbnails: bool = True) -> Path:
    """One run's report page (default: report.html in its run folder), or a comparison page of several runs of
    one task (then `path` is needed). A result never saved has no run folder to hold its page: give `path`."""
    from senso.reporting import write_report

    results = list(results)
    unsaved = [run for run in results if isinstance(run, EvalResult) and run.run_dir is None]
    if path is None and unsaved:
        raise SensoError(f"senso.report needs a path: {_label(unsaved[0])} has no run folder (r.save(folder) "
                         "first, or senso.report([r], 'page.html'))")
    with run_folders(results) as folders:
        return write_report(folders, out=path, thumbnails=thumbnails)


def export(results: Sequence[Any], to: str | Path | None = None, push_to_hub: str | None = None,
           private: bool = True) -> Any:
    """The runs as a Hugging Face dataset folder `to` (`datasets.load_from_disk`/`load_dataset` read it) and/or
    uploaded to the dataset repository `push_to_hub`; returns what was written (`configs`, `folder`, `url`)."""
    from senso.core.params import python_message
    from senso.exporting.publish import export_runs

    if to is None and push_to_hub is None:
        raise SensoError("export() needs to= (a new or empty folder) or push_to_hub= (a dataset repository ORG/NAME)")
    try:
        with run_folders(list(results)) as folders:
            return export_runs(folders, to=to, push_to_hub=push_to_hub, private=private)
    except SensoError as exc:
        exc.args = (python_message(str(exc), {"--to": "to", "--push-to-hub": "push_to_hub"}),) + exc.args[1:]
        raise


def model_index(results: Sequence[Any], model_name: str | None = None) -> str:
    """The model card's `model-index` block (YAML) of runs of one model."""
    from senso.exporting.model_index import model_index as index_of, model_index_yaml

    with run_folders(list(results)) as folders:
        index, _notes = index_of(folders, model_name=model_name)
    return model_index_yaml(index)


def placement(result: Any) -> Any:
    """Where the run stands beside the published results (`senso.reporting.placement.Placement`: boards of rows,
    the run's row marked, and notes saying why a run is not placed)."""
    from senso.reporting.placement import placement_for
    from senso.reporting.run_folder import load_run

    with run_folders([result]) as folders:
        return placement_for(load_run(folders[0]))


TABLE_COLUMNS = ("run", "task", "system", "metric", "group", "value", "ci_low", "ci_high", "reason")


def _estimate_rows(head: dict[str, Any], metrics: dict[str, Any], by_group: dict[str, dict[str, Any]]) -> list[dict]:
    rows = []
    for group, estimates in {"all": metrics, **by_group}.items():
        for metric, estimate in estimates.items():
            e = Estimate(**estimate)
            rows.append({**head, "metric": metric, "group": group, "value": e.value, "ci_low": e.ci_low,
                         "ci_high": e.ci_high, "reason": e.reason})
    return rows


def results_table(results: Sequence[Any]):
    """One tidy DataFrame of every metric of every run (results of `senso.evaluate` or run folders): run, task,
    system, metric, group ("all", then each domain or sentence type), value, ci_low, ci_high, reason (why a
    value is None); calibration metrics (ece, brier, log_loss) are rows like the others."""
    import pandas as pd

    from senso.core.records import load_results

    rows = []
    for k, run in enumerate(results):
        if isinstance(run, EvalResult):
            recorded, label = run.results, str(run.run_dir) if run.run_dir is not None else f"run{k}"
        elif isinstance(run, (str, Path)):
            recorded, label = load_results(Path(run)), str(run)
        else:
            raise SensoError(f"results_table takes results of senso.evaluate or run folders, got {type(run).__name__}")
        head = {"run": label, "task": recorded.get("task"), "system": recorded.get("system")}
        calibration = recorded.get("calibration") or {}
        rows += _estimate_rows(head, recorded.get("metrics", {}), recorded.get("metrics_by_group", {}))
        rows += _estimate_rows(head, calibration.get("metrics", {}), calibration_groups(calibration))
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
