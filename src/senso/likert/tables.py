"""Terminal tables of a Likert run (rich): the metrics overall and per domain."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from senso.core.stats import Estimate


def print_summary(task_name: str, system: str, info: dict[str, Any], metrics: dict[str, Estimate],
                  by_domain: dict[str, dict[str, Estimate]], n: int) -> None:
    table = Table(title=f"{task_name} · {system} · {info.get('protocol')} · n={n}")
    table.add_column("metric")
    table.add_column("all", justify="right")
    for domain in by_domain:
        table.add_column(domain, justify="right")
    for name, estimate in metrics.items():
        table.add_row(name, estimate.format(), *(by_domain[d][name].format() for d in by_domain))
    terminal = Console()
    Console(width=None if terminal.is_terminal else 120).print(table)
