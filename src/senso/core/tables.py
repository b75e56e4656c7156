"""Terminal tables that wrap, never cut: at 80 columns a long cell folds onto more lines instead of ending in "…"."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

CELL_OVERFLOW = "fold"  # rich's default for a column is "ellipsis", which hides the end of a long name


def folded(table: Table) -> Table:
    """`table`, every column set to wrap its cells (words first, then a long word across lines)."""
    for column in table.columns:
        column.overflow = CELL_OVERFLOW
    return table
