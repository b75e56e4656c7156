"""Terminal tables of a word-in-context run: the task's metrics with their 95% intervals, over all pairs and per
language pair where they fit (the pairs of lemmas the system never saw first, as the headline, when it saw
some), then the calibration of P(same meaning)."""

from __future__ import annotations

from typing import Any

from senso.core.stats import Estimate
from senso.core.tables import Footnotes, metric_tables, print_footnotes
from senso.core.terminal import terminal
from senso.wic.metrics import METRICS


def _estimates(recorded: dict[str, Any]) -> dict[str, Estimate]:
    return {name: Estimate(**value) for name, value in recorded.items() if name != "n"}


def print_result(result: Any, by_group: bool = False) -> None:
    """A finished run (`senso.core.evaluation.EvalResult`) on the terminal."""
    results, console, footnotes = result.results, terminal(), Footnotes()
    title = f"{result.task} · {result.system} · {results.get('split')} · {results.get('evaluation')} · n={result.n}"
    unseen = results.get("unseen")
    leading = {f"UNSEEN lemmas (n={unseen['n']})": _estimates(unseen)} if unseen else None
    labels = {name: metric.label for name, metric in METRICS.items()}
    if not result.metrics:
        console.print(f"{title}: no gold in this split, nothing scored (the answers are in the run folder)",
                      soft_wrap=True)
    for table in metric_tables(console, title, result.metrics, result.metrics_by_group, labels=labels,
                               by_group_asked=by_group, footnotes=footnotes, leading=leading):
        console.print(table)
    print_footnotes(console, footnotes)
    if "overlap" in results:
        console.print(f"overlap with the training rows: {results['overlap']['why']}", soft_wrap=True)
    calibration = results.get("calibration")
    if calibration and "metrics" in calibration:
        for table in metric_tables(console, f"calibration of P(same meaning) (95% CI, n={calibration['n']})",
                                   _estimates(calibration["metrics"]), {}, labels=calibration["labels"],
                                   footnotes=footnotes):
            console.print(table)
        print_footnotes(console, footnotes)
    elif calibration:
        console.print(f"calibration: not measured ({calibration['reason']})", style="dim", soft_wrap=True)
