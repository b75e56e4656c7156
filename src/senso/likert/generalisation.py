"""How far a supervised Likert model travels: four measures, each with a 95% bootstrap CI, and an input check.

For predictions p and human means y (task dimension, 0-1 scale), lemma L(i) of item i:
- `lolo_r`: r(p, y) over all items, p from leave-one-lemma-out (each lemma predicted by a model that never saw it);
  bootstrap over items (as the run metrics).
- `within_lemma_r`: r(p_i - p̄_L(i), y_i - ȳ_L(i)) over all items, the LOLO predictions and the means
  centred on their lemma: does the model order the sentences of one word? Bootstrap over lemmas (the
  deviations of one lemma are resampled together).
- `between_lemma_r`: r(p̄_L, ȳ_L) over the lemmas: does it know which word is more abstract? Bootstrap over lemmas.
- `lodo_r[A→B]`: fit on the items of domain A only, r(p, y) over the items of domain B (ABRICOT: opensub ↔ wikihow).
- `label_r`: the official figure beside them: r(predicted label, gold label) of the LOLO predictions.

The default system of `senso fit` is chosen by `choose_system`: the candidate whose *worst* measure is
highest (a model is only as portable as its weakest direction), then the simplest candidate whose worst
measure reaches the lower CI bound of that best one (within its CI: prefer the simpler).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.stats import Estimate, UndefinedMetric, bootstrap_estimate, pearson
from senso.likert.data import AbricotItem
from senso.likert.task import AbricotTask, LikertPrediction, gold_label

N_RESAMPLES = 1000
# Longest training sentence × this: longer input rows are flagged by `TrainingProfile.unlike`.
LENGTH_FACTOR = 1.5


class FittableSystem(Protocol):
    def fit(self, items: Sequence[AbricotItem], task: AbricotTask) -> Any: ...

    def predict(self, items: Sequence[AbricotItem], task: AbricotTask | None = None, *,
                warn: bool = True) -> list[LikertPrediction]: ...


def group_of(item: AbricotItem) -> str:
    """The lemma as folds compare it (case and surrounding spaces ignored)."""
    return item.target_lemma.strip().casefold()


def raw_prediction(pred: LikertPrediction) -> float:
    """The continuous 0-1 prediction (`extra["pred"]`), else the expected label mapped back to 0-1."""
    if "pred" in pred.extra:
        return float(pred.extra["pred"])
    if pred.expected is None:
        raise SensoError(f"prediction {pred.item_id} has no continuous value")
    return (float(pred.expected) - 1.0) / 5.0


def _lemma_means(values: np.ndarray, groups: Sequence[str]) -> dict[str, float]:
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


def within_lemma_r(pred: Sequence[float], gold: Sequence[float], groups: Sequence[str], seed: int = 0) -> Estimate:
    """r of the lemma-centred predictions and means, CI by resampling lemmas."""
    p, y = np.asarray(pred, float), np.asarray(gold, float)
    pm, ym = _lemma_means(p, groups), _lemma_means(y, groups)
    dp = {g: [] for g in pm}
    dy = {g: [] for g in pm}
    for v, t, g in zip(p, y, groups):
        dp[g].append(v - pm[g])
        dy[g].append(t - ym[g])

    def stat(clusters: list[str]) -> float:
        a = np.concatenate([dp[g] for g in clusters])
        b = np.concatenate([dy[g] for g in clusters])
        if np.allclose(a, 0.0):
            raise UndefinedMetric("the predictions are constant within every lemma")
        return pearson(a, b, names=("the within-lemma predictions", "the within-lemma means"))

    return _cluster_bootstrap(stat, list(pm), seed)


def between_lemma_r(pred: Sequence[float], gold: Sequence[float], groups: Sequence[str], seed: int = 0) -> Estimate:
    """r of the per-lemma mean prediction and the per-lemma human mean, CI by resampling lemmas."""
    pm = _lemma_means(np.asarray(pred, float), groups)
    ym = _lemma_means(np.asarray(gold, float), groups)
    return _cluster_bootstrap(
        lambda cl: pearson([pm[g] for g in cl], [ym[g] for g in cl], names=("the lemma predictions", "the lemma means")),
        list(pm), seed)


@dataclass
class TravelReport:
    """The four travel measures (and the official label r) of one system on one task."""

    system: str
    lolo_r: Estimate
    within_lemma_r: Estimate
    between_lemma_r: Estimate
    lodo_r: dict[str, Estimate]
    label_r: Estimate
    notes: list[str] = field(default_factory=list)

    def measures(self) -> dict[str, Estimate]:
        """The measures `choose_system` compares (the label r is reported, not used to choose)."""
        return {"lolo_r": self.lolo_r, "between_lemma_r": self.between_lemma_r,
                **{f"lodo_r[{k}]": v for k, v in self.lodo_r.items()}}

    def worst(self) -> tuple[str, Estimate]:
        """The lowest defined measure (an undefined one counts as the worst, value -inf)."""
        return min(self.measures().items(), key=lambda kv: -np.inf if kv[1].value is None else kv[1].value)

    def to_json(self) -> dict[str, Any]:
        return {"system": self.system, "lolo_r": self.lolo_r.to_json(), "within_lemma_r": self.within_lemma_r.to_json(),
                "between_lemma_r": self.between_lemma_r.to_json(),
                "lodo_r": {k: v.to_json() for k, v in self.lodo_r.items()}, "label_r": self.label_r.to_json(),
                "definitions": "r vs the raw human mean; LOLO = leave-one-lemma-out, LODO = fit on one domain, "
                               "score the other; within/between: lemma-centred / lemma means of the LOLO predictions",
                "notes": self.notes}


def lodo_predictions(make: Callable[[], FittableSystem], items: Sequence[AbricotItem], task: AbricotTask,
                     seed: int = 0) -> dict[str, Estimate]:
    """Fit on each domain, score every other domain: {"A→B": r over B's items}."""
    domains = sorted({it.domain for it in items})
    if len(domains) < 2:
        return {}
    out = {}
    for a in domains:
        train = [it for it in items if it.domain == a]
        system = make()
        system.fit(train, task)
        for b in domains:
            if b == a:
                continue
            test = [it for it in items if it.domain == b]
            preds = [raw_prediction(p) for p in system.predict(test, task, warn=False)]
            out[f"{a}→{b}"] = bootstrap_estimate(pearson, preds, [it.score(task.dimension) for it in test],
                                                 n_resamples=N_RESAMPLES, seed=seed)
    return out


def travel_report(name: str, lolo: Sequence[LikertPrediction], items: Sequence[AbricotItem], task: AbricotTask,
                  make: Callable[[], FittableSystem] | None, seed: int = 0) -> TravelReport:
    """The measures from a system's LOLO predictions (aligned with `items`) plus, given `make`, its LODO fits."""
    if len(lolo) != len(items):
        raise SensoError(f"{len(lolo)} predictions for {len(items)} items")
    p = [raw_prediction(x) for x in lolo]
    y = [it.score(task.dimension) for it in items]
    groups = [group_of(it) for it in items]
    labels = [x.label for x in lolo]
    gold = [gold_label(v) for v in y]
    notes = []
    lodo = lodo_predictions(make, items, task, seed) if make is not None else {}
    if make is None:
        notes.append("no leave-one-domain-out: the system cannot be refitted here")
    return TravelReport(
        system=name,
        lolo_r=bootstrap_estimate(pearson, p, y, n_resamples=N_RESAMPLES, seed=seed),
        within_lemma_r=within_lemma_r(p, y, groups, seed),
        between_lemma_r=between_lemma_r(p, y, groups, seed),
        lodo_r=lodo,
        label_r=bootstrap_estimate(pearson, labels, gold, n_resamples=N_RESAMPLES, seed=seed),
        notes=notes,
    )


def choose_system(reports: Sequence[TravelReport]) -> tuple[TravelReport, str]:
    """The best-travelling report (see the module docstring); `reports` in order of increasing complexity."""
    if not reports:
        raise SensoError("no candidate systems to choose from")
    best = max(reports, key=lambda r: -np.inf if r.worst()[1].value is None else r.worst()[1].value)
    key, est = best.worst()
    bound = est.ci_low if est.ci_low is not None else est.value
    for r in reports:  # simplest first
        value = r.worst()[1].value
        if value is not None and bound is not None and value >= bound:
            why = (f"{r.system}: worst measure {r.worst()[0]} = {value:.3f}; best worst measure {best.system} "
                   f"{key} = {est.format()}")
            if r is not best:
                why += " (within its CI, so the simpler system)"
            return r, why
    return best, f"{best.system}: highest worst measure ({key} = {est.format()})"


@dataclass(frozen=True)
class TrainingProfile:
    """What the training input looked like, to flag new input that does not (domains, sentence length)."""

    domains: tuple[str, ...]
    max_chars: int
    median_chars: float

    @classmethod
    def from_items(cls, items: Sequence[AbricotItem]) -> "TrainingProfile":
        lengths = [len(it.text) for it in items]
        return cls(domains=tuple(sorted({it.domain for it in items})), max_chars=max(lengths),
                   median_chars=float(np.median(lengths)))

    def to_json(self) -> dict[str, Any]:
        return {"domains": list(self.domains), "max_chars": self.max_chars, "median_chars": self.median_chars}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TrainingProfile":
        return cls(domains=tuple(data["domains"]), max_chars=int(data["max_chars"]),
                   median_chars=float(data["median_chars"]))

    def unlike(self, items: Sequence[AbricotItem]) -> str | None:
        """A warning when rows come from unseen domains or are much longer than any training sentence; else None."""
        parts = []
        other = [it for it in items if it.domain not in self.domains]
        if other:
            names = sorted({it.domain or "(blank)" for it in other})
            parts.append(f"{len(other)} of {len(items)} rows are from domain(s) {', '.join(names)}, not seen in "
                         f"training ({', '.join(self.domains)})")
        limit = LENGTH_FACTOR * self.max_chars
        long_rows = [it for it in items if len(it.text) > limit]
        if long_rows:
            parts.append(f"{len(long_rows)} of {len(items)} rows are longer than {limit:.0f} characters "
                         f"({LENGTH_FACTOR}× the longest training sentence; training median {self.median_chars:.0f})")
        if not parts:
            return None
        return "input unlike the training data: " + "; ".join(parts) + ": expect the predictions to travel less well"
