"""Terminal tables of a Likert run (rich): the metrics overall and per domain; how far a supervised model travels."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from senso.core.tables import folded
from senso.core.terminal import terminal
from senso.core.stats import Estimate


def print_result(result: Any) -> None:
    """A finished Likert run (`senso.core.evaluation.EvalResult`) on the terminal: its metrics, and how far a
    supervised system travels."""
    results = result.results
    print_summary(result.task, result.system, results, result.metrics, result.metrics_by_group, result.n)
    if "generalisation" in results:
        print_travel(results["generalisation"])
    if results.get("calibration"):
        print_calibration(results["calibration"])


def print_summary(task_name: str, system: str, info: dict[str, Any], metrics: dict[str, Estimate],
                  by_domain: dict[str, dict[str, Estimate]], n: int) -> None:
    table = Table(title=f"{task_name} · {system} · {info.get('protocol')} · n={n}")
    table.add_column("metric")
    unseen = info.get("unseen")
    if unseen:  # a supervised run: the items that share nothing with their training fold are the headline
        table.add_column(f"UNSEEN (n={unseen['n']})", justify="right", style="bold")
    table.add_column("all", justify="right")
    for domain in by_domain:
        table.add_column(domain, justify="right")
    for name, estimate in metrics.items():
        headline = [Estimate(**unseen[name]).format()] if unseen and name in unseen else []
        table.add_row(name, *headline, estimate.format(), *(by_domain[d][name].format() for d in by_domain))
    _print(table)
    if "overlap" in info:
        terminal().print(f"overlap with the training data: {info['overlap']['why']}", soft_wrap=True)


def print_calibration(calibration: dict[str, Any]) -> None:
    """Calibration of the label distributions (`likert.scoring.likert_calibration`), or why there is none."""
    if "metrics" not in calibration:
        terminal().print(f"calibration: not measured ({calibration['reason']})", style="dim", soft_wrap=True)
        return
    by_domain = calibration.get("by_domain", {})
    table = Table(title=f"calibration of the label distributions (95% CI, n={calibration['n']})")
    table.add_column("metric")
    table.add_column("all", justify="right")
    for domain in by_domain:
        table.add_column(domain, justify="right")
    for name, est in calibration["metrics"].items():
        table.add_row(calibration["labels"].get(name, name), Estimate(**est).format(),
                      *(Estimate(**by_domain[d][name]).format() for d in by_domain))
    _print(table)


def _print(table: Table) -> None:
    terminal(width=None if terminal().is_terminal else 120).print(folded(table))


def travel_rows(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(what it measures, estimate as in results.json) per travel measure, then the official label r."""
    labels = report.get("labels", {})
    rows = [(labels.get(key, key), est) for key, est in report.get("measures", {}).items()]
    return rows + [(labels.get("label_r", "label_r"), report["label_r"])] if "label_r" in report else rows


def print_travel(report: dict[str, Any]) -> None:
    """How far the model travels (`generalisation.travel_report`), one row per measure: r and its 95% CI."""
    table = Table(title=f"how far {report['system']} travels (r vs the raw gold, 95% CI, n={report.get('n')})")
    table.add_column("measure")
    table.add_column("r", justify="right")
    for name, est in travel_rows(report):
        table.add_row(name, Estimate(**est).format())
    _print(table)


def print_overlap(rows: list, n_eval: int, evaluated: str, training: str, noun: str) -> None:
    """`senso data overlap` on a Likert task: per evaluation item sharing its group or its text with the
    training side, the ids of the training items that share them."""
    table = Table(title=f"{len(rows)} of the {n_eval} items of {evaluated} share a {noun} or a text with {training}")
    for column in ("id", noun, f"training items of the {noun}", "training items with the same text", "text"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row.id, row.group, f"{len(row.same_group)}" if row.same_group else "-",
                      ", ".join(row.same_text) or "-", row.text)
    _print(table)
    groups = sorted({r.group for r in rows if r.same_group})
    terminal().print(f"{len(groups)} shared {noun}s ({', '.join(groups) or 'none'}); "
                     f"{sum(bool(r.same_text) for r in rows)} items share their text.", soft_wrap=True)
