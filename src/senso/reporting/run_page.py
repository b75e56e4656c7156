"""`senso report RUN_DIR`: build the data of one run's page and render it to RUN_DIR/report.html."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from senso.catalog import all_tasks
from senso.core.calibration import CALIBRATION_LABELS, RELIABILITY_AXIS
from senso.core.evaluation import calibration_groups
from senso.core.manifest import recorded_if_run_folder
from senso.core.output import check_output_file, write_text
from senso.core.run_folder import RunFolder, header_rows
from senso.reporting.run_folder import load_run


def metric_label(name: str, task: Any = None) -> str:
    """A metric's label as `task` (else the first task that has it) declares it (the calibration metrics':
    `core.calibration`), else its name."""
    own = task.metric(name) if task is not None else None
    if own is not None:
        return own.label
    for task in all_tasks():
        metric = task.metric(name)
        if metric is not None:
            return metric.label
    return CALIBRATION_LABELS.get(name, name)


def metrics_table(results: dict[str, Any], task: Any = None) -> dict[str, Any]:
    """Rows per metric, columns "all" then each group (domain, sentence type) with n where known; a fitted
    system's `unseen` items (sharing nothing with its training data) come first, as the headline, and
    `overlap` is the sentence saying why."""
    groups = list(results.get("metrics_by_group", {}))
    unseen = results.get("unseen")
    columns = ([f"UNSEEN (n={unseen['n']})", f"all (n={results.get('n')})"] if unseen else ["all"]) + groups
    rows = []
    for name, estimate in results.get("metrics", {}).items():
        cells = [estimate] + [results["metrics_by_group"][g].get(name) for g in groups]
        if unseen:
            cells.insert(0, unseen.get(name))
        rows.append({"name": name, "label": metric_label(name, task), "cells": cells})
    return {"groups": groups, "columns": columns, "rows": rows, "headline": bool(unseen),
            "overlap": (results.get("overlap") or {}).get("why")}


def calibration_block(results: dict[str, Any]) -> dict[str, Any] | None:
    """The page's calibration section: the metrics (all, then per group) and the reliability diagram, or the
    reason a run has none; None when the run says nothing about calibration."""
    from senso.core import figures

    calibration = results.get("calibration")
    if not calibration:
        return None
    if "metrics" not in calibration:
        return {"reason": calibration.get("reason")}
    by_group = calibration_groups(calibration)
    rows = [{"label": calibration["labels"].get(name, name),
             "cells": [estimate] + [by_group[g].get(name) for g in by_group]}
            for name, estimate in calibration["metrics"].items()]
    reliability = calibration["reliability"]
    plot = figures.reliability_diagram(reliability["bins"], "reliability diagram",
                                       reliability.get("axis", RELIABILITY_AXIS))
    return {"reason": None, "n": calibration["n"], "groups": list(by_group), "rows": rows, "plot": plot,
            "what": reliability["what"], "n_bins": reliability["n_bins"]}


def warnings_of(run: RunFolder) -> list[str]:
    return [str(w) for w in run.results.get("warnings", [])]


def run_context(run: RunFolder, thumbnails: bool = True) -> dict[str, Any]:
    """Everything the run page template needs."""
    from senso.reporting.placement import placement_for
    from senso.reporting.render import section_template

    task = run.task_def
    context = {
        "title": f"{run.task} · {run.system} · {run.split}",
        "run": run,
        "header": header_rows(run),
        "warnings": warnings_of(run),
        "notes": [str(n) for n in run.results.get("notes", [])],
        "metrics": metrics_table(run.results, task),
        "calibration": calibration_block(run.results),
        "placement": placement_for(run),
        "model_description": run.results.get("model", {}),
    }
    section = task.page.data(run, thumbnails=thumbnails) if task.page is not None else None
    context.update(task.page.helpers() if task.page is not None else {})
    context.update(section=section, section_template=section_template(task.page))  # the task's part reads `section`
    context.update(styles=task.page.styles() if task.page is not None else "")
    return context


def write_run_report(run_dir: str | Path, out: str | Path | None = None, thumbnails: bool = True) -> Path:
    """Render the page of one run to `out` (default RUN_DIR/report.html); returns its path."""
    from senso.reporting.render import render

    run = load_run(run_dir)
    path = Path(out) if out else run.path / "report.html"
    check_output_file(path, "-o")
    html = render("run.html.j2", run_context(run, thumbnails=thumbnails))
    with recorded_if_run_folder(path):  # in a run folder, the page is the run's: the next run there replaces it
        return write_text(path, html, "-o")
