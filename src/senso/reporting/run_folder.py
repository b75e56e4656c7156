"""Read a finished run folder for the report pages: results, samples, config, and the run's task from the one
table of tasks (`senso.catalog.task_of_record`), which says how its items are keyed and where they come from."""

from __future__ import annotations

from pathlib import Path

from senso.catalog import task_of_record
from senso.core.errors import SensoError
from senso.core.records import load_config, load_results, load_samples
from senso.core.run_folder import RunFolder


def load_run(run_dir: str | Path) -> RunFolder:
    """Read a finished run folder; SensoError naming the folder and the file when results, samples or config
    are missing or damaged (`core.records`: a truncated results.json is named as such, with the fix)."""
    path = Path(run_dir)
    if not path.is_dir():
        raise SensoError(f"{path}: not a folder (give a run folder written by `senso run`)")
    results = load_results(path)
    if "task" not in results:
        raise SensoError(f"{path / 'results.json'}: no 'task' field (not a senso results file)")
    task = task_of_record(results)
    samples = load_samples(path)
    return RunFolder(path=path, results=results, samples=samples, config=load_config(path) or {}, task_def=task)
