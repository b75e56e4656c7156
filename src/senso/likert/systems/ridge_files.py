"""File workflows of `embedding-ridge`: fit on a task's whole data set and save; score a CSV of new sentences.

`predict_csv` validates its input exactly as the task's data is read (its columns, the gold column
optional) and writes every input column, in order, followed by `<task>_pred` (the continuous prediction
on the gold scale, clipped to the task's gold_range; ABRICOT: 0-1) and `<task>_pred_label` (a label of the scale).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from senso.core.errors import DataError, SensoError
from senso.core.cache import ResponseCache
from senso.likert.systems.ridge import EmbeddingRidge, SYSTEMS, model_file_task, seen_lemma_message
from senso.likert.task import get_task


def fit_to_file(task: str, out: str | Path, system: str = "embedding-ridge", embedder: str | None = None,
                options: dict | None = None, data_dir: str | Path | None = None,
                cache: ResponseCache | None = None) -> EmbeddingRidge:
    """Fit `system` on all items of the data set of `task` (a built-in name or a task file) and save it to `out`."""
    likert_task = get_task(task)
    if system not in SYSTEMS:
        raise SensoError(f"cannot fit system {system!r}; fittable systems: {', '.join(SYSTEMS)}")
    model = SYSTEMS[system](embedder, options or {}, cache)
    items = likert_task.load_items(likert_task.locate_data(data_dir))
    model.fit(items, likert_task)
    model.save(out)
    return model


@dataclass
class PredictReport:
    """What `predict_csv` did: rows written, and the rows whose lemma the model was trained on."""

    out: Path
    n_rows: int
    pred_column: str
    label_column: str
    seen_rows: list[int]  # 1-based data rows, as DataError counts them
    warning: str | None


def _read_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """Header and data rows as csv.DictReader sees them (entirely empty lines skipped), so row k is item k."""
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        return header, [row for row in reader if row != []]


def predict_csv(model_path: str | Path, csv_path: str | Path, out: str | Path,
                cache: ResponseCache | None = None) -> PredictReport:
    """Score every row of a CSV in the model's task format with a saved model and write the scored CSV to `out`."""
    csv_path, out = Path(csv_path), Path(out)
    if out.resolve() == csv_path.resolve():
        raise SensoError(f"refusing to overwrite the input {csv_path}: choose another output path")
    task = model_file_task(model_path)
    items = task.load_items(csv_path, require_gold=False)  # the input checked before the model loads
    model = EmbeddingRidge.load(model_path, cache=cache)
    pred_column = task.pred_column
    label_column = pred_column + "_label"
    header, rows = _read_rows(csv_path)
    for column in (pred_column, label_column):
        if column in header:
            raise DataError(csv_path, f"the input already has a column {column!r}; senso will not overwrite it", field=column)
    if len(rows) != len(items):  # cannot happen for a file load_abricot accepted; guards the alignment
        raise DataError(csv_path, f"read {len(rows)} rows but validated {len(items)} items")
    predictions = model.predict(items, warn=False)
    seen_ids = {item.id for item in model.seen_items(items)}
    seen_rows = [k for k, item in enumerate(items, start=1) if item.id in seen_ids]
    warning = seen_lemma_message([it for it in items if it.id in seen_ids], len(items)) if seen_rows else None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.tmp{os.getpid()}")
    with tmp.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header + [pred_column, label_column])
        for row, pred in zip(rows, predictions):
            padded = row + [""] * (len(header) - len(row))  # short rows: DictReader read the missing fields as blank
            writer.writerow(padded + [repr(pred.extra["pred_clipped"]), str(pred.label)])
    tmp.replace(out)
    return PredictReport(out=out, n_rows=len(rows), pred_column=pred_column, label_column=label_column,
                         seen_rows=seen_rows, warning=warning)
