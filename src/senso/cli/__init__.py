"""Command line: a thin layer over `senso.api` and the table of tasks (`senso.catalog`), one module per command
group of the commands every family shares: `run` (run, showcase), `score`, `compare`, `data` (data stats, fetch,
overlap), `report` (report, export), `fit`, `sweep`, `catalogue` (systems, tasks). A family's own commands
(`senso leaderboard`, `senso predict` ...) are registered by the family (`Family.commands`). `app` holds the typer
application, the consoles and `main`."""

from senso.cli.app import app, console, main, normalise_args, out  # noqa: F401
from senso.cli import run as _run_commands  # noqa: F401  (registers `senso run`, `senso showcase`)
from senso.cli import data as _data_commands  # noqa: F401
from senso.cli import report as _report_commands  # noqa: F401
from senso.cli import fit as _fit_commands  # noqa: F401
from senso.cli import sweep as _sweep_commands  # noqa: F401
from senso.cli import catalogue as _catalogue_commands  # noqa: F401
from senso.cli import score as _score_commands  # noqa: F401
from senso.cli import compare as _compare_commands  # noqa: F401
from senso.cli.run import _print_summary, _print_summary_line  # noqa: F401
from senso.cli.app import family_commands as _family_commands
from senso.catalog import ON_REGISTER as _ON_REGISTER, families as _families

for _family in _families():  # each family's own commands (`Family.commands`), now and when one is registered
    _family_commands(_family, True)
_ON_REGISTER.append(_family_commands)

if __name__ == "__main__":
    main()
