"""A ranking task file's run on the terminal: admire-a's tables, then one table of every language (metrics with
95% CIs) and the paired comparison of each two languages on the expressions they share."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from senso.admire.rankmetrics import LABELS
from senso.admire.tables import print_result as print_admire
from senso.core.tables import folded
from senso.core.terminal import terminal


def _label(name: str, results: dict[str, Any]) -> str:
    return LABELS.get(name, name).format(k=(results.get("ranking_task") or {}).get("ndcg_k", 5))


def language_table(result: Any) -> Table | None:
    """One row per language (n, then each metric `value [95% CI]`); None for a one-language run."""
    results = result.results
    sizes = results.get("n_by_language") or {}
    if len(sizes) < 2 or not result.metrics:
        return None
    table = Table(title=f"per language (95% CI) | system {result.system}")
    for column in ("language", "n", *(_label(m, results) for m in result.metrics)):
        table.add_column(column, justify="left" if column == "language" else "right")
    names = results.get("language_names") or {}
    for lang, n in sizes.items():
        estimates = result.metrics_by_group.get(lang, {})
        table.add_row(f"{lang} ({names.get(lang, lang)})", str(n),
                      *(estimates[m].format() if m in estimates else "-" for m in result.metrics))
    return table


def paired_table(results: dict[str, Any]) -> Table | None:
    pairs = results.get("paired_languages")
    if not pairs:
        return None
    metric = _label(pairs[0]["metric"], results)
    table = Table(title=f"same expression, other language: {metric}, A - B (paired)")
    for column in ("A", "B", "shared", "A", "B", "A - B [95% CI]", "p"):
        table.add_column(column, justify="left" if column in ("A", "B") else "right")
    for p in pairs:
        if "reason" in p:
            table.add_row(p["a"], p["b"], str(p["n"]), "-", "-", "undefined", "-")
            continue
        table.add_row(p["a"], p["b"], str(p["n"]), f"{p['mean_a']:.3f}", f"{p['mean_b']:.3f}",
                      f"{p['difference']:+.3f} [{p['ci_low']:+.3f}, {p['ci_high']:+.3f}]", f"{p['p_value']:.4f}")
    return table


def print_result(result: Any, by_group: bool = False) -> None:
    print_admire(result, by_group=by_group)
    console = terminal()
    for table in (language_table(result), paired_table(result.results)):
        if table is not None:
            console.print(folded(table))
    for pair in result.results.get("paired_languages") or []:
        if "reason" in pair:
            console.print(f"{pair['a']} vs {pair['b']}: {pair['reason']}", style="dim", soft_wrap=True)
