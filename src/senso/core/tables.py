"""Terminal tables that read at a glance and never cut: at 80 columns a long cell folds onto more lines instead of
ending in "…"; an undefined value is one short mark (`undefined¹`) whose reason is printed once, as a footnote;
per-group columns (domains, sentence types) appear only where they fit, else (when asked) one table per group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from senso.core.stats import Estimate

CELL_OVERFLOW = "fold"  # rich's default for a column is "ellipsis", which hides the end of a long name
UNDEFINED = "undefined"  # the mark of a value that has none; its reason is a footnote
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def folded(table: Table) -> Table:
    """`table`, every column set to wrap its cells (words first, then a long word across lines)."""
    for column in table.columns:
        column.overflow = CELL_OVERFLOW
    return table


def p_value_text(p: float | None, digits: int = 3) -> str:
    """A p-value as printed: `0.042`, or `< 0.001` below the printed precision (never `0.000`), `-` for none."""
    if p is None:
        return "-"
    floor = 10.0 ** -digits
    return f"< {floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"


class Footnotes:
    """Reasons printed once under a table: `mark(reason)` gives a reason's superscript (the same reason, the
    same mark), `lines()` the footnotes in order ("¹ the predicted labels are constant ...")."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def mark(self, reason: str) -> str:
        if reason not in self.reasons:
            self.reasons.append(reason)
        return str(self.reasons.index(reason) + 1).translate(_SUPERSCRIPT)

    def cell(self, estimate: Estimate | None, digits: int = 3, ci: bool = True) -> str:
        """`value [low, high]`, or `undefined¹` (its reason a footnote), or `-` where there is no estimate."""
        if estimate is None:
            return "-"
        if estimate.value is None:
            return UNDEFINED + self.mark(estimate.reason or "no value")
        return estimate.format(digits) if ci else f"{estimate.value:.{digits}f}"

    def lines(self) -> list[str]:
        return [f"{str(k).translate(_SUPERSCRIPT)} {reason}" for k, reason in enumerate(self.reasons, 1)]


def fits(console: Console, table: Table) -> bool:
    """Whether `table` is drawn within the console's width without folding a cell."""
    from rich.measure import Measurement

    unbounded = console.options.update_width(10 * console.width + 1000)  # a measure is clamped to its options' width
    return Measurement.get(console, unbounded, table).maximum <= console.width


def metric_tables(console: Console, title: str, metrics: Mapping[str, Estimate],
                  by_group: Mapping[str, Mapping[str, Estimate]], *, labels: Mapping[str, str] | None = None,
                  all_head: str = "all", group_heads: Mapping[str, str] | None = None, by_group_asked: bool = False,
                  footnotes: Footnotes, leading: Mapping[str, Mapping[str, Estimate]] | None = None) -> list[Table]:
    """One row per metric, `value [95% CI]`: a column for all items, and one per group where they all fit
    `console`'s width; where they do not, only the overall column, and (`by_group_asked`) one table per group.
    `leading`: columns (head -> estimates) put first, in bold, in the overall table (a fitted system's UNSEEN
    items, the headline)."""
    groups = list(by_group)
    heads = {g: (group_heads or {}).get(g, g) for g in groups}
    lead = dict(leading or {})

    def table(title_: str, ms: Mapping[str, Estimate], gs: Sequence[str], head: str, notes: Footnotes,
              first: Mapping[str, Mapping[str, Estimate]]) -> Table:
        return _metric_table(title_, ms, by_group, gs, heads, labels or {}, head, notes, first)

    if fits(console, table(title, metrics, groups, all_head, Footnotes(), lead)):
        return [table(title, metrics, groups, all_head, footnotes, lead)]
    tables = [table(title, metrics, [], all_head, footnotes, lead)]
    if by_group_asked:
        tables += [table(f"{title} · {heads[g]}", by_group[g], [], heads[g], footnotes, {}) for g in groups]
    return tables


def _metric_table(title: str, metrics: Mapping[str, Estimate], by_group: Mapping[str, Mapping[str, Estimate]],
                  groups: Sequence[str], heads: Mapping[str, str], labels: Mapping[str, str], all_head: str,
                  footnotes: Footnotes, leading: Mapping[str, Mapping[str, Estimate]]) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("metric")
    for head in leading:
        table.add_column(head, justify="right", style="bold")
    for head in (all_head, *(heads[g] for g in groups)):
        table.add_column(head, justify="right")
    for name, estimate in metrics.items():
        table.add_row(labels.get(name, name), *(footnotes.cell(column.get(name)) for column in leading.values()),
                      footnotes.cell(estimate), *(footnotes.cell(by_group[g].get(name)) for g in groups))
    return folded(table)


def print_footnotes(console: Console, footnotes: Footnotes, soft_wrap: bool = False) -> None:
    """The footnotes of the tables just printed, each once, then forgotten (`soft_wrap`: each on one line,
    however long, for a line-per-fact output such as `--quiet`)."""
    for line in footnotes.lines():
        console.print(line, style="dim", soft_wrap=soft_wrap)
    footnotes.reasons.clear()


def recorded_estimates(recorded: Mapping[str, Any]) -> dict[str, Estimate]:
    """results.json's estimates of each metric (beside an `n`, which is not one) as Estimates."""
    from senso.core.stats import Estimate

    return {name: Estimate(**estimate) for name, estimate in recorded.items() if name != "n"}


def print_metrics(console: Console, title: str, metrics: Mapping[str, Estimate],
                  by_group: Mapping[str, Mapping[str, Estimate]], **table_args: Any) -> None:
    """`metric_tables` printed (no metrics: the title alone), then their footnotes."""
    if not metrics:
        console.print(title)
        return
    footnotes = Footnotes()
    for table in metric_tables(console, title, metrics, by_group, footnotes=footnotes, **table_args):
        console.print(table)
    print_footnotes(console, footnotes)


def print_run_metrics(console: Console, title: str, metrics: Mapping[str, Estimate],
                      by_group: Mapping[str, Mapping[str, Estimate]], results: Mapping[str, Any],
                      **table_args: Any) -> None:
    """A run's metrics led by the UNSEEN column when results.json has one (a fitted system's items that share
    nothing with its training data: the headline, `core.overlap.overlap_record`), then the overlap sentence."""
    unseen = results.get("unseen")
    leading = {f"UNSEEN (n={unseen['n']})": recorded_estimates(unseen)} if unseen else None
    print_metrics(console, title, metrics, by_group, leading=leading, **table_args)
    if "overlap" in results:
        console.print(f"overlap with the training data: {results['overlap']['why']}", soft_wrap=True)


def print_calibration(console: Console, calibration: Mapping[str, Any], title: str,
                      by_group: Mapping[str, Mapping[str, Any]], **table_args: Any) -> None:
    """A run's calibration (`core.calibration`: its `metrics`, `labels` and `n`; `by_group` the recorded metrics
    per group) as a metric table titled `title (95% CI, n=N)`, or why it was not measured."""
    if "metrics" not in calibration:
        console.print(f"calibration: not measured ({calibration['reason']})", style="dim", soft_wrap=True)
        return
    print_metrics(console, f"{title} (95% CI, n={calibration['n']})", recorded_estimates(calibration["metrics"]),
                  {group: recorded_estimates(recorded) for group, recorded in by_group.items()},
                  labels=calibration["labels"], **table_args)
