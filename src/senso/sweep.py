"""Sweeps: a TOML grid of runs, expanded into RunOptions, run locally or as Ray tasks, summarised.

```toml
out = "runs/my-sweep"            # folder for the runs and the summary (default: next to the file, named after it)

[grid]                           # every combination is one run; any RunOptions field may be an axis
task = ["abricot-abs", "abricot-inc"]
protocol = ["calamita", "paper"]
seed = [0, 1]
# an axis whose entries are tables sets several fields together (a model and its server):
backend = [{model = "hf:google/gemma-3-270m"},
           {model = "openai:gemma", base_url = "http://127.0.0.1:8000/v1"}]

[options]                        # the same for every run (RunOptions fields)
data_dir = "../shared/data"      # relative paths are relative to this file
limit = 20

[options.set]                    # system options, as `--set KEY=VALUE`
features = "target-sentence"

[options.model_args]             # a served model's settings, as `--model-args KEY=VALUE`
top_logprobs = 20

[ray]                            # resources per run when run as Ray tasks
num_cpus = 1
num_gpus = 0
```

Each run gets the folder `<out>/<task>-<config hash>` where the hash covers every option but `out`:
a run whose folder already holds `results.json` is skipped. The summary (`summary.csv`,
`summary.md` in `<out>`) has one row per run with each metric's value and 95% CI from its results.json.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable

from senso.core.errors import RunInterrupted, SensoError
from senso.core.cache import cache_key
from senso import catalog
from senso.core.options import RunOptions
from senso.core.params import Text
from senso.core.taskfile import read_task_file
from senso.core.output import check_output_folder, write_text
from senso.core.manifest import claim_folder, write_recorded
from senso.core.records import load_results

PATH_FIELDS = {"data_dir", "out", "gold"}
TABLES = ("set", "model_args")  # tables of KEY = VALUE: the system's options, the served model's settings


def option_fields() -> set[str]:
    """The RunOptions fields a sweep may set (the table's, with every family's own)."""
    return {f.name for f in dataclasses.fields(catalog.RunOptions)} - {"system_options"}


RunFn = Callable[[RunOptions], Path]
OUT_FLAG = "--out (or the sweep file's `out`)"
ALWAYS_SHOWN = ("task", "system", "model", "seed")  # summary columns besides the grid axes (and `shown` options)


def shown_columns() -> tuple[str, ...]:
    """The summary's columns besides the grid axes: ALWAYS_SHOWN, the options declared `shown` before the seed."""
    shown = tuple(name for name, spec in catalog.RUN_FIELDS.items() if spec.shown)
    return (*ALWAYS_SHOWN[:-1], *shown, ALWAYS_SHOWN[-1])


@dataclass
class PlannedRun:
    """One run of the sweep: its options, config hash, folder, the axis values that picked it, and outcome."""

    options: RunOptions
    config_hash: str
    run_dir: Path
    axes: dict[str, Any]
    status: str = "pending"  # pending | done (found) | ran | failed
    error: str | None = None


@dataclass
class Sweep:
    path: Path
    out: Path
    runs: list[PlannedRun]
    ray_resources: dict[str, float] = field(default_factory=dict)


def config_hash(options: RunOptions) -> str:
    """12 hex digits over every option except the output folder."""
    data = options.to_json()
    data.pop("out", None)
    return cache_key("sweep-run", data)[:12]


def _check_fields(path: Path, section: str, values: dict[str, Any]) -> None:
    for key in values:
        if key not in option_fields() and key != "set":
            raise SensoError(f"{path}: [{section}] has unknown option {key!r}; "
                             f"options are {', '.join(sorted(option_fields() - {'out'}))} and 'set'")
        if key == "out":
            raise SensoError(f"{path}: [{section}] may not set 'out'; each run's folder is <out>/<task>-<hash>")


def _resolve(base: Path, key: str, value: Any) -> Any:
    if key in PATH_FIELDS and isinstance(value, str):
        candidate = Path(value).expanduser()
        return candidate if candidate.is_absolute() else (base / candidate).resolve()
    return value


def _table(fixed: dict[str, Any], chosen: dict[str, Any], name: str) -> dict[str, Any]:
    """Table `name` (TABLES) of [options] and the grid's choices joined, text parsed as the command line's."""
    return {k: Text(v) if isinstance(v, str) else v for k, v in {**fixed.get(name, {}), **chosen.get(name, {})}.items()}


def _make_options(path: Path, base: Path, fixed: dict[str, Any], chosen: dict[str, Any]) -> RunOptions:
    values = {k: _resolve(base, k, v) for k, v in {**fixed, **chosen}.items() if k not in TABLES}
    if "task" not in values:
        raise SensoError(f"{path}: the sweep sets no task (put `task = [...]` in [grid] or [options])")
    return catalog.RunOptions(**values, system_options=_table(fixed, chosen, "set"),
                              model_args=_table(fixed, chosen, "model_args"))


