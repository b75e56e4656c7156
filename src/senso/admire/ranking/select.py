"""The default system of a ranking task file: the candidate (`SystemOptions.candidates`, in senso's order) that
serves its languages (`ranking.default`) with the best score by grouped cross-validation over the expressions of
its training rows; without training rows, the first that serves them. The procedure, and what a run records of it,
are in docs/ranking_task_files.md ("The default system")."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from senso.admire.rankfile import DataFile, RankingTask
from senso.admire.metrics import RANK_METRICS, estimates, item_metrics
from senso.admire.ranking.default import check_row
from senso.admire.systems.fitting import cross_validate, is_fittable
from senso.admire.systems.registry import AdmireSystem, default_candidates, get_system, system_context
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext
from senso.core.options import RunOptions


@dataclass
class Candidate:
    name: str
    given: dict[str, Any]
    row: AdmireSystem
    options: RunOptions
    params: dict[str, Any]
    notes: list[str]
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name + "".join(f" --{k} {v}" for k, v in self.given.items())

    def build(self, context: RunContext, training: Callable[[], Any]) -> Any:
        """The candidate's system, its models through the run's pool, its fitted parts fit on `training`."""
        return self.row.build(system_context(self.row, self.options, context.cache, context.models, self.params,
                                             training))


@dataclass(frozen=True)
class Checked:
    """What a ranking run's checks found (`ranking.run.check`), the system it runs among them."""

    name: str  # what the user ran: a shipped task's name (admire-a), else the task file's `name`
    task: RankingTask
    options: RunOptions
    entries: list[DataFile]
    languages: list[str]
    system: Candidate | None  # None: the default, chosen in `prepare`
    warnings: list[str] = field(default_factory=list)


def ranked_metrics(task: RankingTask) -> list[str]:
    """The task's metrics of a ranking (the official scorer's name correlation checks the file, it scores nothing)."""
    return [m for m in task.metrics if m in RANK_METRICS and m != "official_name_corr"]


def selection_metric(task: RankingTask) -> str:
    ranked = ranked_metrics(task)
    return "ndcg" if "ndcg" in ranked else (ranked[0] if ranked else "ndcg")


def _serving(checked: Checked, rows: list[dict[str, Any]]) -> list[Candidate]:
    """The candidates that serve the run's languages; each left out is a row of `rows`, with the reason."""
    serving = []
    for name, given in default_candidates(bool(checked.task.sentence_type)):
        options = replace(checked.options, system=name, system_options={**checked.options.system_options, **given})
        try:
            row = get_system("a", name)
            serving.append(Candidate(name, given, row, *check_row(checked.task, row, options, checked.languages)))
        except SensoError as exc:
            rows.append({"system": name, "options": given, "left_out": str(exc)})
    if not serving:
        raise SensoError(f"no default system serves {', '.join(checked.languages)}: "
                         + "; ".join(r["left_out"] for r in rows))
    return serving


def choose_default(checked: Checked, context: RunContext, training: Callable[[], Any]) -> Candidate:
    """The chosen candidate, its `record` saying why (every candidate's score or why it was left out)."""
    task, languages, seed = checked.task, checked.languages, checked.options.seed
    train = training() if task.training_entries() else None
    rows: list[dict[str, Any]] = []
    serving = _serving(checked, rows)
    metric = selection_metric(task)
    if train is None:
        chosen = serving[0]
        why = (f"no training items in the task file for {', '.join(languages)}: the first candidate that serves "
               f"them, {chosen.label}")
    else:
        items, scored = list(train.items), []
        for candidate in serving:
            system = candidate.build(context, training)
            rankings = cross_validate(system, items, train, seed=seed)[0] if is_fittable(system) else system.rank(items)
            values = [item_metrics((metric,), r.order, i.expected_order, task.gains, task.ndcg_k, None, None)
                      for i, r in zip(items, rankings)]
            estimate = estimates(values, (metric,), seed=seed)[metric]
            scored.append((estimate.value, candidate))
            rows.append({"system": candidate.name, "options": candidate.given, metric: estimate.to_json()})
        best = max(scored, key=lambda pair: pair[0])[0]
        chosen = next(c for value, c in scored if value == best)
        why = (f"highest {metric} ({best:.3f}) by grouped cross-validation over the {len({i.group for i in items})} "
               f"expressions of the file's {len(items)} training items (each fold's held-out expressions ranked by "
               "the candidate fit on the others)")
    chosen.record = {"chosen": chosen.name, "options": chosen.given, "why": why, "metric": metric,
                     "languages": list(languages), "candidates": rows}
    chosen.notes = [*chosen.notes, f"default system: {chosen.label}: {why}"]
    return chosen
