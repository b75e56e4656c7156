"""How far a supervised Likert model travels: its measures, each with a 95% bootstrap CI, and an input check.

For any Likert task (built-in or a task file), predictions p and raw gold values y (ABRICOT: the human
mean, 0-1), group G(i) of item i (the task's `group` column; ABRICOT: the lemma). Measure names use the
task's `group_noun` ("lemma" for ABRICOT: `lolo_r`, `within_lemma_r`, `between_lemma_r`; "group" by
default: `logo_r`, `within_group_r`, `between_group_r`):
- leave-one-group-out r: r(p, y) over all items, p from leave-one-group-out (each group predicted by a
  model that never saw it); bootstrap over items (as the run metrics).
- within-group r: r(p_i - p̄_G(i), y_i - ȳ_G(i)) over all items, the LOGO predictions and the gold centred
  on their group: does the model order the sentences of one word? Bootstrap over groups.
- between-group r: r(p̄_G, ȳ_G) over the groups: does it know which word rates higher? Bootstrap over groups.
- `lodo_r[A→B]`: fit on the items of domain A only, r(p, y) over the items of domain B (ABRICOT: opensub ↔ wikihow).
- `label_r`: the official figure beside them: r(predicted label, gold label) of the LOGO predictions.

A measure that cannot be computed is `{"value": null, "reason": ...}`: the within/between measures when
the data has no group column (every item its own group), LODO with fewer than two domains.

The default system of `senso fit` is chosen by `choose_system`: the candidate whose *worst* measure is
highest (a model is only as portable as its weakest direction), then the simplest candidate whose worst
measure reaches the lower CI bound of that best one (within its CI: prefer the simpler).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.stats import Estimate, UndefinedMetric, bootstrap_estimate, pearson
from senso.likert.items import LikertItem, group_key, has_group
from senso.likert.task import LikertPrediction, LikertTask, require_gold

N_RESAMPLES = 1000
# Longest training sentence × this: longer input rows are flagged by `TrainingProfile.unlike`.
LENGTH_FACTOR = 1.5
LODO_KEY = "lodo_r"
LABEL_KEY = "label_r"


class FittableSystem(Protocol):
    def fit(self, items: Sequence[LikertItem], task: LikertTask) -> Any: ...

    def predict(self, items: Sequence[LikertItem], task: LikertTask | None = None, *,
                warn: bool = True) -> list[LikertPrediction]: ...


def measure_names(task: LikertTask) -> dict[str, str]:
    """{key in results.json: what it measures} in the task's words (ABRICOT: lolo_r, within_lemma_r, ...)."""
    noun = task.group_noun
    return {f"lo{noun[0]}o_r": f"leave-one-{noun}-out",
            f"between_{noun}_r": f"between-{noun} ({noun} means)",
            f"within_{noun}_r": f"within-{noun} (deviations)"}


def raw_prediction(pred: LikertPrediction, task: LikertTask) -> float:
    """The continuous prediction on the gold scale (`extra["pred"]`), else the expected score mapped back to it."""
    if "pred" in pred.extra:
        return float(pred.extra["pred"])
    if pred.expected is None:
        raise SensoError(f"prediction {pred.item_id} has no continuous value")
    if task.gold_to_label == "round":
        return float(pred.expected)
    lo, hi = task.scale
    a, b = task.gold_range
    return a + (float(pred.expected) - lo) * (b - a) / (hi - lo + 1)


def _group_means(values: np.ndarray, groups: Sequence[str]) -> dict[str, float]:
    acc: dict[str, list[float]] = defaultdict(list)
    for v, g in zip(values, groups):
        acc[g].append(float(v))
    return {g: float(np.mean(v)) for g, v in acc.items()}


def _cluster_bootstrap(statistic: Callable[[list[str]], float], clusters: list[str], seed: int) -> Estimate:
    """statistic(list of clusters) with a percentile interval over resampled clusters (undefined resamples skipped)."""
    try:
        value = statistic(clusters)
    except UndefinedMetric as exc:
        return Estimate(value=None, reason=str(exc))
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(N_RESAMPLES):
        pick = [clusters[i] for i in rng.integers(0, len(clusters), size=len(clusters))]
        try:
            s = statistic(pick)
        except UndefinedMetric:
            continue
        if not np.isnan(s):
            samples.append(s)
    if not samples:
        return Estimate(value=float(value), reason="no bootstrap resample had a defined value")
    low, high = np.quantile(samples, [0.025, 0.975])
    return Estimate(value=float(value), ci_low=float(low), ci_high=float(high))


