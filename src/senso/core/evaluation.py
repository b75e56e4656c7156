"""The one evaluation loop: every run of every task, of every family, goes through `evaluate`.

A wing contributes, per task, a `prepare(options, context) -> Plan` (items loaded, gold joined, the system
built; nothing predicted yet) and the Plan's two steps, `predict()` (the system's answers, with progress)
and `score(answers)` (typed per-item samples, metrics, the family's record keys, extra files such as a
submission). The loop does the rest, the same way for all:

1. opens the response cache (checked before anything slow) and closes it in `finally`;
2. prepares the run and records its config (`config.json`, written first when there is a run folder);
3. asks the system for its answers, then scores them;
4. records timings under one set of names (`TIMING_KEYS`) and the cache facts (`CACHE_KEYS`), and returns a
   typed `EvalResult`, written to the run folder when one was given (`EvalResult.save` writes the same
   folder later). Only this module writes run folders, through `core.records.RunWriter` (locked while
   written; SIGTERM and Ctrl-C stop it saying what was kept).
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.core.records import RunRecord, RunWriter, config_data_files, run_config
from senso.core.stats import Estimate

TIMING_KEYS = ("load_s", "predict_s", "score_s", "total_s", "items_per_s")
CACHE_KEYS = ("enabled", "hits", "misses")


class ScoreWarning(str):
    """A warning that says the run went without an optional resource and so scores otherwise than runs with it
    (recorded by name in results.json's `score_warnings`: a summary row marks its score with it)."""


class Partial(str):
    """A warning that the run scored part of its data set (--limit, a data file or submission shorter than the
    official split): recorded in results.json's `partial` (its text), which placement reads (`core.placement`)."""


@dataclass
class Scored:
    """What a Plan's `score` gives: per-item samples, metrics (empty without gold), the family's keys of
    results.json (`record`), warnings and notes for the reader, and extra files of the run folder (name -> text)."""

    samples: list[Any]
    metrics: dict[str, Estimate] = field(default_factory=dict)
    metrics_by_group: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)


class Plan(Protocol):
    """One run as a wing's task prepared it. `family` is the benchmark family ("likert", "admire"), `kind` the
    shape of its records (what a report page reads: "likert", "admire-a", "admire-b", "admire-sense")."""

    task: str
    family: str
    kind: str
    system: str
    items: Sequence[Any]
    data_files: list[Path]
    config: dict[str, Any]  # task-specific keys of config.json
    warnings: list[str]

    def describe_system(self) -> dict[str, Any]: ...

    def predict(self) -> Any: ...

    def score(self, answers: Any) -> Scored: ...


@dataclass
class RunContext:
    """What a run is given besides its options: the response cache, the models of this evaluation session
    (`models`, a `senso.backends.pool.ModelPool`: each model loaded once, shared by the tasks of one call) and,
    when the researcher passed one, their own system object (else `options.system` names a registered one)."""

    cache: ResponseCache
    models: Any
    system: Any = None
    checked: Any = None  # what the task's `check` returned, when the caller ran it (prepare does not check again)


Prepare = Callable[[RunOptions, RunContext], Plan]


