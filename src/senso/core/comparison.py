"""A paired comparison of two runs on the same items, typed: what `senso.compare(a, b)` returns and
`senso compare RUN_A RUN_B` prints (its `--json` is `Comparison.to_json()`).

Each family computes its differences its own way (`senso.admire.paired`, or `senso.reporting.compare_runs` for a
task without its own); both give one `Comparison`: per metric and group (all items, then each domain or sentence type), both systems'
values, A - B with a paired bootstrap 95% CI and a paired permutation p-value, calibration (ECE, Brier,
log-loss) included as rows like the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from senso.core.stats import PairedDifference

P_DIGITS = 3  # p-values are printed to 3 decimals; a smaller one prints as "< 0.001"


@dataclass(frozen=True)
class MetricDifference(PairedDifference):
    """One metric on one group of items: value_a - value_b with a paired bootstrap 95% CI and a two-sided paired
    permutation p-value (`senso.core.stats.PairedDifference`); `difference` is None (and `reason` says why) when
    it is undefined for either run."""

    metric: str = ""
    group: str = "all"
    calibration: bool = False  # ECE, Brier or log-loss of the runs' probabilities (lower is better)


COLUMNS = ("metric", "group", "n", "value_a", "value_b", "difference", "ci_low", "ci_high", "p_value", "method",
           "calibration", "reason")  # a comparison's table (`Comparison.to_pandas`)


@dataclass
class Comparison:
    """Run A vs run B of one task on the same items: `differences`, one per metric and group. `comparison["top1"]`
    is the metric's difference over all items; `to_pandas()` one row per difference."""

    task: str
    a: str  # where run A came from (a run folder, a submission file, or "<in memory>")
    b: str
    system_a: str | None
    system_b: str | None
    n: int
    differences: list[MetricDifference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    calibration_of: str = "the runs' probabilities"  # what the calibration rows measure (AdMIRe: P(idiomatic))
    labels: dict[str, str] = field(default_factory=dict)  # metric -> how its task names it (tables)

    def __getitem__(self, metric: str) -> MetricDifference:
        for row in self.differences:
            if row.metric == metric and row.group == "all":
                return row
        raise KeyError(f"{metric!r}: this comparison has {', '.join(self.metrics) or 'no metrics'}")

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(row.metric for row in self.differences))

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "a": self.a, "b": self.b, "system_a": self.system_a, "system_b": self.system_b,
                "n": self.n, "calibration_of": self.calibration_of, "differences": [row.to_json() for row in self.differences], "notes": list(self.notes)}

    def to_pandas(self):
        """One row per metric and group: metric, group, n, value_a, value_b, difference, ci_low, ci_high,
        p_value, method, calibration, reason."""
        import pandas as pd

        return pd.DataFrame([row.to_json() for row in self.differences], columns=list(COLUMNS))


def difference_of(metric: str, group: str, result: Any, calibration: bool = False) -> MetricDifference:
    """A `senso.core.stats.PairedDifference` (value_a, value_b) or `PairedComparison` (mean_a, mean_b) as a row."""
    value_a = getattr(result, "value_a", getattr(result, "mean_a", None))
    value_b = getattr(result, "value_b", getattr(result, "mean_b", None))
    return MetricDifference(result.n, value_a, value_b, result.difference, result.ci_low, result.ci_high,
                            result.p_value, result.method, getattr(result, "reason", None), metric=metric,
                            group=group, calibration=calibration)


def format_p(p: float | None) -> str:
    """A p-value as printed: 3 decimals, or "< 0.001" below what 3 decimals show (never "0.000")."""
    if p is None:
        return "-"
    smallest = 10.0 ** -P_DIGITS
    return f"< {smallest:.{P_DIGITS}f}" if p < smallest else f"{p:.{P_DIGITS}f}"


def _number(value: float | None, signed: bool = False) -> str:
    return "-" if value is None else (f"{value:+.3f}" if signed else f"{value:.3f}")


def comparison_table(comparison: Comparison, calibration: bool = False) -> Any:
    """The differences (`calibration`: the calibration ones, else the others) as a terminal table: group, metric
    (as its task names it, a calibration one shortly), n, A, B, A - B [95% CI], p (paired permutation)."""
    from rich.table import Table

    runs = f"A = {comparison.a}  vs  B = {comparison.b}"
    table = Table(title=f"calibration of {comparison.calibration_of}: {runs}  (lower is better)" if calibration
                  else f"{comparison.task}: {runs}  (n={comparison.n})")
    for column in ("group", "metric", "n", "A", "B", "A - B [95% CI]", "p (paired permutation)"):
        table.add_column(column, justify="left" if column in ("group", "metric") else "right")
    for r in comparison.differences:
        if r.calibration != calibration:
            continue
        if r.difference is None:
            difference = r.reason or "-"
        else:
            interval = f" [{_number(r.ci_low, True)}, {_number(r.ci_high, True)}]" if r.ci_low is not None else ""
            difference = f"{r.difference:+.3f}{interval}"
        label = comparison.labels.get(r.metric, r.metric)
        table.add_row(r.group, label.split(" (")[0] if r.calibration else label, str(r.n), _number(r.value_a),
                      _number(r.value_b), difference, format_p(r.p_value))
    return table