def within_group_r(pred: Sequence[float], gold: Sequence[float], groups: Sequence[str], seed: int = 0,
                   noun: str = "group") -> Estimate:
    """r of the group-centred predictions and gold, CI by resampling groups."""
    p, y = np.asarray(pred, float), np.asarray(gold, float)
    pm, ym = _group_means(p, groups), _group_means(y, groups)
    dp: dict[str, list[float]] = {g: [] for g in pm}
    dy: dict[str, list[float]] = {g: [] for g in pm}
    for v, t, g in zip(p, y, groups):
        dp[g].append(v - pm[g])
        dy[g].append(t - ym[g])

    def stat(clusters: list[str]) -> float:
        a = np.concatenate([dp[g] for g in clusters])
        b = np.concatenate([dy[g] for g in clusters])
        if np.allclose(a, 0.0):
            raise UndefinedMetric(f"the predictions are constant within every {noun}")
        return pearson(a, b, names=(f"the within-{noun} predictions", f"the within-{noun} gold"))

    return _cluster_bootstrap(stat, list(pm), seed)


def between_group_r(pred: Sequence[float], gold: Sequence[float], groups: Sequence[str], seed: int = 0,
                    noun: str = "group") -> Estimate:
    """r of the per-group mean prediction and the per-group mean gold, CI by resampling groups."""
    pm = _group_means(np.asarray(pred, float), groups)
    ym = _group_means(np.asarray(gold, float), groups)
    return _cluster_bootstrap(
        lambda cl: pearson([pm[g] for g in cl], [ym[g] for g in cl],
                           names=(f"the {noun} predictions", f"the {noun} means")),
        list(pm), seed)


# ABRICOT's names for the two, as the lexprior branch introduced them
within_lemma_r, between_lemma_r = within_group_r, between_group_r


@dataclass
class TravelReport:
    """The travel measures (and the official label r) of one system on one task; keys as `measure_names`."""

    system: str
    task: str
    n: int
    measures: dict[str, Estimate]  # leave-one-group-out, between, within, then lodo_r[A→B] or lodo_r
    labels: dict[str, str]  # key -> what it measures (table rows)
    label_r: Estimate

    def compared(self) -> dict[str, Estimate]:
        """The measures `choose_system` compares: leave-one-group-out, between-group and every LODO direction."""
        return {k: v for k, v in self.measures.items() if not k.startswith("within_")}

    def to_json(self) -> dict[str, Any]:
        return {"system": self.system, "task": self.task, "n": self.n,
                "measures": {k: v.to_json() for k, v in self.measures.items()},
                "labels": dict(self.labels), LABEL_KEY: self.label_r.to_json(),
                "definitions": "r vs the raw gold; leave-one-group-out predictions; within/between: group-centred "
                               "/ group means of them; LODO = fit on one domain, score another"}


def _undefined(reason: str) -> Estimate:
    return Estimate(value=None, reason=reason)


def lodo_estimates(make: Callable[[], FittableSystem], items: Sequence[LikertItem], task: LikertTask,
                   seed: int = 0) -> dict[str, Estimate]:
    """Fit on each domain, score every other domain: {"lodo_r[A→B]": r over B's items}; with fewer than two
    domains one undefined `lodo_r`. A fit that fails on a domain makes its directions undefined, with why."""
    domains = sorted({it.domain for it in items})
    if len(domains) < 2:
        named = f" ({domains[0]})" if domains and domains[0] else " (no domain column)"
        return {LODO_KEY: _undefined(f"one domain{named}: leave-one-domain-out needs at least two")}
    out = {}
    for a in domains:
        train = [it for it in items if it.domain == a]
        try:
            system = make()
            system.fit(train, task)
        except SensoError as exc:
            for b in domains:
                if b != a:
                    out[f"{LODO_KEY}[{a}→{b}]"] = _undefined(f"cannot fit on {a} alone: {exc}")
            continue
        for b in domains:
            if b == a:
                continue
            test = [it for it in items if it.domain == b]
            preds = [raw_prediction(p, task) for p in system.predict(test, task, warn=False)]
            out[f"{LODO_KEY}[{a}→{b}]"] = bootstrap_estimate(pearson, preds, [require_gold(it) for it in test],
                                                             n_resamples=N_RESAMPLES, seed=seed)
    return out


