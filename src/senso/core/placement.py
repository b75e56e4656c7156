"""Where a run stands beside published results, as data a page or the terminal shows: boards of rows (the
run's among the published ones), a rule and sources; and the published tables shipped in senso/resources."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Mapping, Sequence

from senso.core.csvfile import read_records

TIE_MARK = "="  # before a rank several rows share with equal rounded scores


def read_resource(name: str) -> list[dict[str, str]]:
    """Rows of a CSV shipped in senso/resources."""
    with resources.as_file(resources.files("senso").joinpath("resources", name)) as path:
        return list(read_records(path)[1])


def partial(results: Mapping[str, Any]) -> str | None:
    """Why a run scored only part of its data set (results.json's `partial`, `core.evaluation.Partial`), or None."""
    return results.get("partial")


def rank_key(scores: Sequence[float], digits: int = 2) -> tuple[float, ...]:
    """Ascending sort key of a board's rule: the scores rounded as published (`digits`), higher first, each
    breaking the ties of the ones before it."""
    return tuple(-round(score, digits) for score in scores)


@dataclass(frozen=True)
class Place:
    """Where a run goes on a published board: its `rank` (1 + the published rows strictly ahead of it), whether it
    `tied` one, and `after`, how many published rows it follows (those it ties or trails)."""

    rank: int
    tied: bool
    after: int

    @property
    def label(self) -> str:
        return rank_label(self.rank, self.tied)


def place(published: Sequence[Sequence[float]], scores: Sequence[float]) -> Place:
    """The place the rule gives a run with `scores` among the `published` rows' scores (compared on their rounded
    values, `rank_key`)."""
    key, keys = rank_key(scores), [rank_key(row) for row in published]
    ahead = sum(1 for other in keys if other < key)
    tied = sum(1 for other in keys if other == key)
    return Place(ahead + 1, tied > 0, ahead + tied)


def rank_label(rank: int, tied: bool) -> str:
    """A rank as a board shows it: `=N` on a tie, `N` otherwise."""
    return f"{TIE_MARK if tied else ''}{rank}"


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
