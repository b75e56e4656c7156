"""Rich tables for AdMIRe numbers: metrics with CIs by sentence type, paired comparisons."""

from __future__ import annotations

from typing import Mapping

from rich.table import Table

from senso.core.stats import Estimate
from senso.admire.scoring import GROUPS
from senso.admire.task import METRIC_LABELS


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
