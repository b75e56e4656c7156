"""Rich tables for AdMIRe numbers: a run's metrics with 95% CIs by sentence type (and, for a ranking task file's
run, by language, with the paired comparison of each two languages on the expressions they share), or, without
gold, what the run did: the items per language, the system and the submission files it wrote."""

from __future__ import annotations

from typing import Any, Mapping

from rich.table import Table

from senso.core.stats import Estimate
from senso.core.tables import Footnotes, folded, metric_tables, print_footnotes
from senso.core.terminal import terminal
from senso.admire.scoring import GROUPS
from senso.admire.metrics import METRIC_LABELS
from senso.admire.task import TASK_NAMES


def print_result(result: Any, by_group: bool = False) -> None:
    """A finished AdMIRe run on the terminal (`senso.core.evaluation.EvalResult`); a ranking task file's run
    without gold says what it did instead."""
    if "n_by_language" in result.results and not result.results.get("gold"):
        print_unscored(result)
        return
    _print_scored(result, by_group)
    console = terminal()
    for table in (language_table(result), paired_table(result.results)):
        if table is not None:
            console.print(folded(table))
    for pair in result.results.get("paired_languages") or []:
        if "reason" in pair:
            console.print(f"{pair['a']} vs {pair['b']}: {pair['reason']}", style="dim", soft_wrap=True)


def _print_scored(result: Any, by_group: bool) -> None:
    """A finished AdMIRe run (`senso.core.evaluation.EvalResult`) on the terminal: its metrics (per sentence type
    where the columns fit, or `by_group`: one table per type), or, without gold, what it wrote; its notes and its
    submission file (the command line prints warnings)."""
    console, results, footnotes = terminal(), result.results, Footnotes()
    sizes = {g: sum(1 for s in result.samples if s.sentence_type == g) for g in GROUPS}
    what = "sense" if result.task == TASK_NAMES["sense"] else "system"
    title = f"{result.task} {results['lang']} {results['split']} | {what} {result.system} | n={result.n}"
    unseen = unseen_estimates(results)
    if result.metrics:
        for table in metric_tables(console, title, result.metrics, _with_groups(result.metrics_by_group),
                                   labels=METRIC_LABELS, all_head=f"all (n={result.n})",
                                   group_heads=_group_heads(sizes), by_group_asked=by_group, footnotes=footnotes,
                                   leading={f"UNSEEN (n={unseen[0]})": unseen[1]} if unseen else None):
            console.print(table)
        print_footnotes(console, footnotes)
    else:
        console.print(title)
    if "overlap" in results:
        console.print(f"overlap with the training data: {results['overlap']['why']}", soft_wrap=True)
    print_calibration(results.get("calibration"), sizes, by_group)
    if result.task == TASK_NAMES["sense"]:
        return
    for note in result.notes:
        console.print(note, style="dim", soft_wrap=True)
    submission = result.run_dir / results["submission"] if result.run_dir else f"{results['submission']} (not written)"
    console.print(f"submission: {submission}", soft_wrap=True)


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


def unseen_estimates(results: Mapping[str, Any]) -> tuple[int, dict[str, Estimate]] | None:
    """(n, metrics) of results.json's `unseen` (a fitted system's items that share nothing with its training
    data), or None when the run has none."""
    unseen = results.get("unseen")
    if not unseen:
        return None
    return unseen["n"], {k: Estimate(**v) for k, v in unseen.items() if k != "n"}


def _with_groups(by_group: Mapping[str, Mapping[str, Estimate]]) -> dict[str, Mapping[str, Estimate]]:
    """Every sentence type, in GROUPS order (a type with no items has no estimates: its cells are `-`)."""
    return {group: by_group.get(group, {}) for group in GROUPS}


def _group_heads(sizes: Mapping[str, int]) -> dict[str, str]:
    return {g: f"{g} (n={sizes.get(g, 0)})" for g in GROUPS}


def print_calibration(calibration: Mapping[str, Any] | None, group_sizes: Mapping[str, int],
                      by_group: bool = False) -> None:
    """The calibration of P(idiomatic) (`admire.scoring.sense_calibration`), when the run has one."""
    if not calibration:
        return
    console, footnotes = terminal(), Footnotes()
    metrics = {name: Estimate(**est) for name, est in calibration["metrics"].items()}
    groups = {g: {name: Estimate(**est) for name, est in ms.items()} for g, ms in calibration["by_group"].items()}
    for table in metric_tables(console, f"calibration of P(idiomatic) (95% CI, n={calibration['n']})", metrics,
                               _with_groups(groups), labels=calibration["labels"],
                               all_head=f"all (n={calibration['n']})", group_heads=_group_heads(group_sizes),
                               by_group_asked=by_group, footnotes=footnotes):
        console.print(table)
    print_footnotes(console, footnotes)


def print_overlap(rows: list, n_eval: int, evaluated: str, training: str) -> None:
    """`senso data overlap admire-*`: per evaluation item that shares something with the training side, the
    compound, where it was seen, whether the sentence is shared, and its identical captions (image = image)."""
    table = Table(title=f"{len(rows)} of the {n_eval} items of {evaluated} share material with {training}")
    for column in ("compound", "seen in", "same sentence", "identical captions", f"{evaluated} image = training image"):
        table.add_column(column, justify="right" if column == "identical captions" else "left", overflow="fold")
    for row in rows:
        pairs = ", ".join(f"{mine} = {theirs or '(hash only)'}" for mine, theirs in row.captions)
        sentence = "unknown" if row.sentence is None else ("yes" if row.sentence else "no")
        table.add_row(row.compound, ", ".join(row.seen_in) or "-", sentence, str(len(row.captions)), pairs or "-")
    console = terminal()
    console.print(folded(table))
    compounds = sum(1 for r in rows if r.seen_in)
    console.print(f"{compounds} shared compounds, {sum(bool(r.sentence) for r in rows)} shared sentences, "
                  f"{sum(len(r.captions) for r in rows)} identical captions.", soft_wrap=True)
