"""A run in one line, and several runs in one table that fits 80 columns: task, system, how it was evaluated,
its headline metric with the 95% CI, and the best published figure beside it (read from the run folders alone).

The headline is the first metric a run records (its task's official score: ABRICOT's Pearson r, AdMIRe's Top-1,
...). The best published figure is the one a reader would compare with: ABRICOT's best under the same number of
shots (a supervised run: the best of all), AdMIRe's best on the test leaderboard of the run's language and track.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.stats import Estimate
from senso.core.tables import Footnotes, folded
from senso.reporting.placement import evaluation_label
from senso.core.run_folder import RunFolder
from senso.reporting.run_folder import load_run



@dataclass(frozen=True)
class SummaryRow:
    """One run as the summary shows it; `published` is a figure to read beside it (None: none published),
    `published_note` what a reader must know about that figure (a footnote)."""

    task: str
    system: str
    evaluation: str
    metric: str
    estimate: Estimate | None
    published: str | None
    published_note: str | None
    run_dir: Path
    missing: tuple[str, ...] = ()  # the run's `score_warnings`: what it went without (its score's footnote)
    family: Any = None  # the run's `senso.core.task.Family` (its `summary_note`)


def summary_row(run: RunFolder) -> SummaryRow:
    results = run.results
    metrics = results.get("metrics") or {}
    name = next(iter(metrics), None)
    estimate = Estimate(**metrics[name]) if name is not None else None
    published, note = run.task_def.family.best_published(run)
    metric = run.task_def.metric(name) if name is not None else None
    short = (metric.short if metric is not None else None) or name or "no gold"
    missing = tuple(results.get("score_warnings") or ())
    return SummaryRow(task=run.task_def.family.summary_name(run), system=run.system, evaluation=evaluation_label(run),
                      metric=short, estimate=estimate, published=published, published_note=note, run_dir=run.path,
                      missing=missing, family=run.task_def.family)


def summary_notes(rows: Sequence[SummaryRow]) -> list[str]:
    """What each family says under a table of its runs (`Family.summary_note`), once each."""
    families = dict.fromkeys(row.family for row in rows if row.family is not None)
    notes = [family.summary_note([row.evaluation for row in rows if row.family is family]) for family in families]
    return [note for note in notes if note]


def summary_rows(run_dirs: Sequence[Path]) -> list[SummaryRow]:
    return [summary_row(load_run(run_dir)) for run_dir in run_dirs]


def summary_line(row: SummaryRow, footnotes: Footnotes) -> str:
    """`abricot-abs · likert-lm · 0-shot · r 0.412 [0.25, 0.55] (best published 0.50 (0-shot))`."""
    value = f"{row.metric} {footnotes.cell(row.estimate)}" if row.estimate is not None else "no metrics (no gold)"
    value += "".join(footnotes.mark(warning) for warning in row.missing)
    published = f" · best published {row.published}" if row.published else ""
    return f"{row.task} · {row.system} · {row.evaluation} · {value}{published}"


# The summary's columns: (header, width); with the gap of 2 between them, 80 columns in all.
SUMMARY_COLUMNS = (("task", 11), ("system", 15), ("evaluated", 19), ("score [95% CI]", 19), ("best pub.", 8))


def summary_table(rows: Sequence[SummaryRow], footnotes: Footnotes, title: str | None = None):
    """The runs, one row each: task, system, evaluated, headline [95% CI], best published; 80 columns at most,
    no cell on more than two lines (a long score puts its interval on the second)."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  padding=(0, 1, 0, 0))  # a gap is this padding and the box's blank divider
    for k, (header, width) in enumerate(SUMMARY_COLUMNS):
        table.add_column(header, justify="right" if k >= 3 else "left", width=width)
    for row in rows:
        task = row.task.replace(" (", "\n").rstrip(")")
        table.add_row(task, row.system, row.evaluation, _score_cell(row, footnotes), _published_cell(row, footnotes))
    return folded(table)


def _score_cell(row: SummaryRow, footnotes: Footnotes) -> str:
    marks = "".join(footnotes.mark(warning) for warning in row.missing)
    if row.estimate is None:
        return "no gold" + marks
    value = footnotes.cell(row.estimate, digits=2, ci=False)
    full = footnotes.cell(row.estimate, digits=2)
    text = f"{row.metric} {full}{marks}"
    width = SUMMARY_COLUMNS[3][1]
    return text if len(text) <= width else f"{row.metric} {value}{marks}\n{full[len(value) + 1:]}"


def _published_cell(row: SummaryRow, footnotes: Footnotes) -> str:
    if row.published is None:
        return "—"
    mark = footnotes.mark(row.published_note) if row.published_note else ""
    value, _, what = row.published.partition(" ")
    return f"{value}{mark}\n{what}" if what else value + mark


def run_parent(rows: Sequence[SummaryRow]) -> Path:
    """The folder that holds every row's run folder (their common parent)."""
    import os

    if not rows:
        raise SensoError("no runs to summarise")
    return Path(os.path.commonpath([str(row.run_dir.parent) for row in rows]))


def describe_runs(rows: Sequence[SummaryRow]) -> str:
    """Where the runs are: `Run folders: PARENT/<name>/ (...)` with each row's folder name."""
    parent = run_parent(rows)
    names = ", ".join(str(row.run_dir.relative_to(parent)) for row in rows)
    return f"Run folders in {parent}/: {names}; `senso report FOLDER` writes a run's page."


def to_json(row: SummaryRow) -> dict[str, Any]:
    return {"task": row.task, "system": row.system, "evaluation": row.evaluation, "metric": row.metric,
            "estimate": None if row.estimate is None else row.estimate.to_json(), "best_published": row.published,
            "run_dir": str(row.run_dir)}
