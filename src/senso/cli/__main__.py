"""`python -m senso.cli`."""

from senso.cli import main

main()
