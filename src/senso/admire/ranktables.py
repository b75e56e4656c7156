"""A ranking task file's run on the terminal: admire-a's tables, then one table of every language (metrics with
95% CIs) and the paired comparison of each two languages on the expressions they share. A run without gold shows
what it did instead: the items per language, the system (and why it was the default) and the submission files."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from senso.admire.metrics import METRIC_LABELS
from senso.admire.tables import print_result as print_admire
from senso.core.tables import folded
from senso.core.terminal import terminal


def language_table(result: Any) -> Table | None:
    """One row per language (n, then each metric `value [95% CI]`); None for a one-language run."""
    results = result.results
    sizes = results.get("n_by_language") or {}
    if len(sizes) < 2 or not result.metrics:
        return None
    table = Table(title=f"per language (95% CI) | system {result.system}")
    for column in ("language", "n", *(METRIC_LABELS.get(m, m) for m in result.metrics)):
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
    metric = METRIC_LABELS.get(pairs[0]["metric"], pairs[0]["metric"])
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


def print_unscored(result: Any) -> None:
    """A run without gold: the items of each language, the system and the submission files it wrote."""
    console, results = terminal(), result.results
    names = results.get("language_names") or {}
    console.print(f"{result.task} {results['split']} | system {result.system} | {result.n} items, no gold: "
                  "submissions written, no metrics", soft_wrap=True)
    table = Table()
    for column in ("language", "items"):
        table.add_column(column, justify="left" if column == "language" else "right")
    for lang, n in (results.get("n_by_language") or {}).items():
        table.add_row(f"{lang} ({names.get(lang, lang)})", str(n))
    console.print(folded(table))
    for note in result.notes:
        console.print(note, style="dim", soft_wrap=True)
    for name in results.get("submissions") or [results["submission"]]:
        console.print(f"submission: {result.run_dir / name if result.run_dir else name + ' (not written)'}",
                      soft_wrap=True)


def print_result(result: Any, by_group: bool = False) -> None:
    if not result.results.get("gold"):
        print_unscored(result)
        return
    print_admire(result, by_group=by_group)
    console = terminal()
    for table in (language_table(result), paired_table(result.results)):
        if table is not None:
            console.print(folded(table))
    for pair in result.results.get("paired_languages") or []:
        if "reason" in pair:
            console.print(f"{pair['a']} vs {pair['b']}: {pair['reason']}", style="dim", soft_wrap=True)
