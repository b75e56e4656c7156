"""`senso` (the console script) and `python -m senso`: the command line. An error met while it is being set up
(an installed family whose entry point is broken: `senso.catalog`) is said as every error is, not as a traceback."""

from __future__ import annotations

import sys


def main() -> None:
    from senso.core.errors import SensoError

    try:
        from senso.cli import main as command_line
    except SensoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    command_line()


if __name__ == "__main__":
    main()
