"""Where an AdMIRe run stands beside published results: the official leaderboards (`admire.leaderboard`) with
the run inserted at the rank the official rule gives; the best published figure a summary row shows beside it;
and how the run's system met gold, in a few words."""

from __future__ import annotations

from typing import Any

from senso.core.errors import SensoError
from senso.core.placement import Placement, PlacementBoard, PlacementRow

SOURCE = ("SemEval-2025 Task 1 final official leaderboards (organisers' results page); human performance from the "
          "task paper. See senso/resources/SOURCES.md.")


def admire_placement(run: Any) -> Placement:
    from senso.admire import leaderboard

    try:
        boards = leaderboard.leaderboards([run.path])
    except SensoError as exc:
        return Placement(notes=[f"Not placed: {exc}"])
    out = Placement()
    for board in boards:
        labels = [leaderboard.LABELS[m] for m in board.metrics]
        note = ("Official rule: " + ", then ".join(labels) + " (published values are rounded to 2 decimals, so the "
                "run is ranked on its rounded values; exact in brackets; = marks a tie).")
        if board.references:
            note += " Human annotators are shown beside the table, unranked."
        rows = [PlacementRow(cells, is_run=kind in ("run", "unranked"), is_reference=kind == "human")
                for kind, cells in leaderboard.board_rows(board, lambda entry: f"this run: {run.system}")]
        out.boards.append(PlacementBoard(title=board.title, columns=("rank", "team / run", *labels), numeric=(0, 2, 3),
                                         rows=rows, note=note + "".join(f" {n.rstrip('.')}." for n in board.notes),
                                         source=SOURCE))
    return out


def admire_evaluation(run: Any) -> str:
    """How an AdMIRe run's system met gold: training-free, cross-validated by compound, fitted on a split, or
    loaded from a model file (`results["fitting"]`, `senso.admire.systems.fitting`)."""
    fitting = run.results.get("fitting")
    if fitting is None:
        return "training-free"
    if fitting.get("cross_validated"):
        return f"{fitting.get('folds')}-fold CV by {fitting.get('grouped_by', 'compound')}"
    if fitting.get("model_file"):
        return "fitted (model file)"
    return f"fitted on {str(fitting.get('fit_on', 'gold')).replace('en ', 'EN ')}"


def best_published(run: Any) -> tuple[str | None, str | None]:
    """The best published figure on the test leaderboard of the run's subtask, language and track (the run's own
    board when it scored test or xeval)."""
    from senso.admire.leaderboard import LEADERBOARD_SPLITS, TABLE_FILES, published_entries
    from senso.admire.metrics import METRICS
    from senso.admire.task import SUBTASK_OF

    subtask = SUBTASK_OF.get(run.kind)
    if subtask not in TABLE_FILES:  # the sense classification alone has no leaderboard
        return None, None
    results = run.results
    lang, split, track = results.get("lang"), results.get("split"), results.get("track")
    board = split if split in LEADERBOARD_SPLITS else LEADERBOARD_SPLITS[0]
    entries = published_entries(subtask, lang, board, track)
    if not entries:
        return None, None
    headline = METRICS.get(next(iter(results.get("metrics") or {}), ""))
    short = (headline.short if headline else None) or "score"
    note = None if board == split else (f"the best {track} {lang} {short} on the {board} leaderboard "
                                        f"({entries[0].label}); this run scored {split}, other items")
    return f"{entries[0].scores[0]:.2f} ({board})", note
