"""`senso report RUN_A RUN_B ... -o compare.html`: runs of one task on the same items, side by side."""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.output import check_output_file, write_text
from senso.core.stats import PairedDifference, paired_statistic_difference, rowwise_pearson, rowwise_spearman
from senso.report.run_folder import RunFolder, load_run


def run_letters(n: int) -> list[str]:
    return [string.ascii_uppercase[k] if k < 26 else f"R{k + 1}" for k in range(n)]


def check_comparable(runs: Sequence[RunFolder]) -> None:
    """Same task, same split (and language), same items; SensoError naming the mismatch otherwise."""
    if len(runs) < 2:
        raise SensoError("a comparison needs at least two run folders")
    first = runs[0]
    for run in runs[1:]:
        for what, mine, theirs in (("task", first.task, run.task), ("split", first.split_key, run.split_key),
                                   ("language", first.lang, run.lang)):
            if mine != theirs:
                raise SensoError(f"cannot compare runs of different {what}s: {first.path} is {what} {mine!r}, "
                                 f"{run.path} is {what} {theirs!r} (a comparison needs the same task and split)")
        ids_a = [first.item_id(s) for s in first.samples]
        ids_b = [run.item_id(s) for s in run.samples]
        if set(ids_a) != set(ids_b) or len(ids_a) != len(ids_b):
            only_a = sorted(set(ids_a) - set(ids_b))
            only_b = sorted(set(ids_b) - set(ids_a))
            raise SensoError(
                f"{first.path} and {run.path} are not on the same items ({len(ids_a)} vs {len(ids_b)}; "
                f"{len(only_a)} only in the first, e.g. {only_a[:3]}; {len(only_b)} only in the second, e.g. {only_b[:3]})")


def aligned(runs: Sequence[RunFolder]) -> list[list[dict[str, Any]]]:
    """Per run, its samples in the first run's item order."""
    order = [runs[0].item_id(s) for s in runs[0].samples]
    out = []
    for run in runs:
        by_id = {run.item_id(s): s for s in run.samples}
        out.append([by_id[i] for i in order])
    return out


@dataclass(frozen=True)
class MetricTest:
    """How one metric is compared between two runs. A correlation (ABRICOT's r and rho) is tested on the
    correlation itself with `paired_statistic_difference`; a mean of per-item values (accuracy, Top-1, DCG)
    with `paired_permutation_test`, the test `senso compare` runs, so both give the same numbers."""

    kind: str  # "correlation" or "mean"
    columns: Callable[[list[dict[str, Any]]], list[float]]  # the system's per-item column
    shared: Callable[[list[dict[str, Any]]], list[float]] | None = None  # gold column (correlations)
    statistic: Callable[..., np.ndarray] | None = None  # row-wise correlation


def _col(key: str) -> Callable[[list[dict[str, Any]]], list[float]]:
    return lambda samples: [float(s[key]) for s in samples]


def _correct(samples: list[dict[str, Any]]) -> list[float]:
    return [float(s["prediction"] == s["gold"]) for s in samples]


METRIC_TESTS: dict[str, dict[str, MetricTest]] = {
    "likert": {
        "pearson": MetricTest("correlation", _col("prediction"), _col("gold"), rowwise_pearson),
        "spearman": MetricTest("correlation", _col("prediction"), _col("gold"), rowwise_spearman),
        "pearson_expected_vs_gold": MetricTest("correlation", _col("expected"), _col("gold"), rowwise_pearson),
        "pearson_expected_vs_mean": MetricTest("correlation", _col("expected"), _col("gold_mean"), rowwise_pearson),
        "accuracy": MetricTest("mean", _correct),
    },
    "admire-a": {"top1": MetricTest("mean", _col("top1")), "dcg": MetricTest("mean", _col("dcg"))},
    "admire-b": {"image_accuracy": MetricTest("mean", _col("image_accuracy")),
                 "sentence_type_accuracy": MetricTest("mean", _col("sentence_type_accuracy"))},
}
# Printed by the official scorer for parity, but no quality measure: in the table, never plotted.
PARITY_ONLY = ("official_name_corr",)
# `senso compare` defaults, so that the page and the command agree
N_RESAMPLES = 10000
SEED = 0


@dataclass(frozen=True)
class PairTest:
    a: str  # run letters
    b: str
    metric: str
    result: PairedDifference


