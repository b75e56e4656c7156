"""Run folders as tables: the per-item records of every run (a column for the run and its model), and the
results, one row per run, metric and group (value and CI)."""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from senso.core.errors import SensoError
from senso.core.run_folder import RunFolder

RESULTS_CONFIG = "results"  # the config of the results table; every other config is a task's records
ALL_GROUPS = "all"  # the `group` of a metric over all items (else a domain, a sentence type, ...)


def config_name(run: RunFolder) -> str:
    """The dataset config of a run's records: its task's name (a task file's `name`), in the Hub's letters."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", run.task).strip("-") or "task"
    if name == RESULTS_CONFIG:
        raise SensoError(f"{run.path}: a task named {RESULTS_CONFIG!r} would share its config with the results "
                         "table; rename the task file's `name`")
    return name


def _specs(description: Any) -> Iterable[str]:
    if isinstance(description, dict):
        if description.get("spec"):
            yield str(description["spec"])
        for value in description.values():
            yield from _specs(value)


def _embedders(description: Any) -> Iterable[str]:
    if isinstance(description, dict):
        if isinstance(description.get("embedder"), str):
            yield description["embedder"]
        for value in description.values():
            yield from _embedders(value)


NO_MODEL = "none"  # the model column of a system that uses no model (random, a lexical rule)


def model_of(run: RunFolder) -> str:
    """The scored model's spec, as the run recorded it (the first a system description names), else --model,
    else the embedders the system used (joined by '+'), else NO_MODEL: every row has one."""
    description = run.results.get("model")
    spec = next(iter(_specs(description)), None) or run.config.get("model")
    return spec or "+".join(dict.fromkeys(_embedders(description))) or NO_MODEL


def model_or_system(run: RunFolder) -> str:
    """What a run is "of" in a card: its model, or its system where it uses none."""
    model = model_of(run)
    return run.system if model == NO_MODEL else model


def run_labels(runs: Sequence[RunFolder]) -> list[str]:
    """Each run's name in the tables: its folder's name, made unique with -2, -3, ... in the order given."""
    labels: list[str] = []
    for run in runs:
        label, n = run.label, 2
        while label in labels:
            label, n = f"{run.label}-{n}", n + 1
        labels.append(label)
    return labels


def run_columns(run: RunFolder, label: str) -> dict[str, Any]:
    return {"run": label, "task": run.task, "system": run.system, "model": model_of(run), "split": run.split_key,
            "lang": run.lang}


def sample_rows(run: RunFolder, label: str) -> list[dict[str, Any]]:
    """The run's samples.jsonl rows after its run columns; a record's own field of the same name is kept as
    `item_<name>`."""
    head = run_columns(run, label)
    return [{**head, **{(f"item_{k}" if k in head else k): v for k, v in sample.items()}} for sample in run.samples]


def _metric_row(head: dict[str, Any], metric: str, group: str, estimate: dict[str, Any]) -> dict[str, Any]:
    return {**head, "metric": metric, "group": group, "value": estimate.get("value"),
            "ci_low": estimate.get("ci_low"), "ci_high": estimate.get("ci_high"), "reason": estimate.get("reason")}


def result_rows(run: RunFolder, label: str) -> list[dict[str, Any]]:
    """One row per metric over all items (group "all") and per group (metrics_by_group), with the run's facts."""
    results = run.results
    head = {**run_columns(run, label), "n": results.get("n"),
            "senso_version": (results.get("versions") or {}).get("senso"), "created": results.get("created"),
            "command": results.get("command")}
    rows = [_metric_row(head, m, ALL_GROUPS, e or {}) for m, e in (results.get("metrics") or {}).items()]
    for group, metrics in (results.get("metrics_by_group") or {}).items():
        rows += [_metric_row(head, m, str(group), e or {}) for m, e in metrics.items()]
    return rows
