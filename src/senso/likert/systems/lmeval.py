"""`lmeval-samples`: the answers lm-evaluation-harness logged (`--log_samples`), scored by senso.

The system predicts nothing itself: each item's choices' log-likelihoods come from lm-eval's samples log
(`--set samples=FILE`, what `senso score TASK --lmeval-samples FILE` sets), and the label and expected score
follow from them as they do for `likert-lm`, so the run's metrics, records and report are those of any run.
The record says where the scores came from: the log's path and sha256 and, with lm-eval's results file
(`--set results=FILE`), lm-eval's version, the model and its arguments and the shots.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from senso.core.errors import SensoError
from senso.core.params import Configurable, param
from senso.likert.items import LikertItem
from senso.likert.lmeval_samples import (LmevalLog, logged_prefix, match_items, read_lmeval_results,
                                         read_lmeval_samples)
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.systems.likert_lm import prediction_from_logprobs
from senso.likert.task import LikertTask

SYSTEM_NAME = "lmeval-samples"


@dataclass
class LmevalOptions(Configurable):
    """`lmeval-samples`'s options: the files lm-eval wrote."""

    samples: Path | None = param(None, "lm-eval's per-sample log of this task (lm_eval --log_samples: "
                                       "samples_<task>_<date>.jsonl)")
    results: Path | None = param(None, "lm-eval's results file of the same run (results_<date>.json): its version, "
                                       "model and model args are recorded")


def _samples_path(params: LmevalOptions) -> Path:
    if params.samples is None:
        raise SensoError(f"--system {SYSTEM_NAME} scores lm-eval's logged answers: give the log with "
                         "--set samples=FILE (senso score TASK --lmeval-samples FILE)")
    return params.samples


def read_matched(task: LikertTask, items: Sequence[LikertItem], pool: Sequence[LikertItem],
                 params: LmevalOptions) -> tuple[LmevalLog, list[list[float]], list[str], dict[str, Any] | None]:
    """The log read and matched to the items (errors name what does not match), and the results file's facts."""
    log = read_lmeval_samples(_samples_path(params), task.columns["id"])
    results = read_lmeval_results(params.results, log.path) if params.results is not None else None
    logged = logged_prefix(log, pool) if len(items) == len(pool) else None
    loglikelihoods, warnings = match_items(log, task, pool[:logged] if logged else items, pool)
    return log, loglikelihoods, warnings, results


def logged_limit(task: LikertTask, pool: Sequence[LikertItem], params: LmevalOptions) -> int | None:
    """k when the log is of an lm-eval run limited to the first k documents (`lm_eval --limit k`): the run then
    scores those k items and is marked PARTIAL, as senso's own --limit is."""
    return logged_prefix(read_lmeval_samples(_samples_path(params), task.columns["id"]), pool)


def check_lmeval(task: LikertTask, load: Callable[[], tuple[Any, list[LikertItem], list[LikertItem]]],
                 params: LmevalOptions) -> None:
    """The log and results file checked against the task's items before the run folder is written; a missing
    log is said before the data is read (`load` gives the data file, the items scored and the whole pool)."""
    _samples_path(params)
    read_matched(task, *load()[1:], params)


def _describe(log: LmevalLog, results: dict[str, Any] | None) -> dict[str, Any]:
    model = (results or {}).get("model") or "unknown (no --lmeval-results)"
    backend = (results or {}).get("model_backend")
    spec = f"lm-eval {backend}:{model}" if backend else f"lm-eval:{model}"
    return {"name": SYSTEM_NAME, "source": "lm-evaluation-harness",
            "model": {"spec": spec, "fingerprint": f"samples sha256 {log.sha256[:12]}"},
            "samples_file": {"path": str(log.path.resolve()), "sha256": log.sha256},
            "lmeval": results or {}}


def _acc_check(ctx: LikertRunContext, predictions: list[Any], results: dict[str, Any] | None, n_logged: int) -> list[str]:
    """lm-eval's own accuracy (`acc,none` of its results file) against the imported labels' on the same items:
    a warning naming both when they differ (the log and the results file would then not be of one run), or
    when the results file counts other documents than the log holds."""
    metrics = (results or {}).get("lmeval_metrics") or {}
    counted, acc = metrics.get("sample_len"), metrics.get("acc,none")
    if counted is not None and counted != n_logged:
        return [f"lm-eval's results file counts {counted} documents of {results['lmeval_task']}, the samples log holds "
                f"{n_logged}: a part of the log (its accuracy is not checked against the results file)"]
    if acc is None or len(ctx.items) != n_logged or any(item.gold is None for item in ctx.items):
        return []
    mine = sum(p.label == ctx.task.gold_label(item.gold) for p, item in zip(predictions, ctx.items)) / len(ctx.items)
    if abs(mine - float(acc)) <= 1e-9:
        return []
    return [f"lm-eval's own accuracy in its results file ({float(acc):.4f}) differs from that of its logged answers "
            f"({mine:.4f}): are the samples log and the results file of one lm-eval run?"]


def run_lmeval_samples(ctx: LikertRunContext) -> SystemOutput:
    """The predictions of lm-eval's log: the most likely choice (ties: the lower) and the expected score."""
    log, loglikelihoods, warnings, results = read_matched(ctx.task, ctx.items, ctx.pool, ctx.params)
    predictions = [prediction_from_logprobs(item.id, values, ctx.task.labels, lmeval_line=log.samples[item.id].line)
                   for item, values in zip(ctx.items, loglikelihoods)]
    shots = (results or {}).get("n_shot")
    info = {"protocol": f"lm-eval log ({shots}-shot)" if shots is not None else "lm-eval log",
            "shots": shots, "supervised": False, "scores_from": "lm-evaluation-harness",
            "lmeval_samples": {"path": str(log.path.resolve()), "sha256": log.sha256, "n_logged": len(log.samples)},
            "warnings": [*warnings, *_acc_check(ctx, predictions, results, len(log.samples))]}
    return predictions, _describe(log, results), info