def _mean_test(a: list[float], b: list[float], n_resamples: int, seed: int) -> PairedDifference:
    from senso.core.stats import UndefinedMetric, paired_permutation_test

    try:
        r = paired_permutation_test(a, b, n_resamples=n_resamples, seed=seed)
    except UndefinedMetric as exc:
        return PairedDifference(len(a), None, None, None, None, None, None, "not tested", reason=str(exc))
    return PairedDifference(r.n, r.mean_a, r.mean_b, r.difference, r.ci_low, r.ci_high, r.p_value,
                            r.method + "; interval: paired bootstrap of the mean difference")


def pairwise_tests(runs: Sequence[RunFolder], n_resamples: int = N_RESAMPLES, seed: int = SEED) -> list[PairTest]:
    """For every pair of runs and every metric both report (runs without gold report none):
    A - B with a paired bootstrap 95% CI and a paired permutation p-value. Items are taken in the order
    of their ids (AdMIRe: compounds, sorted, as `senso compare` does)."""
    samples = aligned(runs)
    order = sorted(range(len(samples[0])), key=lambda k: runs[0].item_id(samples[0][k]))
    samples = [[run_samples[k] for k in order] for run_samples in samples]
    letters = run_letters(len(runs))
    tests = METRIC_TESTS[runs[0].kind]
    out = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            for name, test in tests.items():
                if not all(name in r.results.get("metrics", {}) for r in (runs[i], runs[j])):
                    continue
                result = metric_difference(test, samples[i], samples[j], n_resamples, seed)
                out.append(PairTest(letters[i], letters[j], name, result))
    return out


def metric_difference(test: MetricTest, samples_a: list[dict[str, Any]], samples_b: list[dict[str, Any]],
                      n_resamples: int = N_RESAMPLES, seed: int = SEED) -> PairedDifference:
    """One metric of two runs' aligned samples: A - B, paired bootstrap 95% CI, paired permutation p-value
    (a correlation on the correlation itself, with the gold of A's samples, which both share)."""
    a, b = test.columns(samples_a), test.columns(samples_b)
    if test.kind == "mean":
        return _mean_test(a, b, n_resamples, seed)
    return paired_statistic_difference(test.statistic, a, b, test.shared(samples_a), n_resamples=n_resamples, seed=seed)


def metrics_rows(runs: Sequence[RunFolder]) -> tuple[list[str], list[dict[str, Any]]]:
    """Metric names (in the first run's order, then any others) and one row per run with its estimates."""
    names: list[str] = []
    for run in runs:
        names += [n for n in run.results.get("metrics", {}) if n not in names]
    rows = [{"letter": letter, "run": run, "cells": [run.results.get("metrics", {}).get(n) for n in names]}
            for letter, run in zip(run_letters(len(runs)), runs)]
    return names, rows


def metric_plots(runs: Sequence[RunFolder], names: Sequence[str]) -> list[str]:
    from senso.report import figures
    from senso.report.run_page import RANDOM_BASELINES, metric_label

    letters = run_letters(len(runs))
    labels = [f"{letter} · {run.system}" for letter, run in zip(letters, runs)]
    plots = []
    for name in names:
        estimates = [run.results.get("metrics", {}).get(name) or {} for run in runs]
        reference, ref_label = RANDOM_BASELINES.get(name, (None, "")) if runs[0].kind == "admire-a" else (None, "")
        plots.append(figures.metric_bars(
            metric_label(name), labels, [e.get("value") for e in estimates], [e.get("ci_low") for e in estimates],
            [e.get("ci_high") for e in estimates], reference=reference, reference_label=ref_label))
    return plots


def likert_disagreements(runs: Sequence[RunFolder]) -> list[dict[str, Any]]:
    """Items whose predicted labels are not all equal, widest spread first (then item id)."""
    from senso.report.likert import highlight, load_items

    samples = aligned(runs)
    items, _ = load_items(runs[0].results, runs[0].config, runs[0].path)
    rows = []
    for k, first in enumerate(samples[0]):
        predictions = [run_samples[k]["prediction"] for run_samples in samples]
        if len(set(predictions)) == 1:
            continue
        item = items.get(str(first["id"])) if items else None
        rows.append({"id": first["id"], "lemma": first["lemma"], "gold": first["gold"], "gold_mean": first["gold_mean"],
                     "sentence": highlight(item.text, item.begin, item.end) if item else None,
                     "predictions": predictions, "spread": max(predictions) - min(predictions),
                     "correct": [p == first["gold"] for p in predictions]})
    rows.sort(key=lambda r: (-r["spread"], str(r["id"])))
    return rows


