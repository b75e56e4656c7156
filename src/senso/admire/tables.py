"""Rich tables for AdMIRe numbers: a run's metrics with 95% CIs by sentence type (and, for a ranking task file's
run, by language, with the paired comparison of each two languages on the expressions they share), or, without
gold, what the run did: the items per language, the system and the submission files it wrote."""

from __future__ import annotations

from typing import Any, Sequence

from rich.table import Table

from senso.core.calibration import BY_GROUP
from senso.core.tables import folded, print_calibration, print_run_metrics
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
    languages = len(result.results.get("n_by_language") or {}) > 1 and result.metrics
    for table in (language_table(result, f"per language (95% CI) | system {result.system}", "n", list(result.metrics))
                  if languages else None,
                  paired_table(result.results)):
        if table is not None:
            console.print(folded(table))
    for pair in result.results.get("paired_languages") or []:
        if "reason" in pair:
            console.print(f"{pair['a']} vs {pair['b']}: {pair['reason']}", style="dim", soft_wrap=True)


def _print_scored(result: Any, by_group: bool) -> None:
    """A finished AdMIRe run (`senso.core.evaluation.EvalResult`) on the terminal: its metrics (per sentence type
    where the columns fit, or `by_group`: one table per type), the calibration of P(idiomatic) when it has one
    (`admire.scoring.sense_calibration`), its notes and its submission file (the command line prints warnings)."""
    console, results = terminal(), result.results
    sizes = {g: sum(1 for s in result.samples if s.sentence_type == g) for g in GROUPS}
    what = "sense" if result.task == TASK_NAMES["sense"] else "system"
    title = f"{result.task} {results['lang']} {results['split']} | {what} {result.system} | n={result.n}"
    columns = {"group_heads": {g: f"{g} (n={sizes.get(g, 0)})" for g in GROUPS}, "by_group_asked": by_group}
    print_run_metrics(console, title, result.metrics, {g: result.metrics_by_group.get(g, {}) for g in GROUPS},
                      results, labels=METRIC_LABELS, all_head=f"all (n={result.n})", **columns)
    calibration = results.get("calibration")
    if calibration:
        print_calibration(console, calibration, "calibration of P(idiomatic)",
                          {g: calibration[BY_GROUP].get(g, {}) for g in GROUPS},
                          all_head=f"all (n={calibration['n']})", **columns)
    if result.task == TASK_NAMES["sense"]:
        return
    print_written(result, [results["submission"]])


def print_written(result: Any, names: list[str]) -> None:
    """The run's notes, then the submission files it wrote (or would have written: a run without a folder)."""
    console = terminal()
    for note in result.notes:
        console.print(note, style="dim", soft_wrap=True)
    for name in names:
        console.print(f"submission: {result.run_dir / name if result.run_dir else name + ' (not written)'}",
                      soft_wrap=True)


def language_table(result: Any, title: str | None, count: str, metrics: Sequence[str]) -> Table:
    """One row per language: its `count` of items, then each of `metrics` as `value [95% CI]`."""
    results = result.results
    table = Table(title=title)
    for column in ("language", count, *(METRIC_LABELS.get(m, m) for m in metrics)):
        table.add_column(column, justify="left" if column == "language" else "right")
    names = results.get("language_names") or {}
    for lang, n in (results.get("n_by_language") or {}).items():
        estimates = result.metrics_by_group.get(lang, {})
        table.add_row(f"{lang} ({names.get(lang, lang)})", str(n),
                      *(estimates[m].format() if m in estimates else "-" for m in metrics))
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
    console.print(f"{result.task} {results['split']} | system {result.system} | {result.n} items, no gold: "
                  "submissions written, no metrics", soft_wrap=True)
    console.print(folded(language_table(result, None, "items", ())))
    print_written(result, results.get("submissions") or [results["submission"]])


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
