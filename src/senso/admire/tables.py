"""Rich tables for AdMIRe numbers: metrics with CIs by sentence type, paired comparisons; a run's summary."""

from __future__ import annotations

from typing import Any, Mapping

from rich.table import Table

from senso.core.stats import Estimate
from senso.core.tables import folded
from senso.core.terminal import terminal
from senso.admire.scoring import GROUPS
from senso.admire.task import METRIC_LABELS, SENSE_TASK


def print_result(result: Any) -> None:
    """A finished AdMIRe run (`senso.core.evaluation.EvalResult`) on the terminal: its metrics per sentence type
    (or, without gold, what it wrote), its notes and its submission file (the command line prints warnings)."""
    console, results = terminal(), result.results
    sizes = {g: sum(1 for s in result.samples if s.sentence_type == g) for g in GROUPS}
    if result.task == SENSE_TASK.name:
        title = f"{result.task} {results['lang']} {results['split']} | sense {result.system} | n={result.n}"
        console.print(metrics_table(title, result.metrics, result.metrics_by_group, result.n, sizes))
        return
    title = f"{result.task} {results['lang']} {results['split']} | system {result.system} | n={result.n}"
    if result.metrics:
        console.print(folded(metrics_table(title, result.metrics, result.metrics_by_group, result.n, sizes)))
    else:
        console.print(title, soft_wrap=True)
    for note in result.notes:
        console.print(note, style="dim", soft_wrap=True)
    submission = result.run_dir / results["submission"] if result.run_dir else f"{results['submission']} (not written)"
    console.print(f"submission: {submission}", soft_wrap=True)


def metrics_table(title: str, metrics: Mapping[str, Estimate], by_group: Mapping[str, Mapping[str, Estimate]],
                  n: int, group_sizes: Mapping[str, int]) -> Table:
    """One row per metric; columns all / idiomatic / literal, each `value [95% CI]`."""
    table = Table(title=title)
    table.add_column("metric")
    table.add_column(f"all (n={n})", justify="right")
    for group in GROUPS:
        table.add_column(f"{group} (n={group_sizes.get(group, 0)})", justify="right")
    for name, estimate in metrics.items():
        row = [METRIC_LABELS.get(name, name), estimate.format()]
        for group in GROUPS:
            est = by_group.get(group, {}).get(name)
            row.append(est.format() if est is not None and est.value is not None else "-")
        table.add_row(*row)
    return table


def comparison_table(comparison) -> Table:
    """Rows of a `senso.admire.paired.Comparison`: means, A - B [95% CI], p-value, per group and metric."""
    table = Table(title=f"{comparison.task}: A = {comparison.a}  vs  B = {comparison.b}  (n={comparison.n})")
    for column in ("group", "metric", "n", "A", "B", "A - B [95% CI]", "p (paired permutation)"):
        table.add_column(column, justify="left" if column in ("group", "metric") else "right")
    for group, metric, result, reason in comparison.rows:
        label = METRIC_LABELS.get(metric, metric)
        if result is None:
            table.add_row(group, label, "0", "-", "-", reason or "-", "-")
            continue
        table.add_row(group, label, str(result.n), f"{result.mean_a:.3f}", f"{result.mean_b:.3f}",
                      f"{result.difference:+.3f} [{result.ci_low:+.3f}, {result.ci_high:+.3f}]", f"{result.p_value:.4f}")
    return table
