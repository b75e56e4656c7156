"""Terminal tables of a Likert run (rich): the metrics overall (per domain where they fit, or asked); how far a
supervised model travels. Each fits the console's width (80 columns when output is not a terminal); an undefined
value is one mark, its reason a footnote."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from senso.core.stats import Estimate
from senso.core.tables import Footnotes, folded, metric_tables, print_footnotes
from senso.core.terminal import terminal


def print_result(result: Any, by_group: bool = False) -> None:
    """A finished Likert run (`senso.core.evaluation.EvalResult`) on the terminal: its metrics (`by_group`: per
    domain too, as columns where they fit, else one table per domain), and how far a supervised system travels."""
    results = result.results
    print_summary(result.task, result.system, results, result.metrics, result.metrics_by_group, result.n, by_group)
    if "generalisation" in results:
        print_travel(results["generalisation"])


def print_summary(task_name: str, system: str, info: dict[str, Any], metrics: dict[str, Estimate],
                  by_domain: dict[str, dict[str, Estimate]], n: int, by_group: bool = False) -> None:
    console, footnotes = terminal(), Footnotes()
    protocol = "supervised" if info.get("supervised") else info.get("protocol")
    title = f"{task_name} · {system} · {protocol} · n={n}"
    for table in metric_tables(console, title, metrics, by_domain, by_group_asked=by_group, footnotes=footnotes):
        console.print(table)
    print_footnotes(console, footnotes)


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
