"""The numbers of a ranking task file's run: metrics overall, per gold sentence type and per language (95%
bootstrap CIs), and the paired comparison of each two languages on the expressions they share (the `pair` key:
XMPIE's parallel design makes "same expression, other language" a pairing)."""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from senso.admire.languages import language_name
from senso.admire.metrics import TYPE_METRICS, estimates, grouped_estimates
from senso.admire.ranking.select import ranked_metrics, selection_metric
from senso.admire.scoring import PARITY_NOTE, compounds_index, sense_calibration
from senso.admire.task import TEXT_AND_IMAGES, TEXT_ONLY, gold_source
from senso.core.stats import Estimate, paired_permutation_test


def paired_languages(items: Sequence[Any], rows: Sequence[dict[str, Any]], languages: Sequence[str], metric: str,
                     seed: int = 0) -> list[dict[str, Any]]:
    """For each two languages: the metric on the expressions both have (per pair key, the mean of its items),
    the difference A - B with a paired bootstrap CI and a sign-flip permutation p-value; or why there is none."""
    by_lang: dict[str, dict[str, list[float]]] = {lang: {} for lang in languages}
    for item, row in zip(items, rows):
        if metric in row:
            by_lang[item.lang].setdefault(item.pair, []).append(row[metric])
    out = []
    for a, b in itertools.combinations(languages, 2):
        shared = sorted(set(by_lang[a]) & set(by_lang[b]))
        entry: dict[str, Any] = {"a": a, "b": b, "metric": metric, "n": len(shared)}
        if len(shared) < 2:
            entry["reason"] = (f"{len(shared)} expression(s) in both {a} and {b}: a paired comparison needs at least "
                               "two (the task file's `pair` column links an expression across languages)")
        else:
            result = paired_permutation_test([float(np.mean(by_lang[a][k])) for k in shared],
                                             [float(np.mean(by_lang[b][k])) for k in shared], seed=seed)
            entry.update(result.to_json())
        out.append(entry)
    return out


def tally(plan: Any, samples: Sequence[Any], scored: bool, types: Sequence[str | None]):
    """(record, metrics, metrics by group, notes, warnings) of a RankingPlan's samples."""
    task, options, items = plan.ranking, plan.options, plan.items
    rows = [s.to_json() for s in samples]
    multilingual = len(task.languages) > 1
    languages = list(dict.fromkeys(i.lang for i in items))
    record: dict[str, Any] = {
        "lang": options.lang, "split": options.split,
        "caption_lang": (options.caption_lang or next(iter(task.caption_columns))) if task.caption_columns else None,
        "track": TEXT_AND_IMAGES if getattr(plan.predictor, "uses_images", False) else TEXT_ONLY,
        "ranking_task": task.describe(),
        "n_by_language": {lang: sum(i.lang == lang for i in items) for lang in languages},
        "language_names": {lang: language_name(lang) for lang in languages},
        "gold": gold_source(plan.data_files[:len(plan.entries)], plan.data_files[len(plan.entries):]) if scored else None}
    if plan.choice is not None:
        record["default_system"] = plan.choice
    notes, warnings = [], []
    if task.sentence_type and any(t is None for t in types):
        warnings.append(f"NO SENTENCE TYPE: {plan.system} decides no sentence type for "
                        f"{sum(t is None for t in types)} of {len(types)} items; their submission rows leave "
                        "sentence_type blank and the sentence-type metrics leave them out")
    names = [m for m in task.metrics if m not in TYPE_METRICS or "sentence_type" in task.gold]
    if not scored:
        reason = f"no gold for {options.lang} {options.split}: wrote the submission file(s) only"
        notes.append(f"{reason}, no metrics")
        return record, {name: Estimate(None, reason=reason) for name in names}, {}, notes, warnings
    metrics, by_group = grouped_estimates(rows, names, seed=options.seed)
    notes += [PARITY_NOTE] if "official_name_corr" in names else []
    for lang in languages if multilingual else ():
        by_group[lang] = estimates([r for r, i in zip(rows, items) if i.lang == lang], names, seed=options.seed)
    if len(languages) > 1:
        record["paired_languages"] = paired_languages(items, rows, languages, selection_metric(task), options.seed)
    return record, metrics, by_group, notes, warnings


def _overlap(plan: Any, samples: Sequence[Any], scored: bool) -> dict[str, Any]:
    """A fitted system's overlap with its training data (`AdmirePlan.overlap`); placement on a split a published
    leaderboard covers."""
    fitted = plan.fitted
    index = fitted.training if fitted is not None else compounds_index(plan.predictor)
    rows = [s.to_json() for s in samples] if scored else None
    on_board = bool(set(plan.options.split.split("+")) & set(plan.ranking.leaderboard_splits))
    return plan.overlap(samples, rows, index, ranked_metrics(plan.ranking), on_board,
                        overlaps=fitted.overlaps if fitted is not None else None)


def official_record(plan: Any, samples: Sequence[Any], answers: Sequence[Any], scored: bool) -> dict[str, Any]:
    """What results.json records beyond the metrics: the official row count (a file that declares it), a fitted
    system's fitting, the sense's calibration and the overlap with the training data."""
    record: dict[str, Any] = {}
    if plan.n_official is not None:
        record["n_official"] = plan.n_official
    if plan.fitted is not None:
        record.update({"cross_validated": bool(plan.fitted.fitting.get("cross_validated")),
                       "fitting": plan.fitted.fitting})
    calibration = sense_calibration([a.extra.get("p_idiomatic") for a in answers],
                                    [i.sentence_type for i in plan.items], seed=plan.options.seed) if scored else None
    if calibration is not None:
        record["calibration"] = calibration
    return {**record, **_overlap(plan, samples, scored)}
