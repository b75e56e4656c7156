"""Where a run stands beside published results, as data a page or the terminal shows: boards of rows (the
run's among the published ones), a rule and sources; and the published tables shipped in senso/resources."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from senso.core.csvfile import read_records

TIE_MARK = "="  # before a rank several rows share with equal rounded scores


def read_resource(name: str) -> list[dict[str, str]]:
    """Rows of a CSV shipped in senso/resources."""
    with resources.as_file(resources.files("senso").joinpath("resources", name)) as path:
        return list(read_records(path)[1])


def run_cell(rounded: float, exact: float) -> str:
    """A run's score on a board of published (rounded) values: rounded, then exact in brackets."""
    return f"{rounded:.2f} ({exact:.4f})"


@dataclass(frozen=True)
class PlacementRow:
    cells: tuple[Any, ...]
    is_run: bool = False
    is_reference: bool = False  # human annotators: beside the table, not ranked


@dataclass
class PlacementBoard:
    title: str
    columns: tuple[str, ...]
    numeric: tuple[int, ...]  # indices of right-aligned columns
    rows: list[PlacementRow]
    note: str = ""
    source: str = ""


@dataclass
class Placement:
    """Boards to show, and notes (why a run is not placed, caveats); no boards and a note when none applies."""

    boards: list[PlacementBoard] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
