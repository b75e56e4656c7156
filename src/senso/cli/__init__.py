"""Command line: a thin layer over `senso.api` and the table of tasks (`senso.catalog`), one module per command
group: `run` (run, showcase), `score` (score, submission pack), `compare` (compare, leaderboard), `data` (data
stats, fetch, overlap), `report` (report, export), `fit` (fit, predict), `sweep`, `catalogue` (systems, tasks).
`app` holds the typer application, the consoles and `main`."""

from senso.cli.app import app, console, main, normalise_args, out  # noqa: F401
from senso.cli import run as _run_commands  # noqa: F401  (registers `senso run`, `senso showcase`)
from senso.cli import data as _data_commands  # noqa: F401
from senso.cli import report as _report_commands  # noqa: F401
from senso.cli import fit as _fit_commands  # noqa: F401
from senso.cli import sweep as _sweep_commands  # noqa: F401
from senso.cli import catalogue as _catalogue_commands  # noqa: F401
from senso.cli import score as _score_commands  # noqa: F401
from senso.cli import compare as _compare_commands  # noqa: F401
from senso.cli.run import MAIN_JOB, _print_summary, _print_summary_line  # noqa: F401

if __name__ == "__main__":
    main()
