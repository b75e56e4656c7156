"""`senso report RUN_DIR`: build the data of one run's page and render it to RUN_DIR/report.html."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from senso.admire.metrics import RANDOM_BASELINES as ADMIRE_RANDOM
from senso.admire.task import METRIC_LABELS as ADMIRE_METRIC_LABELS
from senso.likert.scoring import METRIC_LABELS as LIKERT_METRIC_LABELS
from senso.core.calibration import CALIBRATION_LABELS
from senso.core.output import check_output_file, write_text
from senso.report.run_folder import RunFolder, header_rows, load_run

METRIC_LABELS = {**LIKERT_METRIC_LABELS, **ADMIRE_METRIC_LABELS, **CALIBRATION_LABELS}
# What a uniformly random system scores on average (AdMIRe A: exact values from the official DCG formula).
RANDOM_BASELINES = {name: (value, f"random {value:.4f}".rstrip("0")) for name, value in ADMIRE_RANDOM.items()}


def metric_label(name: str) -> str:
    return METRIC_LABELS.get(name, name)


def metrics_table(results: dict[str, Any]) -> dict[str, Any]:
    """Rows per metric, columns "all" then each group (domain, sentence type) with n where known; a fitted
    system's `unseen` items (sharing nothing with its training data) come first, as the headline, and
    `overlap` is the sentence saying why."""
    groups = list(results.get("metrics_by_group", {}))
    unseen = results.get("unseen")
    columns = ([f"UNSEEN (n={unseen['n']})", f"all (n={results.get('n')})"] if unseen else ["all"]) + groups
    rows = []
    for name, estimate in results.get("metrics", {}).items():
        cells = [estimate] + [results["metrics_by_group"][g].get(name) for g in groups]
        if unseen:
            cells.insert(0, unseen.get(name))
        rows.append({"name": name, "label": metric_label(name), "cells": cells})
    return {"groups": groups, "columns": columns, "rows": rows, "headline": bool(unseen),
            "overlap": (results.get("overlap") or {}).get("why")}


def calibration_block(results: dict[str, Any]) -> dict[str, Any] | None:
    """The page's calibration section: the metrics (all, then per group) and the reliability diagram, or the
    reason a run has none; None when the run says nothing about calibration."""
    from senso.report import figures

    calibration = results.get("calibration")
    if not calibration:
        return None
    if "metrics" not in calibration:
        return {"reason": calibration.get("reason")}
    by_group = calibration.get("by_domain") or calibration.get("by_group") or {}
    rows = [{"label": calibration["labels"].get(name, name),
             "cells": [estimate] + [by_group[g].get(name) for g in by_group]}
            for name, estimate in calibration["metrics"].items()]
    reliability = calibration["reliability"]
    binary = "P(idiomatic)" in reliability["what"]
    plot = figures.reliability_diagram(reliability["bins"], "reliability diagram",
                                       "P(idiomatic)" if binary else "predicted probability of a label")
    return {"reason": None, "n": calibration["n"], "groups": list(by_group), "rows": rows, "plot": plot,
            "what": reliability["what"], "n_bins": reliability["n_bins"]}


def warnings_of(run: RunFolder) -> list[str]:
    return [str(w) for w in run.results.get("warnings", [])]


def likert_context(run: RunFolder) -> dict[str, Any]:
    from senso.report import figures, likert as likert_view

    likert_view.check_samples(run.samples, run.path / "samples.jsonl")
    scale = likert_view.run_scale(run.results)
    group_noun = likert_view.run_group_noun(run.results)
    items, notes = likert_view.load_items(run.results, run.config, run.path)
    gold = [s["gold"] for s in run.samples]
    predicted = [s["prediction"] for s in run.samples]
    matrix = likert_view.confusion_matrix(gold, predicted, scale.labels)
    return {
        "notes": notes,
        "scatter": figures.likert_scatter(run.samples, run.task, scale.labels, scale.edges, scale.gold_range, group_noun),
        "group_noun": group_noun,
        "confusion": matrix,
        "confusion_row_totals": [sum(row) for row in matrix],
        "confusion_max": max(max(row) for row in matrix) or 1,
        "lemmas": likert_view.lemma_rows(run.samples),
        "errors": likert_view.largest_errors(run.samples, items),
        "labels": scale.labels,
        "gold_headers": [f"gold {k}" for k in scale.labels],
        "pred_headers": [f"pred {k}" for k in scale.labels],
        "travel": likert_view.travel_block(run.results),
    }


def _group_plots(run: RunFolder, names: tuple[str, ...]) -> list[str]:
    """One plot per metric: all items, then each sentence type, with CIs and the random baseline."""
    from senso.report import figures

    results = run.results
    groups = list(results.get("metrics_by_group", {}))
    sizes = {g: sum(1 for s in run.samples if g in (s.get("sentence_type"), s.get("lang"))) for g in groups}
    plots = []
    for name in names:
        if name not in results.get("metrics", {}):
            continue
        estimates = [results["metrics"][name]] + [results["metrics_by_group"][g].get(name, {}) for g in groups]
        labels = [f"all (n={len(run.samples)})"] + [f"{g} (n={sizes[g]})" for g in groups]
        reference, ref_label = RANDOM_BASELINES.get(name, (None, ""))
        plots.append(figures.metric_bars(
            metric_label(name), labels, [e.get("value") for e in estimates], [e.get("ci_low") for e in estimates],
            [e.get("ci_high") for e in estimates], reference=reference, reference_label=ref_label))
    return plots


def admire_a_context(run: RunFolder, thumbnails: bool = True) -> dict[str, Any]:
    from senso.report import admire as admire_view

    items, notes = admire_view.load_items(run.results, run.config, run.path)
    landing = admire_view.rank_landing(run.samples)
    scored = sum(landing[0])
    return {
        "notes": notes,
        "landing": landing,
        "landing_scored": scored,
        "group_plots": _group_plots(run, ("top1", "dcg")) if scored else [],
        "rows": admire_view.admire_a_rows(run.samples, items, thumbnails=thumbnails),
        "caption_preview": admire_view.caption_preview,
    }


def admire_b_context(run: RunFolder, thumbnails: bool = True) -> dict[str, Any]:
    from senso.report import admire as admire_view

    items, notes = admire_view.load_items(run.results, run.config, run.path)
    return {
        "notes": notes,
        "group_plots": _group_plots(run, ("image_accuracy", "sentence_type_accuracy")),
        "rows": admire_view.admire_b_rows(run.samples, items, thumbnails=thumbnails),
        "caption_preview": admire_view.caption_preview,
    }


def admire_sense_rows(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per item: compound, sentence with the compound marked, gold and predicted sense, P(idiomatic)."""
    from senso.report.admire import highlight_phrase

    return [{
        "compound": s["compound"],
        "sentence": highlight_phrase(s.get("sentence", ""), s["compound"]),
        "gold": s.get("sentence_type"),
        "predicted": s.get("predicted_sentence_type"),
        "p_idiomatic": s.get("p_idiomatic"),
        "correct": None if s.get("sentence_type") is None else s.get("sentence_type") == s.get("predicted_sentence_type"),
    } for s in samples]