def calibration_groups(calibration: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The per-group calibration metrics of a results.json `calibration` (by the values of its task's first group
    key: a domain, a gold sentence type)."""
    from senso.core.calibration import BY_GROUP

    return calibration.get(BY_GROUP) or {}


@dataclass
class EvalResult:
    """A finished run: typed metrics (`Estimate`: value, ci_low, ci_high, or value None and the reason), typed
    per-item `samples`, and the run's record (`results`, what results.json holds). `save(folder)` writes the run
    folder that `senso report`, `compare` and `leaderboard` read; `run_dir` is where it was written, if anywhere.
    What the command line does with a finished run are free functions taking results: `senso.report([r], path)`,
    `senso.compare(a, b)`, `senso.placement(r)`, `senso.export(...)`."""

    record: RunRecord
    samples: list[Any]
    files: dict[str, str] = field(default_factory=dict)
    run_dir: Path | None = None

    @property
    def task(self) -> str:
        return self.record.task

    @property
    def system(self) -> str:
        return self.record.system

    @property
    def n(self) -> int:
        return self.record.n

    @property
    def metrics(self) -> dict[str, Estimate]:
        return self.record.metrics

    @property
    def metrics_by_group(self) -> dict[str, dict[str, Estimate]]:
        return self.record.metrics_by_group

    @property
    def calibration(self) -> dict[str, Estimate]:
        """ECE, Brier and log-loss of the run's probabilities, `Estimate`s like `metrics` (empty when the system
        gives no probabilities: `results["calibration"]["reason"]` says why)."""
        recorded = self.record.extra.get("calibration") or {}
        return {name: Estimate(**value) for name, value in recorded.get("metrics", {}).items()}

    @property
    def calibration_by_group(self) -> dict[str, dict[str, Estimate]]:
        """The calibration metrics per group (Likert: per domain; AdMIRe: per gold sentence type)."""
        groups = calibration_groups(self.record.extra.get("calibration") or {})
        return {group: {name: Estimate(**value) for name, value in metrics.items()} for group, metrics in groups.items()}

    @property
    def warnings(self) -> list[str]:
        return self.record.warnings

    @property
    def notes(self) -> list[str]:
        return list(self.record.extra.get("notes", []))

    @property
    def config(self) -> dict[str, Any]:
        return self.record.config

    @property
    def results(self) -> dict[str, Any]:
        """The results.json object of this run."""
        return self.record.to_json()

    def to_pandas(self):
        """The samples as a pandas DataFrame, one row per item (the fields of samples.jsonl)."""
        import pandas as pd

        return pd.DataFrame([sample.to_json() for sample in self.samples])

    def save(self, folder: str | Path, flag: str = "out") -> Path:
        """Write the run folder (config.json, samples.jsonl, results.json and the run's extra files)."""
        inputs = [entry["path"] for entry in config_data_files(self.config) if entry.get("path")]
        with RunWriter(folder, flag=flag, inputs=inputs) as writer:
            writer.write_config(self.config)
            self._write(writer)
        self.run_dir = writer.dir
        return writer.dir

    def _write(self, writer: RunWriter) -> None:
        for name, text in self.files.items():
            writer.write_file(name, text)
        writer.write_samples(sample.to_json() for sample in self.samples)
        writer.write_results(self.record)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={estimate.format()}" for name, estimate in list(self.metrics.items())[:4])
        return f"EvalResult(task={self.task!r}, system={self.system!r}, n={self.n}, {shown or 'no metrics'})"


def _record(plan: Plan, options: RunOptions, config: dict[str, Any], scored: Scored, timings: dict[str, Any],
            cache: ResponseCache, warnings: list[str]) -> RunRecord:
    extra = {"family": plan.family, "task_kind": plan.kind, "seed": options.seed, "batch_size": options.batch_size,
             "limit": options.limit, **scored.record,
             "cache": {"enabled": cache.enabled, "hits": cache.hits, "misses": cache.misses},
             "notes": scored.notes, "score_warnings": [str(w) for w in warnings if isinstance(w, ScoreWarning)]}
    partial = [str(w) for w in warnings if isinstance(w, Partial)]
    if partial:  # the run scored part of its data set: placement does not rank it
        extra["partial"] = partial[0]
    return RunRecord(task=plan.task, system=plan.system, n=len(plan.items), metrics=scored.metrics, config=config,
                     metrics_by_group=scored.metrics_by_group, model=plan.describe_system(), timings=timings,
                     warnings=warnings, extra=extra)


def _timings(started: float, loaded: float, predicted: float, scored: float, n: int) -> dict[str, Any]:
    predict_s = predicted - loaded
    return {"load_s": round(loaded - started, 3), "predict_s": round(predict_s, 3),
            "score_s": round(scored - predicted, 3), "total_s": round(scored - started, 3),
            "items_per_s": round(n / predict_s, 3) if predict_s > 0 else None}


RunFolder = Callable[[Plan], Path]  # the run folder of a prepared run (e.g. runs/<time>-<task>-<system>/)


def evaluate(prepare: Prepare, options: RunOptions, models: Any, system: Any = None,
             out: str | Path | RunFolder | None = None, command: str | None = None, checked: Any = None) -> EvalResult:
    """Run one task end to end through the one loop; `out`: also write the run folder there (or where
    `out(plan)` says) as it goes. `command` is what the record says was run (default: this process's argv);
    `checked`, what the task's check returned for these options (then `prepare` does not check again)."""
    started = time.perf_counter()
    cache = ResponseCache(enabled=options.use_cache)
    try:
        cache.check()
        plan = prepare(options, RunContext(cache=cache, models=models, system=system, checked=checked))
        config = run_config(options, plan.system, plan.data_files, **plan.config)
        folder = out(plan) if callable(out) else out
        with ExitStack() as stack:
            writer = None if folder is None else stack.enter_context(
                RunWriter(folder, cache=cache, inputs=plan.data_files))  # after the data were read and checked
            if writer is not None:
                writer.write_config(config)
            loaded = time.perf_counter()
            answers = plan.predict()
            predicted = time.perf_counter()
            scored = plan.score(answers)
            timings = _timings(started, loaded, predicted, time.perf_counter(), len(plan.items))
            warnings = [*plan.warnings, *(writer.warnings if writer else []), *scored.warnings, *cache.warnings]
            record = _record(plan, options, config, scored, timings, cache, warnings)
            if command is not None:
                record.command = command
            result = EvalResult(record=record, samples=scored.samples, files=scored.files)
            if writer is not None:
                result._write(writer)
                result.run_dir = writer.dir
        return result
    finally:
        cache.close()