def travel_report(name: str, logo: Sequence[LikertPrediction], items: Sequence[LikertItem], task: LikertTask,
                  make: Callable[[], FittableSystem] | None, seed: int = 0) -> TravelReport:
    """The measures from a system's leave-one-group-out predictions (aligned with `items`) plus, given
    `make`, its LODO fits."""
    if len(logo) != len(items):
        raise SensoError(f"{len(logo)} predictions for {len(items)} items")
    p = [raw_prediction(x, task) for x in logo]
    y = [require_gold(it) for it in items]
    groups = [group_key(it) for it in items]
    noun = task.group_noun
    names = measure_names(task)
    loo_key, between_key, within_key = names
    measures = {loo_key: bootstrap_estimate(pearson, p, y, n_resamples=N_RESAMPLES, seed=seed)}
    if not any(has_group(it) for it in items):
        why = f"the data has no {task.columns['group']!r} column: every item is its own {noun}"
        measures[between_key], measures[within_key] = _undefined(why), _undefined(why)
    else:
        measures[between_key] = between_group_r(p, y, groups, seed, noun)
        measures[within_key] = within_group_r(p, y, groups, seed, noun)
    if make is None:
        measures[LODO_KEY] = _undefined("the system cannot be refitted here")
    else:
        measures.update(lodo_estimates(make, items, task, seed))
    labels = dict(names)
    for key in measures:
        if key.startswith(LODO_KEY):
            labels[key] = "leave-one-domain-out" + (" " + key[len(LODO_KEY) + 1:-1] if key != LODO_KEY else "")
    labels[LABEL_KEY] = "label vs gold label (official)"
    return TravelReport(
        system=name, task=task.name, n=len(items), measures=measures, labels=labels,
        label_r=bootstrap_estimate(pearson, [x.label for x in logo], [task.gold_label(v) for v in y],
                                   n_resamples=N_RESAMPLES, seed=seed),
    )


def _worst(report: TravelReport, keys: Sequence[str]) -> tuple[str, Estimate]:
    """The lowest of `keys` (an undefined one counts as the worst, value -inf)."""
    measures = report.compared()
    return min(((k, measures.get(k, _undefined("not measured"))) for k in keys),
               key=lambda kv: -np.inf if kv[1].value is None else kv[1].value)


def choose_system(reports: Sequence[TravelReport]) -> tuple[TravelReport, str]:
    """The best-travelling report (see the module docstring); `reports` in order of increasing complexity.
    Measures undefined for every candidate (one domain, no groups) are left out of the comparison."""
    if not reports:
        raise SensoError("no candidate systems to choose from")
    keys = [k for k in reports[0].compared() if any(r.compared().get(k, _undefined("")).value is not None
                                                    for r in reports)]
    if not keys:
        raise SensoError("no travel measure is defined for any candidate system: choose one with --system")
    best = max(reports, key=lambda r: -np.inf if _worst(r, keys)[1].value is None else _worst(r, keys)[1].value)
    key, est = _worst(best, keys)
    if est.value is None:
        raise SensoError(f"every candidate has an undefined travel measure ({key}: {est.reason}): choose one with --system")
    bound = est.ci_low if est.ci_low is not None else est.value
    for r in reports:  # simplest first
        worst_key, worst = _worst(r, keys)
        if worst.value is not None and worst.value >= bound:
            why = (f"{r.system}: worst measure {worst_key} = {worst.value:.3f}; best worst measure {best.system} "
                   f"{key} = {est.format()}")
            if r is not best:
                why += " (within its CI, so the simpler system)"
            return r, why
    return best, f"{best.system}: highest worst measure ({key} = {est.format()})"  # pragma: no cover (best passes)


@dataclass(frozen=True)
class TrainingProfile:
    """What the training input looked like, to flag new input that does not (domains, sentence length)."""

    domains: tuple[str, ...]
    max_chars: int
    median_chars: float

    @classmethod
    def from_items(cls, items: Sequence[LikertItem]) -> "TrainingProfile":
        lengths = [len(it.text) for it in items]
        return cls(domains=tuple(sorted({it.domain for it in items})), max_chars=max(lengths),
                   median_chars=float(np.median(lengths)))

    def to_json(self) -> dict[str, Any]:
        return {"domains": list(self.domains), "max_chars": self.max_chars, "median_chars": self.median_chars}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TrainingProfile":
        return cls(domains=tuple(data["domains"]), max_chars=int(data["max_chars"]),
                   median_chars=float(data["median_chars"]))

    def unlike(self, items: Sequence[LikertItem]) -> str | None:
        """A warning when rows come from unseen domains or are much longer than any training sentence; else None."""
        parts = []
        other = [it for it in items if it.domain not in self.domains]
        if other:
            names = sorted({it.domain or "(blank)" for it in other})
            seen = ", ".join(d or "(blank)" for d in self.domains)
            parts.append(f"{len(other)} of {len(items)} rows are from domain(s) {', '.join(names)}, not seen in "
                         f"training ({seen})")
        limit = LENGTH_FACTOR * self.max_chars
        long_rows = [it for it in items if len(it.text) > limit]
        if long_rows:
            parts.append(f"{len(long_rows)} of {len(items)} rows are longer than {limit:.0f} characters "
                         f"({LENGTH_FACTOR}× the longest training sentence; training median {self.median_chars:.0f})")
        if not parts:
            return None
        return "input unlike the training data: " + "; ".join(parts) + ": expect the predictions to travel less well"