def admire_sense_context(run: RunFolder, thumbnails: bool = True) -> dict[str, Any]:
    rows = admire_sense_rows(run.samples)
    # wrong answers first, the most confident mistakes at the top
    rows.sort(key=lambda r: (r["correct"] is not False, -abs((r["p_idiomatic"] or 0.5) - 0.5)))
    return {"group_plots": _group_plots(run, ("sense_accuracy",)), "rows": rows}


def run_context(run: RunFolder, thumbnails: bool = True) -> dict[str, Any]:
    """Everything the run page template needs."""
    from senso.report.placement import placement_for

    family = run.kind
    body = {"likert": likert_context, "admire-a": admire_a_context, "admire-b": admire_b_context,
            "admire-sense": admire_sense_context}[family]
    context = {
        "title": f"{run.task} · {run.system} · {run.split}",
        "run": run,
        "family": family,
        "header": header_rows(run),
        "warnings": warnings_of(run),
        "notes": [str(n) for n in run.results.get("notes", [])],
        "metrics": metrics_table(run.results),
        "calibration": calibration_block(run.results),
        "placement": placement_for(run),
        "model_description": run.results.get("model", {}),
    }
    context[family.replace("-", "_")] = body(run) if family == "likert" else body(run, thumbnails=thumbnails)
    return context


def write_run_report(run_dir: str | Path, out: str | Path | None = None, thumbnails: bool = True) -> Path:
    """Render the page of one run to `out` (default RUN_DIR/report.html); returns its path."""
    from senso.report.render import render

    run = load_run(run_dir)
    path = Path(out) if out else run.path / "report.html"
    check_output_file(path, "-o")
    html = render("run.html.j2", run_context(run, thumbnails=thumbnails))
    return write_text(path, html, "-o")