def load_sweep(path: str | Path, out: str | Path | None = None) -> Sweep:
    """Parse and expand a sweep file; errors name the file and the offending key."""
    spec, path = read_task_file(path, what="sweep file")
    unknown = set(spec) - {"out", "grid", "options", "ray"}
    if unknown:
        raise SensoError(f"{path}: unknown top-level keys {sorted(unknown)}; expected out, [grid], [options], [ray]")
    base = path.parent.resolve()
    grid = spec.get("grid", {})
    fixed = spec.get("options", {})
    _check_fields(path, "options", fixed)
    axes: list[tuple[str, list[dict[str, Any]]]] = []
    for name, entries in grid.items():
        if not isinstance(entries, list) or not entries:
            raise SensoError(f"{path}: [grid] {name} must be a non-empty list")
        expanded = []
        for entry in entries:
            setting = entry if isinstance(entry, dict) else {name: entry}
            _check_fields(path, f"grid.{name}", setting)
            expanded.append(setting)
        axes.append((name, expanded))
    root = Path(out) if out is not None else _resolve(base, "out", spec.get("out", path.stem))
    runs = []
    seen: dict[str, dict[str, Any]] = {}
    for combo in itertools.product(*(entries for _, entries in axes)):
        chosen: dict[str, Any] = {}
        for setting in combo:
            for key, value in setting.items():
                chosen[key] = {**chosen.get(key, {}), **value} if key in TABLES else value
        options = _make_options(path, base, fixed, chosen)
        digest = config_hash(options)
        if digest in seen:
            raise SensoError(f"{path}: two grid combinations give the same run: {seen[digest]} and {chosen}")
        seen[digest] = chosen
        options.out = Path(root) / f"{options.task}-{digest}"
        runs.append(PlannedRun(options, digest, options.out, _flat_axes(chosen)))
    return Sweep(path, Path(root), runs, dict(spec.get("ray", {})))


def _flat_axes(chosen: dict[str, Any]) -> dict[str, Any]:
    flat = {k: (str(v) if isinstance(v, Path) else v) for k, v in chosen.items() if k not in TABLES}
    flat.update({f"{table}.{k}": v for table in TABLES for k, v in chosen.get(table, {}).items()})
    return flat


def execute_run(options: RunOptions, run_fn: RunFn | None = None) -> str:
    """Run one sweep entry (in this process, a pool worker or a Ray worker); returns its folder."""
    if run_fn is None:
        from senso.api import run as run_fn
    claim_folder(options.out, OUT_FLAG)  # the run's folder, its manifest started: it records what the sweep adds
    try:
        return str(run_fn(options))
    finally:  # what the sweep asked, beside the run's files (recorded, so a rerun may replace it)
        asked = json.dumps(options.to_json(), indent=2, ensure_ascii=False) + "\n"
        write_recorded(options.out, "sweep_options.json", asked, OUT_FLAG)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, SensoError):
        return str(exc)
    cause = getattr(exc, "cause", None)  # Ray wraps task errors
    if isinstance(cause, BaseException):
        return _error_text(cause)
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _run_local(todo: list[PlannedRun], workers: int, run_fn: RunFn | None, report: Callable[[PlannedRun], None]) -> None:
    if workers <= 1:
        for planned in todo:
            try:
                execute_run(planned.options, run_fn)
                planned.status = "ran"
            except RunInterrupted:  # SIGTERM or Ctrl-C stops the sweep, not only the run it was in
                raise
            except Exception as exc:  # one failed run does not stop the sweep
                planned.status, planned.error = "failed", _error_text(exc)
            report(planned)
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(execute_run, planned.options, run_fn): planned for planned in todo}
        for future in as_completed(futures):
            planned = futures[future]
            try:
                future.result()
                planned.status = "ran"
            except Exception as exc:
                planned.status, planned.error = "failed", _error_text(exc)
            report(planned)


def _run_ray(todo: list[PlannedRun], address: str, resources: dict[str, float], run_fn: RunFn | None,
             report: Callable[[PlannedRun], None]) -> dict[str, Any]:
    try:
        import ray
    except ImportError:
        raise SensoError("--ray needs Ray: pip install 'senso[ray]'") from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False)
        else:
            try:
                ray.init(address=address, include_dashboard=False)
            except ConnectionError as exc:
                raise SensoError(f"--ray {address}: no Ray cluster found ({exc}); start one with `ray start --head`, "
                                 "or use --ray local") from None
    remote = ray.remote(num_cpus=resources.get("num_cpus", 1), num_gpus=resources.get("num_gpus", 0),
                        max_retries=0)(execute_run)
    pending = {remote.remote(planned.options, run_fn): planned for planned in todo}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        planned = pending.pop(ready[0])
        try:
            ray.get(ready[0])
            planned.status = "ran"
        except Exception as exc:
            planned.status, planned.error = "failed", _error_text(exc)
        report(planned)
    return {"ray_address": ray.get_runtime_context().gcs_address, "ray_resources": ray.cluster_resources()}


