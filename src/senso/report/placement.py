"""Leaderboard placement for a run page: the published tables (senso/resources, read through
`senso.admire.leaderboard`) with the run inserted at the rank the official rule gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from senso.core.errors import SensoError
from senso.report.run_folder import RunFolder

ABRICOT_COLUMNS = {"abricot-abs": "pearson_abs", "abricot-inc": "pearson_inc"}
# The short label a terminal table shows for each source of abricot_results.csv; the legend says it once.
ABRICOT_SOURCES = {"ABRICOT paper (CLiC-it 2024)": "paper",
                   "CALAMITA results table (calamita-eval results/results.md)": "CALAMITA"}
ABRICOT_LEGEND = ("; ".join(f"{label}: {source}" for source, label in ABRICOT_SOURCES.items())
                  + "; see senso/resources/SOURCES.md.")


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


def _run_cell(rounded: float, exact: float) -> str:
    return f"{rounded:.2f} ({exact:.4f})"


def admire_placement(run: RunFolder) -> Placement:
    from senso.admire import leaderboard

    try:
        boards = leaderboard.leaderboards([run.path])
    except SensoError as exc:
        return Placement(notes=[f"Not placed: {exc}"])
    labels = {"top1": "Top-1", "dcg": "DCG", "image_accuracy": "image acc.", "sentence_type_accuracy": "sentence-type acc."}
    out = Placement()
    for board in boards:
        rows = []
        for (rank, entry, tied), label in zip(board.rows, leaderboard.rank_labels(board)):
            if entry.run is None:
                rows.append(PlacementRow((label, entry.label, *entry.scores)))
            else:
                values = [_run_cell(r, x) for r, x in zip(entry.scores, entry.exact or entry.scores)]
                rows.append(PlacementRow((label, f"this run: {run.system}", *values), is_run=True))
        rows += [PlacementRow((leaderboard.UNRANKED, f"this run: {run.system}",
                               *(_run_cell(r, x) for r, x in zip(e.scores, e.exact or e.scores))), is_run=True)
                 for e in board.unranked]
        rows += [PlacementRow(("", f"human: {who}", *scores), is_reference=True) for who, scores in board.references]
        note = ("Official rule: " + ", then ".join(labels[m] for m in board.metrics) + " (published values are "
                "rounded to 2 decimals, so the run is ranked on its rounded values; exact in brackets; = marks a tie).")
        if board.references:
            note += " Human annotators are shown beside the table, unranked."
        out.boards.append(PlacementBoard(
            title=board.title, columns=("rank", "team / run", *(labels[m] for m in board.metrics)), numeric=(0, 2, 3),
            rows=rows, note=note + "".join(f" {n.rstrip('.')}." for n in board.notes),
            source="SemEval-2025 Task 1 final official leaderboards (organisers' results page); human performance "
                   "from the task paper. See senso/resources/SOURCES.md."))
    return out


def abricot_placement(run: RunFolder) -> Placement:
    """The run's official Pearson r among the published ABRICOT figures for its task (rank = 1 + the number
    of published figures strictly higher, on values rounded to 2 decimals as published)."""
    column = ABRICOT_COLUMNS.get(run.task)
    if column is None:
        return Placement(notes=[f"No published figures for {run.task}: only ABRICOT's tasks have a leaderboard."])
    published = abricot_published(run.task)
    notes = []
    pearson = run.results.get("metrics", {}).get("pearson") or {}
    rows = [PlacementRow((k, model, protocol, source, r)) for k, (model, protocol, source, r) in enumerate(published, 1)]
    partial = [w for w in run.results.get("warnings", []) if str(w).startswith("PARTIAL")]
    if run.results.get("limit") or partial:
        notes.append(f"This run is not placed: it is PARTIAL, it scored only the first {run.results.get('limit') or run.results.get('n')} "
                     "items (--limit), and is not comparable to the published full-set results below.")
    elif pearson.get("value") is None:
        notes.append(f"This run is not placed: its Pearson r is undefined ({pearson.get('reason', 'no value')}).")
    else:
        exact = float(pearson["value"])
        rank = 1 + sum(1 for p in published if p[3] > round(exact, 2))
        tied = any(p[3] == round(exact, 2) for p in published)
        protocol = evaluation_label(run)
        from senso.admire.leaderboard import TIE_MARK

        row = PlacementRow((f"{TIE_MARK if tied else ''}{rank}", run.system, protocol, "this run",
                            _run_cell(round(exact, 2), exact)), is_run=True)
        # after the published entries it ties or trails
        position = sum(1 for p in published if p[3] >= round(exact, 2))
        rows.insert(position, row)
    board = PlacementBoard(
        title=f"Published Pearson r on {run.task} (predicted label vs discretised gold)",
        columns=("rank", "model / run", "protocol", "source", "Pearson r"), numeric=(0, 4), rows=rows,
        note="Published figures come from other models and set-ups (0-shot and 3-shot; the CALAMITA harness run "
             "used --limit 100, vLLM and fp16): the placement is indicative. Published rows keep their own ranks; the "
             "run's rank is 1 + the number of published figures above it (rounded to 2 decimals, as published).",
        source=ABRICOT_LEGEND)
    return Placement(boards=[board], notes=notes)


def abricot_published(task: str) -> list[tuple[str, str, str, float]]:
    """(model, protocol, short source label, Pearson r) of every published figure for an ABRICOT task, best first."""
    from senso.admire.leaderboard import read_resource

    column = ABRICOT_COLUMNS[task]
    published = [(row["model"], row["protocol"], ABRICOT_SOURCES.get(row["source"], row["source"]), float(row[column]))
                 for row in read_resource("abricot_results.csv") if row.get(column, "").strip()]
    return sorted(published, key=lambda p: -p[3])


def evaluation_label(run: RunFolder) -> str:
    """How a run was evaluated, in a few words: `0-shot`, `3-shot` (a prompted LM), `leave-one-lemma-out` (a
    supervised Likert system, by its task's group), or the AdMIRe system's own account of its fitting."""
    results = run.results
    if run.kind == "likert":
        if results.get("supervised"):
            from senso.report.likert import run_group_noun

            return f"leave-one-{run_group_noun(results)}-out"
        shots = results.get("shots") or 0
        return f"{shots}-shot"
    return admire_evaluation(results)


def placement_for(run: RunFolder) -> Placement:
    if run.kind == "likert":
        return abricot_placement(run)
    return admire_placement(run)


def admire_evaluation(results: dict[str, Any]) -> str:
    """How an AdMIRe run's system met gold: training-free, cross-validated by compound, fitted on a split, or
    loaded from a model file (`results["fitting"]`, `senso.admire.systems.fitting`)."""
    fitting = results.get("fitting")
    if fitting is None:
        return "training-free"
    if fitting.get("cross_validated"):
        return f"{fitting.get('folds')}-fold CV by {fitting.get('grouped_by', 'compound')}"
    if fitting.get("model_file"):
        return "fitted (model file)"
    return f"fitted on {str(fitting.get('fit_on', 'gold')).replace('en ', 'EN ')}"
