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
from senso.admire.systems.fitting import CV_FOLDS, cross_validate, is_fittable
from senso.admire.systems.registry import AdmireSystem, default_candidates, get_system, system_context
from senso.core.cache import cache_key
from senso.core.errors import SensoError
from senso.core.evaluation import RunContext
from senso.core.fingerprint import path_fingerprint, remembered
from senso.core.options import RunOptions
from senso.core.paths import cache_dir
from senso.core.version import __version__

CHOICE_FORMAT = "senso-default-choice/1"
CHOICES_MEMO = "admire_choices.json"  # in the cache folder: each default's choice by its fingerprint


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
    """The chosen candidate, its `record` saying why (every candidate's score or why it was left out) and, after a
    cross-validated choice, its fingerprint and whether it was read from the cache."""
    task, languages = checked.task, checked.languages
    train = training() if task.training_entries() else None
    rows: list[dict[str, Any]] = []
    serving = _serving(checked, rows)
    metric = selection_metric(task)
    if train is None:
        chosen, cached = serving[0], {}
        why = (f"no training items in the task file for {', '.join(languages)}: the first candidate that serves "
               f"them, {chosen.label}")
    else:
        chosen, why, scored, cached = _cross_validated(checked, serving, context, training, train, metric)
        rows += scored
    chosen.record = {"chosen": chosen.name, "options": chosen.given, "why": why, "metric": metric,
                     "languages": list(languages), "candidates": rows, **cached}
    reused = (f" (read from the cache, fingerprint {cached['fingerprint'][:12]}: an earlier run chose it on the same "
              "training rows and candidates)") if cached.get("from_cache") else ""
    chosen.notes = [*chosen.notes, f"default system: {chosen.label}: {why}{reused}"]
    return chosen


def _cross_validated(checked: Checked, serving: list[Candidate], context: RunContext, training: Callable[[], Any],
                     train: Any, metric: str) -> tuple[Candidate, str, list[dict[str, Any]], dict[str, Any]]:
    """The candidate with the best `metric` by grouped cross-validation over the training rows, why, each
    candidate's score, and where the choice came from: computed, or read from the cache folder's CHOICES_MEMO,
    where a choice is remembered by its fingerprint (`choice_fingerprint`) unless the run has no cache."""
    task, seed = checked.task, checked.options.seed
    items = list(train.items)
    systems = [candidate.build(context, training) for candidate in serving]
    key = choice_fingerprint(train, serving, systems, context, metric, task, seed)
    computed: list[bool] = []

    def compute() -> dict[str, Any]:
        computed.append(True)
        scored = []
        for candidate, system in zip(serving, systems):
            rankings = cross_validate(system, items, train, seed=seed)[0] if is_fittable(system) else system.rank(items)
            values = [item_metrics((metric,), r.order, i.expected_order, task.gains, task.ndcg_k, None, None)
                      for i, r in zip(items, rankings)]
            scored.append({"system": candidate.name, "options": candidate.given,
                           metric: estimates(values, (metric,), seed=seed)[metric].to_json()})
        best = max(range(len(scored)), key=lambda k: scored[k][metric]["value"])  # the first of equals
        return {"chosen": best, "best": scored[best][metric]["value"], "candidates": scored}

    use_cache = checked.options.use_cache
    choice = remembered(CHOICES_MEMO, key, compute, memo=use_cache)
    if not _fits(choice, serving, metric):  # a memo entry of another shape: computed again, the entry left
        choice = compute()
    why = (f"highest {metric} ({choice['best']:.3f}) by grouped cross-validation over the {len({i.group for i in items})} "
           f"expressions of the file's {len(items)} training items (each fold's held-out expressions ranked by "
           "the candidate fit on the others)")
    source = None if computed or not use_cache else str(cache_dir(create=False) / CHOICES_MEMO)
    return serving[choice["chosen"]], why, choice["candidates"], {"fingerprint": key, "from_cache": source}


def _fits(choice: Any, serving: list[Candidate], metric: str) -> bool:
    """Whether a remembered choice is one of `serving`'s, each scored on `metric`."""
    try:
        return (len(choice["candidates"]) == len(serving) and 0 <= choice["chosen"] < len(serving)
                and all(row["system"] == c.name and metric in row for row, c in zip(choice["candidates"], serving))
                and isinstance(choice["best"], float))
    except (TypeError, KeyError):
        return False


def choice_fingerprint(train: Any, serving: list[Candidate], systems: list[Any], context: RunContext, metric: str,
                       task: RankingTask, seed: int) -> str:
    """What fixes the default's choice: the training rows (each item's text, gold and group, and the files' sha256),
    each candidate (its name, options, the description of its system built for the run and the fingerprints of the
    embedders that description names), the metric and its gains, the seed, the folds and senso's version."""
    items = [[i.compound, i.sentence, i.lang, i.group, i.split, i.sentence_type, i.expected_order,
              [[image.name, image.caption, image.path and path_fingerprint(image.path)] for image in i.images]]
             for i in train.items]
    candidates = []
    for candidate, system in zip(serving, systems):
        description = system.describe()
        embedders = {spec: _embedder_fingerprint(candidate, context, spec) for spec in sorted(_specs(description))}
        candidates.append({"system": candidate.name, "given": candidate.given, "description": description,
                           "options": candidate.options.system_options, "embedders": embedders})
    return cache_key(CHOICE_FORMAT, __version__, train.sha256, items, candidates, metric, list(task.gains),
                     task.ndcg_k, seed, CV_FOLDS)


def _specs(description: Any) -> set[str]:
    """Every embedder a system's description names (its "embedder" values, at any depth)."""
    if isinstance(description, dict):
        found = {v for k, v in description.items() if k == "embedder" and isinstance(v, str)}
        return found.union(*(_specs(v) for v in description.values()))
    if isinstance(description, (list, tuple)):
        return set().union(*(_specs(v) for v in description))
    return set()


def _embedder_fingerprint(candidate: Candidate, context: RunContext, spec: str) -> str:
    """The fingerprint of the embedder `spec` as the candidate's system gets it (the run's pool; not loaded)."""
    built = system_context(candidate.row, candidate.options, context.cache, context.models, candidate.params)
    return str(getattr(built.embedder(spec), "fingerprint", spec))