def admire_a_disagreements(runs: Sequence[RunFolder], thumbnails: bool = True) -> list[dict[str, Any]]:
    """Items where the runs' first-ranked images are not all the same, with each run's first choice."""
    from senso.report.admire import highlight_phrase, image_cells, load_items

    samples = aligned(runs)
    items, _ = load_items(runs[0].results, runs[0].config, runs[0].path)
    rows = []
    for k, first in enumerate(samples[0]):
        tops = [run_samples[k]["predicted_order"][0] for run_samples in samples]
        if len(set(tops)) == 1:
            continue
        item = items.get(first["compound"]) if items else None
        gold = first.get("gold_order")
        cells = [image_cells([top], gold, run_samples[k].get("scores") or {}, item, thumbnails)[0]
                 for top, run_samples in zip(tops, samples)]
        gold_first = image_cells([gold[0]], gold, {}, item, thumbnails)[0] if gold else None
        rows.append({"compound": first["compound"], "sentence": highlight_phrase(first.get("sentence", ""), first["compound"]),
                     "sentence_type": first.get("sentence_type"), "choices": cells, "gold_first": gold_first,
                     "dcg": [run_samples[k].get("dcg") for run_samples in samples]})
    return rows


def admire_b_disagreements(runs: Sequence[RunFolder]) -> list[dict[str, Any]]:
    """Items where the runs chose different candidates or different sentence types."""
    samples = aligned(runs)
    rows = []
    for k, first in enumerate(samples[0]):
        chosen = [run_samples[k]["predicted_item"] for run_samples in samples]
        types = [run_samples[k]["predicted_sentence_type"] for run_samples in samples]
        if len(set(chosen)) == 1 and len(set(types)) == 1:
            continue
        rows.append({"compound": first["compound"], "gold_item": first.get("gold_item"),
                     "sentence_type": first.get("sentence_type"), "chosen": chosen, "types": types})
    return rows


def comparison_context(runs: Sequence[RunFolder], thumbnails: bool = True) -> dict[str, Any]:
    from senso.report.admire import caption_preview
    from senso.report.run_folder import model_lines
    from senso.report.run_page import metric_label

    check_comparable(runs)
    family = runs[0].kind
    names, rows = metrics_rows(runs)
    if family == "likert":
        disagreements = likert_disagreements(runs)
    elif family == "admire-a":
        disagreements = admire_a_disagreements(runs, thumbnails=thumbnails)
    else:
        disagreements = admire_b_disagreements(runs)
    tests = pairwise_tests(runs)
    methods = {t.result.method for t in tests if t.result.difference is not None}
    shared_method = methods.pop() if len(methods) == 1 and all(t.result.difference is not None for t in tests) else None
    warnings = [f"{letter}: {w}" for letter, run in zip(run_letters(len(runs)), runs)
                for w in run.results.get("warnings", [])]
    return {
        "title": f"{runs[0].task} · {runs[0].split} · {len(runs)} runs compared",
        "family": family, "runs": list(zip(run_letters(len(runs)), runs)), "warnings": warnings,
        "metric_names": names, "metric_labels": [metric_label(n) for n in names], "metric_rows": rows,
        "tests": tests, "shared_method": shared_method,
        "plots": metric_plots(runs, [n for n in names if n not in PARITY_ONLY]),
        "plot_labels": [metric_label(n) for n in names if n not in PARITY_ONLY],
        "disagreements": disagreements, "n_items": len(runs[0].samples), "metric_label": metric_label,
        "model_lines": model_lines, "caption_preview": caption_preview,
    }


def write_comparison(run_dirs: Sequence[str | Path], out: str | Path, thumbnails: bool = True) -> Path:
    """Render the comparison page of the given run folders to `out`; returns its path."""
    from senso.report.render import render

    check_output_file(out, "-o")
    runs = [load_run(d) for d in run_dirs]
    html = render("compare.html.j2", comparison_context(runs, thumbnails=thumbnails))
    return write_text(out, html, "-o")
