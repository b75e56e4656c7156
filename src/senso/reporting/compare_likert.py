"""`senso compare TASK RUN_A RUN_B` for Likert runs (ABRICOT, task files): two runs of one task on the same
items, per metric overall and per domain (calibration too: ECE, Brier, log-loss, where both runs recorded it), A - B with a paired bootstrap 95% CI (items resampled, both runs on
the same resample) and a paired permutation p-value; a correlation (Pearson r, Spearman rho) is compared on
the correlation itself. The same tests as the comparison page (`senso report RUN_A RUN_B -o page.html`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.core.comparison import Comparison, difference_of
from senso.core.errors import SensoError
from senso.core.stats import PairedDifference
from senso.core.run_folder import RunFolder, aligned
from senso.reporting.compare import (
    N_RESAMPLES, SEED, check_comparable, metric_difference, metric_tests, sample_distributions,
)
from senso.reporting.run_folder import load_run

ALL = "all"  # the group of every item (then each domain)


@dataclass
class LikertComparison:
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
                          calibration_of="the label distributions", labels=labels)


def _load(path: str | Path, task: str | None) -> RunFolder:
    run = load_run(path)
    if task is not None and run.task != task:
        raise SensoError(f"{path} is a run of {run.task!r}, not {task}: `senso compare {task}` compares two runs of "
                         f"{task} (for other runs, `senso report RUN_A RUN_B -o page.html`)")
    return run


def _check_gold(runs: list[RunFolder], samples: list[list[dict[str, Any]]]) -> None:
    differ = [s["id"] for s, t in zip(*samples) if (s.get("gold"), s.get("gold_mean")) != (t.get("gold"), t.get("gold_mean"))]
    if differ:
        raise SensoError(f"{runs[0].path} and {runs[1].path} carry different gold for {len(differ)} item(s) "
                         f"({', '.join(differ[:5])}): runs of different data files cannot be compared item by item")
    unanswered = [s["id"] for side in samples for s in side if s.get("prediction") is None]
    if unanswered:
        raise SensoError(f"{len(unanswered)} answer(s) have no label ({', '.join(unanswered[:5])}: unparseable "
                         "generated answers); a paired comparison needs every item answered by both runs")


def compare_likert(task: str | None, a: str | Path, b: str | Path, n_resamples: int = N_RESAMPLES,
                   seed: int = SEED) -> LikertComparison:
    """Every metric both runs report, over all items and per domain: A - B with its paired CI and p-value."""
    runs = [_load(a, task), _load(b, task)]
    check_comparable(runs)
    samples = [sorted(side, key=lambda s: str(s["id"])) for side in aligned(runs)]  # the page's item order
    _check_gold(runs, samples)
    groups = {ALL: list(range(len(samples[0])))}
    for k, sample in enumerate(samples[0]):
        if sample.get("domain"):
            groups.setdefault(str(sample["domain"]), []).append(k)
    result = LikertComparison(runs[0].task, Path(a), Path(b), len(samples[0]),
                              notes=["gold: the runs' own samples (the same for both)"], task_def=runs[0].task_def)
    tests = {name: test for name, test in metric_tests(runs[0].task_def).items()
             if all(name in run.results.get("metrics", {}) for run in runs)}
    for group, idx in groups.items():
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
