"""Paired comparison of two AdMIRe systems on the same items (`senso compare`).

Each side is a run folder (its samples.jsonl) or a submission file. Gold comes from `--gold` (an
organisers' targets file) or, when absent, from the runs' own samples (which must agree). Per metric
and per sentence type: both means, the difference A - B with a paired bootstrap 95% CI, and a
paired sign-flip permutation p-value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from senso.admire.data import AdmireATarget, read_targets
from senso.core.errors import SensoError
from senso.core.calibration import binary_distribution, paired_calibration_differences
from senso.core.comparison import Comparison as TypedComparison, MetricDifference, difference_of
from senso.core.stats import PairedComparison, PairedDifference, UndefinedMetric, paired_permutation_test
from senso.core.records import load_results, load_samples
from senso.admire.metrics import DEFAULT_GAINS, item_metrics
from senso.admire.scoring import GROUPS, score_item_b
from senso.admire.submission import read_submission
from senso.admire.task import OFFICIAL_METRICS, official_subtask


@dataclass
class SideData:
    source: Path
    predictions: dict[str, Any]  # compound -> order (A) or (sentence_type, item) (B)
    gold: dict[str, tuple[str, Any]] | None  # compound -> (sentence_type, gold order or item)
    p_idiomatic: dict[str, float] | None = None  # compound -> the system's P(idiomatic), when every sample has one


@dataclass
class Comparison:
    task: str
    a: Path
    b: Path
    n: int
    rows: list[tuple[str, str, PairedComparison | None, str | None]] = field(default_factory=list)  # (group, metric, result, reason)
    notes: list[str] = field(default_factory=list)
    calibration: list[tuple[str, str, PairedDifference]] = field(default_factory=list)  # (group, metric, A - B)

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "a": str(self.a), "b": str(self.b), "n": self.n, "notes": self.notes,
                "rows": [{"group": g, "metric": m, **(r.to_json() if r else {"reason": why})} for g, m, r, why in self.rows],
                "calibration": [{"group": g, "metric": m, **r.to_json()} for g, m, r in self.calibration]}

    def typed(self, system_a: str | None = None, system_b: str | None = None) -> TypedComparison:
        """The same rows as a `senso.core.comparison.Comparison` (what `senso.compare` returns)."""
        rows = [difference_of(m, g, r) if r is not None else
                MetricDifference(0, None, None, None, None, None, None, "not tested", why, metric=m, group=g)
                for g, m, r, why in self.rows]
        rows += [difference_of(m, g, r, calibration=True) for g, m, r in self.calibration]
        return TypedComparison(self.task, str(self.a), str(self.b), system_a, system_b, self.n, rows,
                               list(self.notes), calibration_of="P(idiomatic)")


def load_side(path: str | Path, subtask: str) -> SideData:
    path = Path(path)
    if path.is_dir():
        results = load_results(path)
        wanted = f"admire-{subtask}"
        if results.get("task") != wanted:
            raise SensoError(f"{path} is a run of {results.get('task')!r}, not {wanted}: `senso compare {wanted}` "
                             f"compares two {wanted} runs (for other runs, `senso report RUN_A RUN_B -o page.html`)")
        samples = load_samples(path)
        p_idiomatic = {s["compound"]: (s.get("extra") or {}).get("p_idiomatic") for s in samples}
        p_idiomatic = p_idiomatic if all(p is not None for p in p_idiomatic.values()) else None
        if subtask == "a":
            preds = {s["compound"]: tuple(s["predicted_order"]) for s in samples}
            has_gold = all(s.get("gold_order") and s.get("sentence_type") for s in samples)
            gold = {s["compound"]: (s["sentence_type"], tuple(s["gold_order"])) for s in samples} if has_gold else None
        else:
            preds = {s["compound"]: (s["predicted_sentence_type"], s["predicted_item"]) for s in samples}
            has_gold = all(s.get("gold_item") and s.get("sentence_type") for s in samples)
            gold = {s["compound"]: (s["sentence_type"], s["gold_item"]) for s in samples} if has_gold else None
        return SideData(path, preds, gold, p_idiomatic)
    submission = read_submission(path)
    if submission.subtask != subtask:
        raise SensoError(f"{path}: a Subtask {submission.subtask.upper()} submission, not Subtask {subtask.upper()}")
    if subtask == "a":
        preds = {r.compound: r.expected_order for r in submission.rows}
    else:
        preds = {r.compound: (r.sentence_type, r.expected_item) for r in submission.rows}
    return SideData(path, preds, None)


def _gold_from_file(path: Path, subtask: str) -> dict[str, tuple[str, Any]]:
    targets = read_targets(path)
    if (subtask == "a") != isinstance(targets[0], AdmireATarget):
        raise SensoError(f"{path}: not a Subtask {subtask.upper()} targets file")
    if subtask == "a":
        return {t.compound: (t.sentence_type, t.expected_order) for t in targets}
    return {t.compound: (t.sentence_type, t.expected_item) for t in targets}


def compare(task_name: str, a: str | Path, b: str | Path, gold: str | Path | None = None,
            n_resamples: int = 10000, seed: int = 0) -> Comparison:
    """Paired test of every official metric between two runs (or submission files) on the same items."""
    subtask = official_subtask(task_name)
    if subtask is None:
        raise SensoError(f"unknown AdMIRe task {task_name!r} to compare; choose from admire-a, admire-b")
    side_a, side_b = load_side(a, subtask), load_side(b, subtask)
    if set(side_a.predictions) != set(side_b.predictions):
        only_a = sorted(set(side_a.predictions) - set(side_b.predictions))
        only_b = sorted(set(side_b.predictions) - set(side_a.predictions))
        raise SensoError(f"{a} and {b} are not on the same items ({len(side_a.predictions)} vs "
                         f"{len(side_b.predictions)}): only in A {only_a[:5]}, only in B {only_b[:5]}")
    notes = []
    if gold is not None:
        gold_map = _gold_from_file(Path(gold), subtask)
        notes.append(f"gold: {gold}")
    elif side_a.gold is not None and side_b.gold is not None:
        if side_a.gold != side_b.gold:
            raise SensoError("the two runs carry different gold for the same compounds; pass --gold to choose one")
        gold_map = side_a.gold
        notes.append("gold: the runs' own samples")
    else:
        missing = [str(s.source) for s in (side_a, side_b) if s.gold is None]
        raise SensoError(f"gold is needed to compare: {', '.join(missing)} carries none. Pass --gold <targets file>")
    unknown = sorted(set(side_a.predictions) - set(gold_map))
    if unknown:
        raise SensoError(f"compounds with no gold in the targets: {unknown[:10]}")
    per_item: dict[str, list[tuple[str, dict[str, float], dict[str, float]]]] = {}
    rows_all = []
    for compound in sorted(side_a.predictions):
        sentence_type, target = gold_map[compound]
        for side in (side_a, side_b):
            if subtask == "a" and sorted(side.predictions[compound]) != sorted(target):
                raise SensoError(f"{side.source}: the order for {compound!r} is not a permutation of its gold images {list(target)}")
        if subtask == "a":
            sa, sb = (item_metrics(OFFICIAL_METRICS["a"], side.predictions[compound], target, DEFAULT_GAINS, len(target), None, None)
                      for side in (side_a, side_b))
        else:
            sa = score_item_b(side_a.predictions[compound][1], side_a.predictions[compound][0], target, sentence_type)
            sb = score_item_b(side_b.predictions[compound][1], side_b.predictions[compound][0], target, sentence_type)
        rows_all.append((sentence_type, sa, sb))
    per_item["all"] = rows_all
    for group in GROUPS:
        per_item[group] = [r for r in rows_all if r[0] == group]
    result = Comparison(task_name, Path(a), Path(b), len(rows_all), notes=notes)
    for group, rows in per_item.items():
        for metric in OFFICIAL_METRICS[subtask]:
            try:
                outcome = paired_permutation_test([r[1][metric] for r in rows], [r[2][metric] for r in rows],
                                                  n_resamples=n_resamples, seed=seed)
                result.rows.append((group, metric, outcome, None))
            except UndefinedMetric as exc:
                result.rows.append((group, metric, None, str(exc)))
    result.calibration, note = calibration_rows(side_a, side_b, gold_map, n_resamples, seed)
    result.notes += [note] if note else []
    disagree = [f"{g} {m}" for g, m, r, _ in result.rows
                if r is not None and ((r.ci_low > 0 or r.ci_high < 0) != (r.p_value < 0.05))]
    if disagree:
        result.notes.append(f"The CI and the p-value disagree for {', '.join(disagree)}: the CI is a bootstrap "
                            "percentile interval and the p-value a sign-flip permutation test; on few items (or many "
                            "ties) they can fall on either side of 0.05. Neither is wrong; report both, and trust "
                            "neither alone on so few items.")
    return result


def calibration_rows(side_a: SideData, side_b: SideData, gold: dict[str, tuple[str, Any]], n_resamples: int,
                     seed: int) -> tuple[list[tuple[str, str, PairedDifference]], str | None]:
    """A - B in the calibration of P(idiomatic) (`core.calibration.paired_calibration_differences`), over all
    items and per gold sentence type, when both runs record P(idiomatic) for every item; else why not."""
    missing = [str(s.source) for s in (side_a, side_b) if s.p_idiomatic is None]
    if missing:
        return [], (f"calibration of P(idiomatic) not compared: {', '.join(missing)} records none for some item "
                    "(a submission file, or a system without a sense decision)")
    compounds = sorted(side_a.predictions)
    rows = []
    for group in ("all", *GROUPS):
        chosen = [c for c in compounds if group == "all" or gold[c][0] == group]
        if not chosen:
            continue
        outcome = [int(gold[c][0] == "idiomatic") for c in chosen]
        diffs = paired_calibration_differences(binary_distribution([side_a.p_idiomatic[c] for c in chosen]),
                                               binary_distribution([side_b.p_idiomatic[c] for c in chosen]),
                                               outcome, n_resamples=n_resamples, seed=seed)
        rows += [(group, metric, diff) for metric, diff in diffs.items()]
    return rows, None
