"""`senso compare RUN_A RUN_B` for two run folders of a task without a comparison of its own: the items matched by
the task's `item_key`, every metric both runs report with a declared paired test (`Metric.paired`), over all
items and per group of the task's `group_keys` (calibration too: ECE, Brier, log-loss, where both runs recorded
it), A - B with a paired bootstrap 95% CI (items resampled, both runs on the same resample) and a paired
permutation p-value; a correlation is compared on the correlation itself. The same tests as the comparison page
(`senso report RUN_A RUN_B -o page.html`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.core.comparison import Comparison, difference_of
from senso.core.errors import SensoError
from senso.core.run_folder import RunFolder, aligned
from senso.core.stats import PairedDifference
from senso.core.task import PairedTest
from senso.reporting.compare import (
    N_RESAMPLES, SEED, check_comparable, metric_difference, metric_tests, sample_distributions, ungraded,
)
from senso.reporting.run_folder import load_run

ALL = "all"  # the group of every item (then each group of the task's group keys)


@dataclass
class RunComparison:
    task: str
    a: Path
    b: Path
    n: int
    rows: list[tuple[str, str, PairedDifference]] = field(default_factory=list)  # (group, metric, difference)
    notes: list[str] = field(default_factory=list)
    task_def: Any = None  # the runs' task (`senso.core.task.Task`): its metrics' labels

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "a": str(self.a), "b": str(self.b), "n": self.n, "notes": self.notes,
                "rows": [{"group": g, "metric": m, **r.to_json()} for g, m, r in self.rows]}

    def typed(self, system_a: str | None = None, system_b: str | None = None) -> Comparison:
        """The same rows as a `senso.core.comparison.Comparison` (what `senso.compare` returns)."""
        from senso.core.calibration import CALIBRATION_LABELS

        from senso.reporting.run_page import metric_label

        rows = [difference_of(m, g, r, calibration=m in CALIBRATION_LABELS) for g, m, r in self.rows]
        labels = {m: metric_label(m, self.task_def) for _, m, _ in self.rows}
        return Comparison(self.task, str(self.a), str(self.b), system_a, system_b, self.n, rows, list(self.notes),
                          calibration_of=self.task_def.family.calibration_of, labels=labels)


def _load(path: str | Path, task: str | None) -> RunFolder:
    run = load_run(path)
    if task is not None and run.task != task:
        raise SensoError(f"{path} is a run of {run.task!r}, not {task}: `senso compare {task}` compares two runs of "
                         f"{task} (for other runs, `senso report RUN_A RUN_B -o page.html`)")
    return run


def _check_gold(runs: list[RunFolder], samples: list[list[dict[str, Any]]]) -> None:
    """Both runs carry gold (the task's `gold_keys`), the same for every item."""
    keys = runs[0].task_def.family.gold_keys
    for run, side in zip(runs, samples):
        missing = ungraded(run, side)
        if missing:
            raise SensoError(f"{run.path}: {len(missing)} item(s) have no gold ({', '.join(missing[:5])}); a paired "
                             "comparison scores both runs against the gold in their samples (`senso report RUN_A "
                             "RUN_B -o page.html` shows the items on which they answer differently)")
    differ = [runs[0].item_id(s) for s, t in zip(*samples) if [s.get(k) for k in keys] != [t.get(k) for k in keys]]
    if differ:
        raise SensoError(f"{runs[0].path} and {runs[1].path} carry different gold for {len(differ)} item(s) "
                         f"({', '.join(differ[:5])}): runs of different data files cannot be compared item by item")


def _tested(runs: list[RunFolder], samples: list[list[dict[str, Any]]]) -> dict[str, PairedTest]:
    """The paired test of every metric both runs report, after checking each item has its columns (an item a
    test cannot read, e.g. an unparseable generated answer, is an error naming it)."""
    tests = {name: test for name, test in metric_tests(runs[0].task_def).items()
             if all(name in run.results.get("metrics", {}) for run in runs)}
    for run, side in zip(runs, samples):
        unreadable = [run.item_id(s) for s in side if not all(_reads(test, s) for test in tests.values())]
        if unreadable:
            raise SensoError(f"{run.path}: {len(unreadable)} item(s) have no value to compare "
                             f"({', '.join(unreadable[:5])}; e.g. unparseable generated answers); a paired comparison "
                             "needs every item answered by both runs")
    return tests


def _reads(test: PairedTest, sample: dict[str, Any]) -> bool:
    try:
        test.columns([sample])
        if test.shared is not None:
            test.shared([sample])
    except (KeyError, TypeError, ValueError):
        return False
    return True


def _groups(task: Any, samples: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Every item (ALL), then the items of each value of each of the task's group keys, in order of appearance."""
    groups = {ALL: list(range(len(samples)))}
    for key in task.group_keys:
        for k, sample in enumerate(samples):
            if sample.get(key):
                groups.setdefault(str(sample[key]), []).append(k)
    return groups


def compare_runs(task: str | None, a: str | Path, b: str | Path, n_resamples: int = N_RESAMPLES,
                 seed: int = SEED) -> RunComparison:
    """Every metric both runs report, over all items and per group: A - B with its paired CI and p-value."""
    runs = [_load(a, task), _load(b, task)]
    check_comparable(runs)
    samples = [sorted(side, key=runs[0].item_id) for side in aligned(runs)]  # the page's item order
    _check_gold(runs, samples)
    tests = _tested(runs, samples)
    result = RunComparison(runs[0].task, Path(a), Path(b), len(samples[0]),
                           notes=["gold: the runs' own samples (the same for both)"], task_def=runs[0].task_def)
    for group, idx in _groups(runs[0].task_def, samples[0]).items():
        side_a, side_b = [samples[0][k] for k in idx], [samples[1][k] for k in idx]
        for name, test in tests.items():
            result.rows.append((group, name, metric_difference(test, side_a, side_b, n_resamples, seed)))
        result.rows += [(group, name, r) for name, r in _calibration(runs, side_a, side_b, n_resamples, seed)]
    return result


def _calibration(runs: list[RunFolder], side_a: list[dict[str, Any]], side_b: list[dict[str, Any]],
                 n_resamples: int, seed: int) -> list[tuple[str, PairedDifference]]:
    """A - B in ECE, Brier and log-loss on these items, when both runs recorded calibration (as the page does)."""
    from senso.core.calibration import paired_calibration_differences

    a, b = sample_distributions(runs[0], side_a), sample_distributions(runs[1], side_b)
    if a is None or b is None:
        return []
    return list(paired_calibration_differences(a[0], b[0], a[1], n_resamples=n_resamples, seed=seed).items())
