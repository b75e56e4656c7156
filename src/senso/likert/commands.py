"""The Likert family's part of the command line: its own command `senso predict` (registered by
`register_commands`), and its part of the data and fitting commands: `senso fit` of a Likert task, `senso data
overlap`, and ABRICOT's `senso data stats` / `data fetch` (called through its `Task` and `DataSet` values, so the
command line never asks which family a task is)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from senso.likert.data import REQUIRED_COLUMNS, SCORE_COLUMNS
from senso.likert.options import LoggedAnswers

LOGGED_SYSTEM = "lmeval-samples"  # the system that reads lm-eval's logged answers


def register_commands(cli: Any) -> None:
    """The family's own commands on the command line (`cli.app`; printed on `cli.out`, warnings on `cli.console`)."""
    from senso.core.terminal import labelled

    @cli.app.command("predict")
    def predict(
        model_path: Path = typer.Argument(..., help="Model file written by `senso fit`."),
        csv_path: Path = typer.Argument(..., help=PREDICT_CSV_HELP),
        out_path: Path = typer.Option(..., "-o", "--output", help="Scored CSV to write."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the embedding cache."),
    ) -> None:
        """Score new sentences with a fitted model: input columns + <task>_pred (gold scale) + <task>_pred_label."""
        from senso.core.cache import ResponseCache
        from senso.likert.systems.ridge_files import predict_csv

        report = predict_csv(model_path, csv_path, out_path, cache=ResponseCache(enabled=not no_cache))
        if report.warning:
            cli.console.print(labelled("warning:", "bold yellow", f"{report.warning} (rows "
                                                                  f"{row_ranges(report.seen_rows)})"), soft_wrap=True)
        if report.unlike_warning:
            cli.console.print(labelled("warning:", "bold yellow", report.unlike_warning), soft_wrap=True)
        cli.out.print(f"wrote {report.n_rows} rows with {report.pred_column}, {report.label_column}: {report.out}")


PREDICT_CSV_HELP = ("UTF-8 CSV (.tsv: tab-separated) with the columns of the model's task, gold optional (ABRICOT: "
                    f"{', '.join(REQUIRED_COLUMNS)}; begin/end: character offsets of target_token in text, end "
                    f"inclusive; {', '.join(SCORE_COLUMNS)} optional; a task file: the columns of its [columns] table).")


def row_ranges(rows: list[int]) -> str:
    """1,2,3,7 -> '1-3, 7'."""
    parts: list[str] = []
    for row in rows:
        if parts and row == int(parts[-1].split("-")[-1]) + 1:
            parts[-1] = parts[-1].split("-")[0] + f"-{row}"
        else:
            parts.append(str(row))
    return ", ".join(parts)


def logged_options(task: str, file: Path | None, flags: LoggedAnswers) -> dict[str, Any]:
    """`senso score TASK --lmeval-samples FILE`: the run options of the system that reads lm-eval's log."""
    results = {"results": flags.lmeval_results} if flags.lmeval_results is not None else {}
    return {"system": LOGGED_SYSTEM, "limit": flags.limit,
            "system_options": {"samples": flags.lmeval_samples, **results}}


def fit(options: Any, out_path: Path) -> tuple[list[str], list[str]]:
    """Fit a supervised Likert predictor on every item of `options.task` and save it: (notes, lines to print)."""
    from senso.core.cache import ResponseCache
    from senso.likert.systems.ridge_files import fit_to_file

    model = fit_to_file(options.task, out_path, system=options.system, embedder=options.embedder,
                        options=options.system_options, data_dir=options.data_dir,
                        cache=ResponseCache(enabled=options.use_cache))
    info = model.describe()
    notes = []
    if options.system is None:
        selection = json.loads(out_path.read_text(encoding="utf-8"))["selection"]
        notes.append(f"no --system: {selection['reason']}")
    alpha = f"alpha={info['alpha']:g}" if info.get("alpha") is not None else "no context model"
    noun = model.task.group_noun
    return notes, [f"fitted {info['system']} on {info['n_train_items']} items ({len(info['train_lemmas'])} {noun}s), "
                   f"{alpha}: {out_path}"]


def overlap(task: str, train: str, eval_: str | None, lang: str | None, data_dir: Path | None) -> None:
    """`senso data overlap` of a Likert task: the groups and texts its items share with training data."""
    from senso.core.errors import SensoError
    from senso.likert.overlap import overlap_rows
    from senso.likert.systems.ridge_files import overlap_items
    from senso.likert.tables import print_overlap
    from senso.likert.task import get_task

    likert_task = get_task(task)
    train_items, described = overlap_items(likert_task, Path(train), data_dir)
    eval_path = Path(eval_) if eval_ else likert_task.locate_data(data_dir)
    if not eval_path.is_file():
        raise SensoError(f"--eval {eval_path}: no such file (give a data file of {likert_task.name})")
    eval_items = likert_task.load_items(eval_path, require_gold=False)
    print_overlap(overlap_rows(eval_items, train_items), len(eval_items), str(eval_path), described,
                  likert_task.group_noun)


def stats(data_dir: Path | None, out_dir: Path, console: Any) -> None:
    from senso.likert.card import print_abricot_card

    console.print(f"figure: {print_abricot_card(data_dir, out_dir, console)}")


def fetch(data_dir: Path | None, api_url: str | None, force: bool, console: Any, err: Any) -> None:
    """ABRICOT ships with senso's data sources: say where it is (downloaded on first use)."""
    from senso.likert.data import locate_abricot

    console.print(f"ABRICOT: {locate_abricot(data_dir)}", soft_wrap=True)
