"""The default system of a ranking task file: the best candidate that serves its languages, on its own training
items.

Candidates, in senso's order (each system's options class declares its own: `SystemOptions.candidates`): the
training-free sense-pipeline (sense, meaning and structure ranker), then the
caption ranker (caption-similarity; for a task that asks for sentence types, sense-pipeline with the caption
ranker, which decides a sense too), then the fitted fitted-pipeline. Each is adapted to the languages
(`ranking.default.adapt`; one that cannot serve them is left out, with the reason). With training rows (the file's
`training` splits, in any language, with a gold order), each candidate is scored on them by grouped
cross-validation over the expressions: each fold's expressions are ranked by the candidate fit on the other folds'
(a training-free candidate fits nothing, so its held-out score is its score on those expressions); the mean over
the folds' items is the selection score (NDCG when the task reports it, else its
first ranking metric), with a 95% bootstrap CI. The highest wins; ties go to the earlier candidate. Without
training items the first candidate that serves the languages is the default. The run records why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from senso.admire.rankfile import RankingTask
from senso.admire.metrics import RANK_METRICS, estimates, item_metrics
from senso.admire.systems.registry import default_candidates
from senso.core.errors import SensoError


@dataclass
class Candidate:
    name: str
    given: dict[str, Any]
    row: Any
    options: Any
    params: dict[str, Any]
    notes: list[str]
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name + "".join(f" --{k} {v}" for k, v in self.given.items())


def selection_metric(task: RankingTask) -> str:
    ranked = [m for m in task.metrics if m in RANK_METRICS and m != "official_name_corr"]
    return "ndcg" if "ndcg" in ranked else (ranked[0] if ranked else "ndcg")


def choose_default(task: RankingTask, languages: Sequence[str], train: Sequence[Any],
                   make: Callable[[str, dict[str, Any]], Candidate],
                   rank: Callable[[Candidate, list], list], seed: int = 0) -> Candidate:
    """The chosen candidate, its `record` saying why (every candidate's score or why it was left out)."""
    serving, rows = [], []
    for name, given in default_candidates(bool(task.sentence_type)):
        try:
            serving.append(make(name, given))
        except SensoError as exc:
            rows.append({"system": name, "options": given, "left_out": str(exc)})
    if not serving:
        raise SensoError(f"no default system serves {', '.join(languages)}: " + "; ".join(r["left_out"] for r in rows))
    metric = selection_metric(task)
    if not train:
        chosen = serving[0]
        why = (f"no training items in the task file for {', '.join(languages)}: the first candidate that serves "
               f"them, {chosen.label}")
    else:
        groups = len({i.group for i in train})
        scored = []
        for candidate in serving:
            rankings = rank(candidate, list(train))
            values = [item_metrics((metric,), r.order, i.expected_order, task.gains, task.ndcg_k, None, None)
                      for i, r in zip(train, rankings)]
            estimate = estimates(values, (metric,), seed=seed)[metric]
            scored.append((estimate.value, candidate))
            rows.append({"system": candidate.name, "options": candidate.given, metric: estimate.to_json()})
        best = max(scored, key=lambda pair: pair[0])[0]
        chosen = next(c for value, c in scored if value == best)
        why = (f"highest {metric} ({best:.3f}) by grouped cross-validation over the {groups} expressions of the "
               f"file's {len(train)} training items (each fold's held-out expressions ranked by the candidate "
               "fit on the others)")
    chosen.record = {"chosen": chosen.name, "options": chosen.given, "why": why, "metric": metric,
                     "languages": list(languages), "candidates": rows}
    chosen.notes = [*chosen.notes, f"default system: {chosen.label}: {why}"]
    return chosen
