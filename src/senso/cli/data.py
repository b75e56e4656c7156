"""`senso data stats|fetch|overlap`: a data set's card, its download, and what an evaluation set shares with
training data (each asked of its data set or task in the table of tasks)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from senso.catalog import command_tasks_help, data_set, data_sets, task_for
from senso.cli.app import DATA_DIR_HELP, console, data_app, out
from senso.core.errors import SensoError

DATA_SET_NAMES = tuple(data_sets())


@data_app.command("stats")
def data_stats(
    dataset: str = typer.Argument(..., help=" or ".join(DATA_SET_NAMES)),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
    out_dir: Path = typer.Option(Path("runs/data"), "--out", help="Folder for the figures."),
) -> None:
    """Dataset card: summary tables on the terminal, figures as PNG."""
    data_set(dataset, "stats").stats(data_dir, out_dir, out)


@data_app.command("fetch")
def data_fetch(
    dataset: str = typer.Argument(..., help=" or ".join(DATA_SET_NAMES)),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Where to put it (default: $SENSO_DATA_DIR, then ~/.cache/senso/data)."),
    api_url: Optional[str] = typer.Option(None, "--api-url", help="Where to download from instead: AdMIRe, the figshare API base URL (default $SENSO_FIGSHARE_API, then https://api.figshare.com/v2); wic, a mirror of the releases' hosts (default $SENSO_WIC_MIRROR)."),
    force: bool = typer.Option(False, "--force", help="Replace existing files that differ."),
) -> None:
    """Download a benchmark's official files, verify their checksums and unpack them."""
    data_set(dataset, "fetch").fetch(data_dir, api_url, force, out, console)


@data_app.command("overlap")
def data_overlap(
    task: str = typer.Argument(..., help=command_tasks_help("overlap")),
    train: str = typer.Option(..., "--train", help="The training data as the task reads it: split(s) of its data "
                                                   "(e.g. train+dev) or a data file; or a model file `senso fit` wrote."),
    eval_: Optional[str] = typer.Option(None, "--eval", help="The evaluation data, a split (e.g. xeval) or a data "
                                                            "file (default: the task's data)."),
    lang: Optional[str] = typer.Option(None, "--lang", help="The language, for a task in several (default: the "
                                                            "task's own)."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=DATA_DIR_HELP),
) -> None:
    """What an evaluation set shares with training data (each task says what it compares: expressions, sentences,
    captions, groups, texts)."""
    entry = task_for(task)
    overlap = entry.family.overlap
    if overlap is None or not overlap.serves(entry):
        raise SensoError(f"senso data overlap: {task} has no training data to compare with")
    overlap.run(task, train, eval_, lang, data_dir)
