"""`senso compare RUN_A RUN_B`: two runs of a task, paired, per metric (what `senso.compare` returns, as tables or
`--json`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from senso.cli.app import app, out
from senso.core.errors import SensoError
from senso.core.tables import folded


@app.command()
def compare(
    runs: list[str] = typer.Argument(..., metavar="RUN_A RUN_B", help="RUN_A RUN_B: two run folders of one task "
                                     "(a task compared against a targets file: or submission files); the task is read "
                                     "from the runs (TASK RUN_A RUN_B also works)."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="A targets file, for a task compared against one "
                                                             "(default: the gold in the runs' samples)."),
    resamples: int = typer.Option(10000, "--resamples", help="Permutation / bootstrap resamples."),
    seed: int = typer.Option(0, "--seed"),
    as_json: bool = typer.Option(False, "--json", help="Print what senso.compare returns, as JSON."),
) -> None:
    """Paired comparison of two systems on the same items: per metric, A - B with a 95% CI and a permutation p-value."""
    from senso.api import compare as compare_runs
    from senso.core.comparison import comparison_table

    if len(runs) not in (2, 3):
        raise SensoError(f"senso compare takes two runs (RUN_A RUN_B), or TASK RUN_A RUN_B; got {len(runs)} arguments")
    task, (run_a, run_b) = (runs[0] if len(runs) == 3 else None), runs[-2:]
    result = compare_runs(Path(run_a), Path(run_b), task=task, gold=gold, n_resamples=resamples, seed=seed)
    if as_json:
        out.print_json(data=result.to_json())
        return
    out.print(folded(comparison_table(result)))
    if any(row.calibration for row in result.differences):
        out.print(folded(comparison_table(result, calibration=True)))
    for note in result.notes:
        out.print(note, style="dim", soft_wrap=True)
