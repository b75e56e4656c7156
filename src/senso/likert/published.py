"""Where a Likert run stands beside published results: ABRICOT's published Pearson r (senso/resources), the
run inserted at the rank the published rule gives; the figure a summary row shows beside it; and how the run
was evaluated, in a few words."""

from __future__ import annotations

from typing import Any

from senso.core.placement import (
    Placement, PlacementBoard, PlacementRow, partial, place, read_resource, run_cell,
)

COMPARE_LINE = ("Compare like with like: a 0-shot r with the published 0-shot figures; a leave-one-lemma-out r "
                "is a supervised system's, trained on the other lemmas, not a prompted model's.")
ABRICOT_COLUMNS = {"abricot-abs": "pearson_abs", "abricot-inc": "pearson_inc"}
# The short label a terminal table shows for each source of abricot_results.csv; the legend says it once.
ABRICOT_SOURCES = {"ABRICOT paper (CLiC-it 2024)": "paper",
                   "CALAMITA results table (calamita-eval results/results.md)": "CALAMITA"}
ABRICOT_LEGEND = ("; ".join(f"{label}: {source}" for source, label in ABRICOT_SOURCES.items())
                  + "; see senso/resources/SOURCES.md.")
PLACEMENT_NOTE = ("Published figures come from other models and set-ups (0-shot and 3-shot; the CALAMITA harness run "
                  "used --limit 100, vLLM and fp16): the placement is indicative. Published rows keep their own ranks; "
                  "the run's rank is 1 + the number of published figures above it (rounded to 2 decimals, as published).")


def abricot_published(task: str) -> list[tuple[str, str, str, float]]:
    """(model, protocol, short source label, Pearson r) of every published figure for an ABRICOT task, best first."""
    column = ABRICOT_COLUMNS[task]
    published = [(row["model"], row["protocol"], ABRICOT_SOURCES.get(row["source"], row["source"]), float(row[column]))
                 for row in read_resource("abricot_results.csv") if row.get(column, "").strip()]
    return sorted(published, key=lambda p: -p[3])


def _not_placed(run: Any, pearson: dict[str, Any]) -> str | None:
    if run.results.get("limit") or partial(run.results):
        return (f"This run is not placed: it is PARTIAL, it scored only the first "
                f"{run.results.get('limit') or run.results.get('n')} items (--limit), and is not comparable to the "
                "published full-set results below.")
    if pearson.get("value") is None:
        return f"This run is not placed: its Pearson r is undefined ({pearson.get('reason', 'no value')})."
    return None


def abricot_placement(run: Any) -> Placement:
    """The run's official Pearson r among the published ABRICOT figures for its task (rank = 1 + the number
    of published figures strictly higher, on values rounded to 2 decimals as published)."""
    if run.task not in ABRICOT_COLUMNS:
        return Placement(notes=[f"No published figures for {run.task}: only ABRICOT's tasks have a leaderboard."])
    published = abricot_published(run.task)
    pearson = run.results.get("metrics", {}).get("pearson") or {}
    rows = [PlacementRow((k, model, protocol, source, r)) for k, (model, protocol, source, r) in enumerate(published, 1)]
    note = _not_placed(run, pearson)
    if note is None:
        exact = float(pearson["value"])
        where = place([(p[3],) for p in published], (exact,))
        row = PlacementRow((where.label, run.system, evaluation_label(run), "this run",
                            run_cell(round(exact, 2), exact)), is_run=True)
        rows.insert(where.after, row)  # after the entries it ties or trails
    board = PlacementBoard(
        title=f"Published Pearson r on {run.task} (predicted label vs discretised gold)",
        columns=("rank", "model / run", "protocol", "source", "Pearson r"), numeric=(0, 4), rows=rows,
        note=PLACEMENT_NOTE, source=ABRICOT_LEGEND)
    return Placement(boards=[board], notes=[note] if note else [])


def evaluation_label(run: Any) -> str:
    """`0-shot`, `3-shot` (a prompted LM) or `leave-one-lemma-out` (a supervised system, by its task's group)."""
    results = run.results
    if results.get("supervised"):
        from senso.likert.page import run_group_noun

        return f"leave-one-{run_group_noun(results)}-out"
    return f"{results.get('shots') or 0}-shot"


def best_published(run: Any) -> tuple[str | None, str | None]:
    """ABRICOT's best published r under the same number of shots (a supervised run: the best of all)."""
    if run.task not in ABRICOT_COLUMNS:
        return None, None
    shots = None if run.results.get("supervised") else (run.results.get("shots") or 0)
    published = [p for p in abricot_published(run.task) if shots is None or p[1].startswith(f"{shots}-shot")]
    if not published:
        return None, None
    model, protocol, source, r = published[0]
    return f"{r:.2f} ({protocol.split()[0]})", None