def run_sweep(sweep: Sweep, workers: int = 1, ray_address: str | None = None, run_fn: RunFn | None = None,
              report: Callable[[PlannedRun], None] = lambda planned: None) -> dict[str, Any]:
    """Run what is not done yet, then write the summary. `run_fn` replaces `senso.api.run` (it must be
    importable by name in worker processes). Returns counts and the summary paths."""
    check_output_folder(sweep.out, OUT_FLAG)
    todo = []
    for planned in sweep.runs:
        if (planned.run_dir / "results.json").exists():
            planned.status = "done"
            report(planned)
        else:
            todo.append(planned)
    info: dict[str, Any] = {}
    if todo:
        if ray_address:
            info = _run_ray(todo, ray_address, sweep.ray_resources, run_fn, report)
        else:
            _run_local(todo, workers, run_fn, report)
    csv_path, md_path = write_summary(sweep)
    counts = {status: sum(r.status == status for r in sweep.runs) for status in ("done", "ran", "failed")}
    return {**counts, "summary_csv": csv_path, "summary_md": md_path, **info}


# ---- summary ------------------------------------------------------------------------------

def _metric_cells(metrics: dict[str, Any]) -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for name, est in metrics.items():
        est = est if isinstance(est, dict) else {"value": est}
        cells[name] = est.get("value")
        cells[f"{name}_ci_low"] = est.get("ci_low")
        cells[f"{name}_ci_high"] = est.get("ci_high")
        cells[f"{name}_reason"] = est.get("reason")
    return cells


def summary_rows(sweep: Sweep) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Rows (one per run), the axis columns and the metric names in first-seen order."""
    axis_columns: list[str] = []
    metric_names: list[str] = []
    rows = []
    for planned in sweep.runs:
        row: dict[str, Any] = {"run": planned.run_dir.name, "config_hash": planned.config_hash,
                               "status": planned.status, "error": planned.error}
        described = {k: getattr(planned.options, k) for k in shown_columns()}
        row.update({**described, **planned.axes})
        for key in (*described, *planned.axes):
            if key not in axis_columns:
                axis_columns.append(key)
        results_path = planned.run_dir / "results.json"
        if planned.status in ("done", "ran") and results_path.exists():
            try:
                results = load_results(planned.run_dir)
            except SensoError as exc:  # a damaged folder is one failed row, named, not the end of the summary
                planned.status, planned.error = "failed", str(exc)
                row.update(status=planned.status, error=planned.error)
                rows.append(row)
                continue
            row["n"] = results.get("n")
            metrics = results.get("metrics", {})
            metric_names += [m for m in metrics if m not in metric_names]
            row.update(_metric_cells(metrics))
        rows.append(row)
    return rows, axis_columns, metric_names


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value).replace("|", "\\|")


def _estimate_text(row: dict[str, Any], name: str) -> str:
    value = row.get(name)
    if value is None:
        reason = row.get(f"{name}_reason")
        return f"undefined ({reason})" if reason else ""
    low, high = row.get(f"{name}_ci_low"), row.get(f"{name}_ci_high")
    if low is None or high is None:
        return _fmt(value)
    return f"{value:.4f} [{low:.4f}, {high:.4f}]"


def write_summary(sweep: Sweep) -> tuple[Path, Path]:
    """summary.csv (value, ci_low, ci_high, reason per metric) and summary.md (value [CI])."""
    import pandas as pd

    rows, axis_columns, metric_names = summary_rows(sweep)
    metric_columns = [c for name in metric_names for c in (name, f"{name}_ci_low", f"{name}_ci_high", f"{name}_reason")]
    columns = ["run", "config_hash", "status", *axis_columns, "n", *metric_columns, "error"]
    csv_path = write_text(sweep.out / "summary.csv", pd.DataFrame(rows, columns=columns).to_csv(index=False), OUT_FLAG)
    header = ["run", "status", *axis_columns, "n", *(f"{m} [95% CI]" for m in metric_names)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row["run"], row["status"] + (f": {row['error']}" if row.get("error") else ""),
                 *(row.get(c) for c in axis_columns), row.get("n"), *(_estimate_text(row, m) for m in metric_names)]
        lines.append("| " + " | ".join(_fmt(c) for c in cells) + " |")
    md_path = write_text(sweep.out / "summary.md", f"# Sweep {sweep.path.name}\n\n" + "\n".join(lines) + "\n", OUT_FLAG)
    return csv_path, md_path
