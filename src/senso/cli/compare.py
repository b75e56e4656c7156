"""`senso compare` (two runs of a task, paired, per metric: its task's own comparison, else the run folders'
metrics) and `senso leaderboard` (where runs would have ranked on AdMIRe's published leaderboards)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from senso.catalog import task_for
from senso.cli.app import app, out
from senso.cli.score import ADMIRE_TASK_HELP
from senso.core.errors import SensoError
from senso.core.tables import folded

@app.command()
def compare(
    task: str = typer.Argument(..., help=f"{ADMIRE_TASK_HELP}, or a Likert task (abricot-abs, abricot-inc, a task file's name)"),
    run_a: Path = typer.Argument(..., help="Run folder (AdMIRe: or submission file) A."),
    run_b: Path = typer.Argument(..., help="Run folder (AdMIRe: or submission file) B."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="AdMIRe: targets file (default: the gold in the runs' samples)."),
    resamples: int = typer.Option(10000, "--resamples", help="Permutation / bootstrap resamples."),
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Paired comparison of two systems on the same items: per metric, A - B with a 95% CI and a permutation p-value."""
    own = task_for(task).compare
    tables, notes = (own(task, run_a, run_b, gold, resamples, seed) if own is not None
                     else _compare_runs(task, run_a, run_b, gold, resamples, seed))
    for table in tables:
        out.print(folded(table))
    for note in notes:
        out.print(note, style="dim", soft_wrap=True)


def _compare_runs(task: str, run_a: Path, run_b: Path, gold: Optional[Path], resamples: int, seed: int):
    """`senso compare` of two run folders of a task with no comparison of its own: overall and per domain, the
    paired difference of each metric its task declares a test for (and calibration)."""
    from senso.report.compare_likert import compare_likert, comparison_table

    if gold is not None:
        raise SensoError(f"--gold is for AdMIRe comparisons; two {task} runs are compared on the gold in their samples")
    result = compare_likert(task, run_a, run_b, n_resamples=resamples, seed=seed)
    return [comparison_table(result)], result.notes


@app.command()
def leaderboard(
    runs: list[Path] = typer.Argument(..., help="Run folders (test or xeval, scored with gold)."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="Show runs that scored part of a split."),
) -> None:
    """Where the run(s) would have ranked on the published AdMIRe leaderboards."""
    from senso.admire.leaderboard import leaderboards, rank_notes, render

    for board in leaderboards(runs, allow_partial=allow_partial):
        out.print(folded(render(board)))
        for note in [*rank_notes(board), *board.notes]:
            out.print(note, style="dim", soft_wrap=True)
    out.print("Official rule: first metric, the second breaking ties, on values rounded to 2 decimals as published; "
              "each run is placed on its own. Source: senso/resources/SOURCES.md", style="dim", soft_wrap=True)
