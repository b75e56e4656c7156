"""`senso report RUN_A RUN_B ... -o compare.html`: runs of one task on the same items, side by side."""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.output import check_output_file, write_text
from senso.core.records import item_differences
from senso.core.stats import PairedDifference, paired_statistic_difference
from senso.core.run_folder import RunFolder, aligned, model_lines
from senso.core.task import PairedTest
from senso.reporting.run_folder import load_run


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
            differ = item_differences(first.results, run.results)
            raise SensoError(
                f"{first.path} and {run.path} are not on the same items ({len(ids_a)} vs {len(ids_b)}"
                f"{'; run with ' + differ if differ else ''}; {len(only_a)} only in the first, e.g. {only_a[:3]}; "
                f"{len(only_b)} only in the second, e.g. {only_b[:3]})")


def ungraded(run: RunFolder, samples: Sequence[dict[str, Any]]) -> list[str]:
    """The ids of the items among `samples` that carry no gold (none of the task's `gold_keys`): nothing to score
    them against, so no paired test."""
    keys = run.task_def.family.gold_keys
    return [run.item_id(s) for s in samples if all(s.get(k) is None for k in keys)]


MetricTest = PairedTest  # how one metric is compared between two runs (`senso.core.task.PairedTest`)


def metric_tests(task: Any) -> dict[str, PairedTest]:
    """The paired test of each metric `task` declares one for (a correlation on the correlation itself)."""
    return {metric.name: metric.paired for metric in task.metrics if metric.paired is not None}


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
    """For every pair of runs and every metric both report (none when an item has no gold):
    A - B with a paired bootstrap 95% CI and a paired permutation p-value. Items are taken in the order
    of their ids (AdMIRe: compounds, sorted, as `senso compare` does). Then, for runs with calibration, the
    paired differences in ECE, Brier and log-loss (`calibration_tests`)."""
    samples = aligned(runs)
    order = sorted(range(len(samples[0])), key=lambda k: runs[0].item_id(samples[0][k]))
    samples = [[run_samples[k] for k in order] for run_samples in samples]
    letters = run_letters(len(runs))
    graded = not any(ungraded(run, side) for run, side in zip(runs, samples))
    tests = metric_tests(runs[0].task_def) if graded else {}
    out = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            for name, test in tests.items():
                if not all(name in r.results.get("metrics", {}) for r in (runs[i], runs[j])):
                    continue
                result = metric_difference(test, samples[i], samples[j], n_resamples, seed)
                out.append(PairTest(letters[i], letters[j], name, result))
    return out + calibration_tests(runs, samples, n_resamples, seed)


def sample_distributions(run: RunFolder, samples: Sequence[dict[str, Any]]) -> tuple[np.ndarray, list[int]] | None:
    """(each item's probability distribution, its gold label index) as the run's calibration saw them (the
    task's `distributions`); None when the run has no calibration or its task none."""
    hook = run.task_def.family.distributions
    return None if hook is None else hook(run, samples)


def calibration_tests(runs: Sequence[RunFolder], samples: Sequence[Sequence[dict[str, Any]]], n_resamples: int,
                      seed: int) -> list[PairTest]:
    """For every pair of runs that both have calibration: A - B in ECE, Brier and log-loss on the same items
    (`core.calibration.paired_calibration_differences`)."""
    from senso.core.calibration import paired_calibration_differences

    letters = run_letters(len(runs))
    distributions = [sample_distributions(run, run_samples) for run, run_samples in zip(runs, samples)]
    out = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            if distributions[i] is None or distributions[j] is None:
                continue
            diffs = paired_calibration_differences(distributions[i][0], distributions[j][0], distributions[i][1],
                                                   n_resamples=n_resamples, seed=seed)
            out += [PairTest(letters[i], letters[j], name, result) for name, result in diffs.items()]
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
    from senso.core import figures
    from senso.core.task import baseline_label
    from senso.reporting.run_page import metric_label

    letters = run_letters(len(runs))
    labels = [f"{letter} · {run.system}" for letter, run in zip(letters, runs)]
    plots = []
    for name in names:
        estimates = [run.results.get("metrics", {}).get(name) or {} for run in runs]
        metric = runs[0].task_def.metric(name)
        reference = metric.random_baseline if metric is not None else None
        plots.append(figures.metric_bars(
            metric_label(name, runs[0].task_def), labels, [e.get("value") for e in estimates], [e.get("ci_low") for e in estimates],
            [e.get("ci_high") for e in estimates], reference=reference,
            reference_label=baseline_label(reference) if reference is not None else ""))
    return plots


def run_headers(runs: Sequence[RunFolder]) -> dict[str, Any]:
    """The runs' table's column of what each run's family puts in a page's header (`Family.header`: a protocol, a
    track): its label (none: no column) and each run's values."""
    rows = [run.task_def.family.header(run) for run in runs]
    label = " / ".join(dict.fromkeys(name for row in rows for name, _ in row))
    return {"header_label": label, "run_headers": [" · ".join(str(value) for _, value in row) or "—" for row in rows]}


def comparison_context(runs: Sequence[RunFolder], thumbnails: bool = True) -> dict[str, Any]:
    from senso.reporting.render import section_template
    from senso.reporting.run_page import metric_label

    check_comparable(runs)
    section = runs[0].task_def.comparison
    label = functools.partial(metric_label, task=runs[0].task_def)
    no_gold = [letter for letter, run in zip(run_letters(len(runs)), runs) if ungraded(run, run.samples)]
    names, rows = metrics_rows(runs) if len(no_gold) < len(runs) else ([], [])
    disagreements = section.data(runs, thumbnails=thumbnails) if section is not None else []
    plotted = [n for n in names if (runs[0].task_def.metric(n) is None or runs[0].task_def.metric(n).plotted)]
    tests = pairwise_tests(runs)
    methods = {t.result.method for t in tests if t.result.difference is not None}
    shared_method = methods.pop() if len(methods) == 1 and all(t.result.difference is not None for t in tests) else None
    warnings = [f"{letter}: {w}" for letter, run in zip(run_letters(len(runs)), runs)
                for w in run.results.get("warnings", [])]
    return {
        "title": f"{runs[0].task} · {runs[0].split} · {len(runs)} runs compared",
        "runs": list(zip(run_letters(len(runs)), runs)), "warnings": warnings,
        "metric_names": names, "metric_labels": [label(n) for n in names], "metric_rows": rows,
        "tests": tests, "shared_method": shared_method, "no_gold": no_gold,
        "plots": metric_plots(runs, plotted), "plot_labels": [label(n) for n in plotted],
        "disagreements": disagreements, "n_items": len(runs[0].samples), "metric_label": label,
        "model_lines": model_lines, "section_template": section_template(section),
        "styles": section.styles() if section is not None else "",
        **run_headers(runs),
        **(section.helpers() if section is not None else {}),
    }


def write_comparison(run_dirs: Sequence[str | Path], out: str | Path, thumbnails: bool = True) -> Path:
    """Render the comparison page of the given run folders to `out`; returns its path."""
    from senso.reporting.render import render

    check_output_file(out, "-o")
    runs = [load_run(d) for d in run_dirs]
    html = render("compare.html.j2", comparison_context(runs, thumbnails=thumbnails))
    return write_text(out, html, "-o")
