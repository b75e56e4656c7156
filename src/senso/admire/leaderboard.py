"""Place runs on the published AdMIRe leaderboards (shipped in `senso/resources`, see SOURCES.md).

The table is chosen by subtask, language, split (test or xeval) and track (text-only when the
system used captions only). Official rule, Subtask A: Top-1 accuracy, DCG breaking ties; Subtask B:
image accuracy, sentence-type accuracy breaking ties. The published values are rounded to 2
decimals, so a run is compared on its values rounded the same way; its rank is 1 + the number of
published entries strictly ahead of it (each run is placed on its own, as if it were the only
extra submission).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from senso.core.errors import SensoError
from senso.core.placement import TIE_MARK, place, rank_key, rank_label, read_resource, run_cell
from senso.core.records import load_results
from senso.admire.task import OFFICIAL_METRICS, TEXT_ONLY, official_subtask

TABLE_FILES = {"a": "admire_leaderboard.csv", "b": "admire_leaderboard_b.csv"}
HUMAN_FILE = "admire_human.csv"
LEADERBOARD_SPLITS = ("test", "xeval")
_CSV_METRICS = {"a": ("top1", "dcg"), "b": ("image_acc", "sentence_type_acc")}


@dataclass(frozen=True)
class Entry:
    label: str
    scores: tuple[float, ...]  # the official metrics, in ranking order (rounded as published, for runs too)
    published_rank: int | None = None
    run: str | None = None  # run folder, for inserted runs
    exact: tuple[float, ...] | None = None  # a run's unrounded values
    unranked: str | None = None  # why a run is shown beside the board, not ranked (`unranked_reason`)


@dataclass
class Board:
    subtask: str
    lang: str
    split: str
    track: str
    metrics: tuple[str, ...]
    rows: list[tuple[int, Entry, bool]] = field(default_factory=list)  # (rank, entry, tied with a published entry)
    references: list[tuple[str, tuple[float, ...]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unranked: list[Entry] = field(default_factory=list)  # runs shown beside the board (`unranked_reason`)

    @property
    def title(self) -> str:
        n = {"test": "test", "xeval": "extended evaluation"}[self.split]
        return f"AdMIRe Subtask {self.subtask.upper()} | {self.lang} | {self.track} | {n} set"


def published_entries(subtask: str, lang: str, split: str, track: str) -> list[Entry]:
    """Published entries of one table (`split`: one of LEADERBOARD_SPLITS) with a score for `split`, in published
    rank order."""
    first, second = _CSV_METRICS[subtask]
    entries = []
    for row in read_resource(TABLE_FILES[subtask]):
        if (row["language"], row["track"]) != (lang, track):
            continue
        rank, a, b = row[f"{split}_rank"], row[f"{split}_{first}"], row[f"{split}_{second}"]
        if not (rank and a and b):
            continue
        entries.append(Entry(label=row["team"], scores=(float(a), float(b)), published_rank=int(rank)))
    return sorted(entries, key=lambda e: e.published_rank)


def human_references(subtask: str, lang: str, split: str) -> list[tuple[str, tuple[float, ...]]]:
    """The human performance published for one table (Subtask A only: none for the others)."""
    wanted = f"{subtask.upper()} {lang} {split}"
    return [(row["who"], (float(row["top1"]), float(row["dcg"]))) for row in read_resource(HUMAN_FILE) if row["set"] == wanted]


def unranked_reason(results: dict) -> str | None:
    """The placement rule for fitted systems. The published figures are on all items of the split (xeval: 100),
    so only a figure on all of them is comparable; a run whose system was fitted on data sharing a compound,
    sentence or caption with any scored item (`results["overlap"]`, `senso.admire.overlap`) has no such figure:
    its all-items figure is inflated by the items it saw, and its unseen figure is on fewer, other items. It is
    shown beside the board, not ranked; this sentence says why."""
    overlap = results.get("overlap") or {}
    if not overlap.get("n_seen"):
        return None
    unseen = (results.get("unseen") or {}).get("n", overlap.get("n_unseen"))
    shared = ", ".join(f"{field}: {k}" for field, k in (overlap.get("shared") or {}).items() if k)
    return (f"Not ranked: the published figures are on all {overlap['n']} items, and this fitted system saw "
            f"{overlap['n_seen']} of them in training (shared {shared}), so its all-items figure is inflated and "
            f"its unseen-items figure (n={unseen}) is on other items; it is shown beside the board.")


def run_entry(run_dir: str | Path, allow_partial: bool = False) -> tuple[tuple[str, str, str, str], Entry]:
    """((subtask, lang, split, track), entry) for a finished AdMIRe run folder with metrics."""
    results = load_results(run_dir)
    task = results.get("task")
    subtask = official_subtask(task)
    if subtask is None:
        raise SensoError(f"{run_dir}: task {task!r} has no AdMIRe leaderboard (admire-a or admire-b runs only)")
    names = OFFICIAL_METRICS[subtask]
    metrics = results.get("metrics") or {}
    if not all((metrics.get(m) or {}).get("value") is not None for m in names):
        raise SensoError(f"{run_dir}: the run has no {', '.join(names)}: gold is needed. Rerun it with --gold <targets file> "
                         f"(e.g. {subtask}_en_test_targets.tsv), or score its submission with `senso score {task}`")
    n, n_official = results.get("n"), results.get("n_official")
    if n != n_official and not allow_partial:
        raise SensoError(f"{run_dir}: the run scored {n} of the {n_official} items of the split; a partial run is not comparable "
                         "to the leaderboard (pass --allow-partial to show it anyway)")
    exact = tuple(float(metrics[m]["value"]) for m in names)
    label = f"▶ {results.get('system')} ({Path(run_dir).name})" + (" [partial]" if n != n_official else "")
    key = (subtask, results.get("lang", "en"), results.get("split"), results.get("track", TEXT_ONLY))
    return key, Entry(label=label, scores=tuple(round(v, 2) for v in exact), run=str(run_dir), exact=exact,
                      unranked=unranked_reason(results))


def leaderboards(run_dirs: Sequence[str | Path], allow_partial: bool = False) -> list[Board]:
    """One Board per (subtask, language, split, track) among the runs, runs inserted at their rank."""
    boards: list[Board] = []
    runs: dict[tuple[str, str, str, str], list[Entry]] = {}
    for run_dir in run_dirs:
        key, entry = run_entry(run_dir, allow_partial)
        subtask, lang, split, track = key
        if split not in LEADERBOARD_SPLITS:
            raise SensoError(f"{run_dir}: a {split} run; the published leaderboards are on the test and xeval splits only "
                             "(train/dev numbers are not comparable to them)")
        runs.setdefault(key, []).append(entry)
    for key, run_entries in runs.items():
        subtask, lang, split, track = key
        published = published_entries(subtask, lang, split, track)
        board = Board(subtask, lang, split, track, OFFICIAL_METRICS[subtask])
        placed = [(e.published_rank, e, False) for e in published]
        board.unranked = [e for e in run_entries if e.unranked]
        board.notes += [e.unranked for e in board.unranked]
        for entry in (e for e in run_entries if not e.unranked):
            where = place([e.scores for e in published], entry.scores)
            placed.append((where.rank, entry, where.tied))
        # published entries keep their published order; a run goes after the entries it ties or trails
        board.rows = sorted(placed, key=lambda r: (rank_key(r[1].scores), r[1].run is not None, r[0]))
        board.references = human_references(subtask, lang, split)
        if not published:
            board.notes.append("no published entry in this table")
        boards.append(board)
    return boards


TIE_NOTE = f"{TIE_MARK}N: tied at rank N under the official rule (equal values at 2 decimals)."


def rank_labels(board: Board) -> list[str]:
    """The rank column of `board.rows`: `=N` on every row of a tie (a run and the published entry it ties
    alike), plain `N` otherwise."""
    labels = []
    for rank, entry, tied in board.rows:
        shared = any(other is not entry and r == rank and rank_key(other.scores) == rank_key(entry.scores)
                     for r, other, _ in board.rows)
        labels.append(rank_label(rank, tied or shared))
    return labels


def rank_notes(board: Board) -> list[str]:
    """What the rank column cannot say alone: the tie mark, and a run ranked N ahead of the published entry N."""
    labels = rank_labels(board)
    notes = [TIE_NOTE] if any(label.startswith(TIE_MARK) for label in labels) else []
    published = {e.published_rank for _, e, _ in board.rows if e.run is None}
    for (rank, entry, tied), label in zip(board.rows, labels):
        if entry.run is not None and not tied and rank in published:
            notes.append(f"{entry.label} ranks {rank}: ahead of the published entry ranked {rank}, which it would "
                         f"push to {rank + 1} (each run is placed on its own; published ranks are not renumbered).")
    return notes


def board_rows(board: Board, run_label: Callable[[Entry], str]) -> list[tuple[str, tuple[Any, ...]]]:
    """(kind, cells) of every row of `board` as a table shows it: "published" (rank, team, scores), "run" (rank,
    `run_label`, rounded and exact scores), "unranked" (a run beside the board) and "human" (references)."""
    rows: list[tuple[str, tuple[Any, ...]]] = []
    for (rank, entry, tied), label in zip(board.rows, rank_labels(board)):
        rows.append(("published", (label, entry.label, *entry.scores)) if entry.run is None else
                    ("run", (label, run_label(entry), *_run_cells(entry))))
    rows += [("unranked", (UNRANKED, run_label(entry), *_run_cells(entry))) for entry in board.unranked]
    return rows + [("human", ("", f"human: {who}", *scores)) for who, scores in board.references]


def _run_cells(entry: Entry) -> list[str]:
    return [run_cell(r, x) for r, x in zip(entry.scores, entry.exact or entry.scores)]


def render(board: Board):
    """A rich Table of one board."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=board.title)
    table.add_column("rank", justify="right")
    table.add_column("team / run")
    for m in board.metrics:
        table.add_column(LABELS[m], justify="right")
    for kind, (rank, label, *scores) in board_rows(board, lambda entry: entry.label):
        if kind in ("published", "human"):
            table.add_row(rank, label, *(f"{s:.2f}" for s in scores), style="dim" if kind == "human" else None)
        else:
            table.add_row(Text(rank, style="bold") if kind == "run" else rank,
                          Text(label, style="bold green" if kind == "run" else "bold"), *scores)
    return table


UNRANKED = "not ranked"  # the rank cell of a run shown beside a board (`unranked_reason`)
LABELS = {"top1": "Top-1", "dcg": "DCG", "image_accuracy": "image acc.", "sentence_type_accuracy": "sentence-type acc."}
