"""`senso sweep`: every combination of a sweep file, locally or on Ray, then its summary."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from senso.cli.app import app, console, out

@app.command()
def sweep(
    sweep_file: Path = typer.Argument(..., help="sweep.toml: [grid] of RunOptions fields, [options], [ray]."),
    ray: Optional[str] = typer.Option(None, "--ray", help="Run as Ray tasks: auto (running cluster), local, or an ADDRESS."),
    workers: int = typer.Option(1, "--workers", help="Local worker processes (without --ray)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Folder for runs and summary (default: the file's `out`)."),
) -> None:
    """Run every combination in a sweep file (skipping finished runs) and write summary.csv / summary.md."""
    from senso.sweep import load_sweep, run_sweep

    plan = load_sweep(sweep_file, out=out_dir)
    console.print(f"{len(plan.runs)} runs in {plan.out}")

    def report(planned) -> None:
        note = f": {planned.error}" if planned.error else ""
        console.print(f"  {planned.status:6} {planned.run_dir.name}{note}", soft_wrap=True)

    outcome = run_sweep(plan, workers=workers, ray_address=ray, report=report)
    out.print(outcome["summary_md"].read_text(encoding="utf-8"))
    console.print(f"done {outcome['done']}, ran {outcome['ran']}, failed {outcome['failed']}; "
                  f"summary: {outcome['summary_csv']}, {outcome['summary_md']}")
    if outcome["failed"]:
        raise typer.Exit(code=1)
