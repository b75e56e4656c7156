"""Terminal tables of a Likert run (rich): the metrics overall (per domain where they fit, or asked); how far a
supervised model travels. Each fits the console's width (80 columns when output is not a terminal); an undefined
value is one mark, its reason a footnote."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from senso.core.calibration import BY_GROUP
from senso.core.stats import Estimate
from senso.core.tables import Footnotes, folded, print_calibration, print_footnotes, print_run_metrics
from senso.core.terminal import terminal


def print_result(result: Any, by_group: bool = False) -> None:
    """A finished Likert run (`senso.core.evaluation.EvalResult`) on the terminal: its metrics (`by_group`: per
    domain too, as columns where they fit, else one table per domain), and how far a supervised system travels."""
    results = result.results
    print_summary(result.task, result.system, results, result.metrics, result.metrics_by_group, result.n, by_group)
    if "generalisation" in results:
        print_travel(results["generalisation"])
    calibration = results.get("calibration")
    if calibration:
        print_calibration(terminal(), calibration, "calibration of the label distributions",
                          calibration.get(BY_GROUP, {}), by_group_asked=by_group)


def print_summary(task_name: str, system: str, info: dict[str, Any], metrics: dict[str, Estimate],
                  by_domain: dict[str, dict[str, Estimate]], n: int, by_group: bool = False) -> None:
    protocol = "supervised" if info.get("supervised") else info.get("protocol")
    print_run_metrics(terminal(), f"{task_name} · {system} · {protocol} · n={n}", metrics, by_domain, info,
                      by_group_asked=by_group)


def travel_rows(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(what it measures, estimate as in results.json) per travel measure, then the official label r."""
    labels = report.get("labels", {})
    rows = [(labels.get(key, key), est) for key, est in report.get("measures", {}).items()]
    return rows + [(labels.get("label_r", "label_r"), report["label_r"])] if "label_r" in report else rows


def print_travel(report: dict[str, Any]) -> None:
    """How far the model travels (`generalisation.travel_report`), one row per measure: r and its 95% CI."""
    console, footnotes = terminal(), Footnotes()
    table = Table(title=f"how far {report['system']} travels (r vs the raw gold, 95% CI, n={report.get('n')})",
                  title_justify="left")
    table.add_column("measure")
    table.add_column("r", justify="right")
    for name, est in travel_rows(report):
        table.add_row(name, footnotes.cell(Estimate(**est)))
    console.print(folded(table))
    print_footnotes(console, footnotes)


def print_overlap(rows: list, n_eval: int, evaluated: str, training: str, noun: str) -> None:
    """`senso data overlap` on a Likert task: per evaluation item sharing its group or its text with the
    training side, the ids of the training items that share them."""
    table = Table(title=f"{len(rows)} of the {n_eval} items of {evaluated} share a {noun} or a text with {training}")
    for column in ("id", noun, f"training items of the {noun}", "training items with the same text", "text"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row.id, row.group, f"{len(row.same_group)}" if row.same_group else "-",
                      ", ".join(row.same_text) or "-", row.text)
    terminal().print(folded(table))
    groups = sorted({r.group for r in rows if r.same_group})
    terminal().print(f"{len(groups)} shared {noun}s ({', '.join(groups) or 'none'}); "
                     f"{sum(bool(r.same_text) for r in rows)} items share their text.", soft_wrap=True)
