"""Paired comparison of two AdMIRe systems on the same items (`senso compare`).

Each side is a run folder (its samples.jsonl) or a submission file. Gold comes from `--gold` (an
organisers' targets file) or, when absent, from the runs' own samples (which must agree). Per metric
and per sentence type: both means, the difference A - B with a paired bootstrap 95% CI, and a
paired sign-flip permutation p-value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from senso.admire.data import AdmireATarget, read_targets
from senso.core.errors import SensoError
from senso.core.calibration import binary_distribution, paired_calibration_differences
from senso.core.comparison import Comparison, MetricDifference, difference_of
from senso.core.stats import UndefinedMetric, paired_permutation_test
from senso.core.records import item_differences, load_results, load_samples
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


def _answer(subtask: str, order: Any, sentence_type: Any = None, item: Any = None) -> Any:
    """What a side predicts for one item, or what gold says: the order (A), or (sentence type, item) (B)."""
    return tuple(order) if subtask == "a" else (sentence_type, item)


def load_side(path: str | Path, subtask: str) -> SideData:
    """One side: a submission file, or a run folder of the subtask's task (`senso.compare` chose this comparison by
    the task the folder recorded)."""
    path = Path(path)
    if not path.is_dir():
        submission = read_submission(path)
        if submission.subtask != subtask:
            raise SensoError(f"{path}: a Subtask {submission.subtask.upper()} submission, not Subtask {subtask.upper()}")
        return SideData(path, {r.compound: _answer(subtask, r.expected_order or (), r.sentence_type, r.expected_item)
                               for r in submission.rows}, None)
    samples = load_samples(path)
    p_idiomatic = {s["compound"]: (s.get("extra") or {}).get("p_idiomatic") for s in samples}
    preds = {s["compound"]: _answer(subtask, s.get("predicted_order") or (), s.get("predicted_sentence_type"),
                                    s.get("predicted_item")) for s in samples}
    gold_key = "gold_order" if subtask == "a" else "gold_item"
    has_gold = all(s.get(gold_key) and s.get("sentence_type") for s in samples)
    gold = {s["compound"]: (s["sentence_type"], tuple(s[gold_key]) if subtask == "a" else s[gold_key])
            for s in samples} if has_gold else None
    return SideData(path, preds, gold, p_idiomatic if all(p is not None for p in p_idiomatic.values()) else None)


def _differing(a: str | Path, b: str | Path) -> str:
    """How two run folders differ in the options that choose their items, as the refusal says it: ", run with
    different splits (dev vs train)"; "" when they differ in none (or a side is a submission file)."""
    if not (Path(a).is_dir() and Path(b).is_dir()):
        return ""
    differ = item_differences(load_results(a), load_results(b))
    return f", run with {differ}" if differ else ""


def _gold_from_file(path: Path, subtask: str) -> dict[str, tuple[str, Any]]:
    targets = read_targets(path)
    if (subtask == "a") != isinstance(targets[0], AdmireATarget):
        raise SensoError(f"{path}: not a Subtask {subtask.upper()} targets file")
    return {t.compound: (t.sentence_type, t.expected_order if subtask == "a" else t.expected_item) for t in targets}


def _gold(side_a: SideData, side_b: SideData, gold: str | Path | None, subtask: str) -> tuple[dict, str]:
    """The gold of the comparison (--gold, else the runs' own samples, which must agree) and the note saying which."""
    if gold is not None:
        return _gold_from_file(Path(gold), subtask), f"gold: {gold}"
    if side_a.gold is not None and side_b.gold is not None:
        if side_a.gold != side_b.gold:
            raise SensoError("the two runs carry different gold for the same compounds; pass --gold to choose one")
        return side_a.gold, "gold: the runs' own samples"
    missing = [str(s.source) for s in (side_a, side_b) if s.gold is None]
    raise SensoError(f"gold is needed to compare: {', '.join(missing)} carries none. Pass --gold <targets file>")


def _item_scores(subtask: str, side: SideData, compound: str, sentence_type: str, target: Any) -> dict[str, float]:
    prediction = side.predictions[compound]
    if subtask == "b":
        return score_item_b(prediction[1], prediction[0], target, sentence_type)
    if sorted(prediction) != sorted(target):
        raise SensoError(f"{side.source}: the order for {compound!r} is not a permutation of its gold images {list(target)}")
    return item_metrics(OFFICIAL_METRICS["a"], prediction, target, DEFAULT_GAINS, len(target), None, None)


def _paired(metric: str, group: str, a: list[float], b: list[float], n_resamples: int, seed: int) -> MetricDifference:
    try:
        return difference_of(metric, group, paired_permutation_test(a, b, n_resamples=n_resamples, seed=seed))
    except UndefinedMetric as exc:
        return MetricDifference(0, None, None, None, None, None, None, "not tested", str(exc), metric=metric, group=group)


def compare(task_name: str, a: str | Path, b: str | Path, gold: str | Path | None = None,
            n_resamples: int = 10000, seed: int = 0) -> Comparison:
    """Paired test of every official metric between two runs (or submission files) on the same items
    (`task_name`: admire-a or admire-b, the tasks this is the comparison of)."""
    subtask = official_subtask(task_name)
    side_a, side_b = load_side(a, subtask), load_side(b, subtask)
    if set(side_a.predictions) != set(side_b.predictions):
        only_a = sorted(set(side_a.predictions) - set(side_b.predictions))
        only_b = sorted(set(side_b.predictions) - set(side_a.predictions))
        raise SensoError(f"{a} and {b} are not on the same items ({len(side_a.predictions)} vs "
                         f"{len(side_b.predictions)}){_differing(a, b)}: only in A {only_a[:5]}, only in B "
                         f"{only_b[:5]}")
    gold_map, note = _gold(side_a, side_b, gold, subtask)
    unknown = sorted(set(side_a.predictions) - set(gold_map))
    if unknown:
        raise SensoError(f"compounds with no gold in the targets: {unknown[:10]}")
    rows = [(gold_map[c][0], *(_item_scores(subtask, side, c, *gold_map[c]) for side in (side_a, side_b)))
            for c in sorted(side_a.predictions)]
    result = Comparison(task_name, str(Path(a)), str(Path(b)), None, None, len(rows), notes=[note], calibration_of="P(idiomatic)")
    for group in ("all", *GROUPS):
        chosen = [r for r in rows if group in ("all", r[0])]
        result.differences += [_paired(metric, group, [r[1][metric] for r in chosen], [r[2][metric] for r in chosen],
                                       n_resamples, seed) for metric in OFFICIAL_METRICS[subtask]]
    disagree = [f"{d.group} {d.metric}" for d in result.differences
                if d.difference is not None and ((d.ci_low > 0 or d.ci_high < 0) != (d.p_value < 0.05))]
    calibration, calibration_note = calibration_rows(side_a, side_b, gold_map, n_resamples, seed)
    result.differences += calibration
    result.notes += [calibration_note] if calibration_note else []
    if disagree:
        result.notes.append(f"The CI and the p-value disagree for {', '.join(disagree)}: the CI is a bootstrap "
                            "percentile interval and the p-value a sign-flip permutation test; on few items (or many "
                            "ties) they can fall on either side of 0.05. Neither is wrong; report both, and trust "
                            "neither alone on so few items.")
    return result


def calibration_rows(side_a: SideData, side_b: SideData, gold: dict[str, tuple[str, Any]], n_resamples: int,
                     seed: int) -> tuple[list[MetricDifference], str | None]:
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
        rows += [difference_of(metric, group, diff, calibration=True) for metric, diff in diffs.items()]
    return rows, None
