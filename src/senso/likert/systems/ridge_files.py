"""File workflows of the supervised systems (`registry.fittable`): fit on a task's whole data set and save;
score a CSV of new sentences. Without `--system`, `senso fit` fits the one that travels best (`select_default`).

`predict_csv` validates its input exactly as the task's data is read (its columns, the gold column
optional) and writes every input column, in order, followed by `<task>_pred` (the continuous prediction
on the gold scale, clipped to the task's gold_range; ABRICOT: 0-1) and `<task>_pred_label` (a label of the scale).
Input and output are separated by the task file's `delimiter`, else by each file's suffix (.tsv: tab, else comma).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from senso.core.csvfile import read_rows
from senso.core.errors import DataError, SensoError
from senso.core.cache import ResponseCache
from senso.core.output import atomic_file, check_output_file
from senso.core.records import write_json_atomically
from senso.likert.generalisation import TrainingProfile, choose_system, travel_report
from senso.likert.items import LikertItem
from senso.likert.systems import decomposed
from senso.likert.systems.ridge import MODEL_FORMAT as RIDGE_FORMAT, EmbeddingRidge, read_model_file, seen_lemma_message
from senso.likert.systems.registry import fittable
from senso.likert.systems.supervised import builder
from senso.likert.task import LikertTask, get_task


def select_default(task: LikertTask, items: Sequence[LikertItem], embedder: str | None, options: dict | None,
                   cache: ResponseCache | None) -> tuple[str, str, list[dict[str, Any]]]:
    """The fittable system that travels best on `items` (generalisation.choose_system): (name, reason, reports)."""
    reports = []
    for name, fit in fittable().items():
        make = builder(fit, embedder, options, cache)
        reports.append(travel_report(name, make().cross_validated_predict(items, task), items, task, make))
    chosen, why = choose_system(reports)
    return chosen.system, why, [r.to_json() for r in reports]


def fit_to_file(task: str | LikertTask, out: str | Path, system: str | None = None, embedder: str | None = None,
                options: dict | None = None, data_dir: str | Path | None = None,
                cache: ResponseCache | None = None) -> Any:
    """Fit `system` on all items of the data set of `task` (a built-in name or a task file) and save it to `out`.

    `system=None`: the system that travels best by leave-one-group-out, between-group and
    leave-one-domain-out r (`select_default`); the comparison is saved in the model file (`selection`).
    """
    likert_task = get_task(task)
    if system is not None and system not in fittable():
        raise SensoError(f"cannot fit system {system!r}; fittable systems: {', '.join(fittable())}")
    check_output_file(out, "-o")  # before the fit, which takes minutes
    items = likert_task.load_items(likert_task.locate_data(data_dir))
    extra: dict[str, Any] = {}
    if system is None:
        system, why, reports = select_default(likert_task, items, embedder, options, cache)
        extra["selection"] = {"chosen": system, "reason": why, "candidates": reports}
    model = builder(fittable()[system], embedder, options, cache)()
    model.fit(items, likert_task)
    extra["train_profile"] = TrainingProfile.from_items(items).to_json()
    _save_with(model, out, extra)
    return model


def _save_with(model: Any, out: str | Path, extra: dict[str, Any]) -> None:
    """Save and add `extra` fields (the embedding-ridge file format ignores fields it does not know)."""
    if isinstance(model, decomposed.Decomposed):
        model.save(out, extra)
        return
    model.save(out)
    data = json.loads(Path(out).read_text(encoding="utf-8"))
    data.update(extra)
    write_json_atomically(out, data, indent=1, flag="-o")


def model_file_task(path: str | Path) -> LikertTask:
    """The task a saved model was fitted on, read from its file without loading any embedder."""
    data = read_model_file(Path(path), (RIDGE_FORMAT, decomposed.MODEL_FORMAT))
    try:
        return get_task(data.get("task_file") or data["task"])
    except KeyError as exc:
        raise SensoError(f"{path}: model file lacks the field {exc.args[0]!r}") from None


def load_model_file(path: str | Path, cache: ResponseCache | None = None) -> tuple[Any, TrainingProfile | None]:
    """(model, training profile or None) of any file `senso fit` writes, by its `format` field."""
    path = Path(path)
    data = read_model_file(path, (RIDGE_FORMAT, decomposed.MODEL_FORMAT))
    fmt = data["format"]
    profile = TrainingProfile.from_json(data["train_profile"]) if isinstance(data, dict) and "train_profile" in data else None
    if fmt == decomposed.MODEL_FORMAT:
        return decomposed.Decomposed.load_data(data, path, cache), profile
    if fmt == RIDGE_FORMAT:
        return EmbeddingRidge.load(path, cache=cache), profile
    raise SensoError(f"{path}: not a senso model file (format {fmt!r}); write one with `senso fit`")


@dataclass
class PredictReport:
    """What `predict_csv` did: rows written, and the rows whose lemma the model was trained on."""

    out: Path
    n_rows: int
    pred_column: str
    label_column: str
    seen_rows: list[int]  # 1-based data rows, as DataError counts them
    warning: str | None
    unlike_warning: str | None = None  # input unlike the training data (domains, length), when the model knows


def _read_rows(path: Path, delimiter: str) -> tuple[list[str], list[list[str]]]:
    """Header and data rows as csv.DictReader sees them (entirely empty lines skipped), so row k is item k."""
    rows = [row for row in read_rows(path, delimiter) if row != []]
    return (rows[0], rows[1:]) if rows else ([], [])


def predict_csv(model_path: str | Path, csv_path: str | Path, out: str | Path,
                cache: ResponseCache | None = None) -> PredictReport:
    """Score every row of a CSV in the model's task format with a saved model and write the scored CSV to `out`."""
    csv_path, out = Path(csv_path), Path(out)
    if out.resolve() == csv_path.resolve():
        raise SensoError(f"refusing to overwrite the input {csv_path}: choose another output path")
    check_output_file(out, "-o")
    task = model_file_task(model_path)
    items = task.load_items(csv_path, require_gold=False)  # the input checked before the model loads
    model, profile = load_model_file(model_path, cache=cache)
    pred_column = task.pred_column
    label_column = pred_column + "_label"
    header, rows = _read_rows(csv_path, task.delimiter_for(csv_path))
    for column in (pred_column, label_column):
        if column in header:
            raise DataError(csv_path, f"the input already has a column {column!r}; senso will not overwrite it", field=column)
    if len(rows) != len(items):  # cannot happen for a file load_abricot accepted; guards the alignment
        raise DataError(csv_path, f"read {len(rows)} rows but validated {len(items)} items")
    predictions = model.predict(items, warn=False)
    seen_ids = {item.id for item in model.seen_items(items)}
    seen_rows = [k for k, item in enumerate(items, start=1) if item.id in seen_ids]
    warning = (seen_lemma_message([it for it in items if it.id in seen_ids], len(items), task.group_noun)
               if seen_rows else None)
    with atomic_file(out, "-o", newline="") as fh:
        writer = csv.writer(fh, delimiter=task.delimiter_for(out))
        writer.writerow(header + [pred_column, label_column])
        for row, pred in zip(rows, predictions):
            padded = row + [""] * (len(header) - len(row))  # short rows: DictReader read the missing fields as blank
            writer.writerow(padded + [repr(pred.extra["pred_clipped"]), str(pred.label)])
    return PredictReport(out=out, n_rows=len(rows), pred_column=pred_column, label_column=label_column,
                         seen_rows=seen_rows, warning=warning,
                         unlike_warning=profile.unlike(items) if profile is not None else None)


def overlap_items(task: LikertTask, path: str | Path, data_dir: str | Path | None = None) -> tuple[list[LikertItem], str]:
    """(items, what they are) for `senso data overlap`: a data file of `task` (its columns, gold optional), or a
    model file `senso fit` wrote (the items of its task's data it was trained on, by `train_item_ids`)."""
    path = Path(path)
    if not path.is_file():
        raise SensoError(f"--train {path}: no such file (give a data file of {task.name}, or a model file "
                         "`senso fit` wrote)")
    if path.suffix != ".json":
        return task.load_items(path, require_gold=False), str(path)
    data = read_model_file(path, (RIDGE_FORMAT, decomposed.MODEL_FORMAT))
    model_task = model_file_task(path)
    ids = data.get("train_item_ids")
    if not ids:
        raise SensoError(f"{path}: the model file lists no train_item_ids")
    by_id = {item.id: item for item in model_task.load_items(model_task.locate_data(data_dir))}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise SensoError(f"{path}: {len(missing)} training item ids are not in {model_task.name}'s data "
                         f"({', '.join(missing[:3])}): the model was fitted on other data")
    return [by_id[i] for i in ids], f"the training items of the model file {path}"
