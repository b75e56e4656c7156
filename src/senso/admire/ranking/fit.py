"""A ranking task file's training rows, and how a fitted system (`systems/fitting.py`) is scored on the file's
items honestly: loaded from `--set model_file=FILE`; cross-validated by expression group when every scored item is a
training row; otherwise fit once on the training rows (cached). Each way says what the system was trained on
(`overlap.TrainingIndex`), so every run records what its items share with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from senso.admire.overlap import TrainingIndex
from senso.admire.systems.parts import SensePipelineOptions
from senso.admire.systems.fitting import cross_validate, cv_overlaps, fit_cached, load_fitted_model


@dataclass
class Fitted:
    """What a fitted run did: the rankings, results.json's `fitting`, the training data, per-item overlaps and a
    note when it ranks languages it was not fit on (through its multilingual embedders)."""

    rankings: list[Any]
    fitting: dict[str, Any]
    training: TrainingIndex
    overlaps: list[dict[str, Any]] | None = None
    notes: list[str] = field(default_factory=list)


FOLDER = {"data-dir": "data folder", "task-file": "task file"}  # where a file's paths are relative to


def run_fitted(plan: Any) -> Fitted:
    """A RankingPlan's fitted system run on its items: from its model file; else cross-validated when every
    scored item is a training row (their gold is what the system learns from); else fit on the training rows."""
    system, items, options, task = plan.predictor, plan.items, plan.options, plan.ranking
    model_file = plan.params.model_file if isinstance(plan.params, SensePipelineOptions) else None
    if model_file:
        document = load_fitted_model(system, model_file)
        return Fitted(system.rank(items), {"cross_validated": False, "model_file": str(model_file),
                                           "training_data_sha256": document.get("training_data_sha256")},
                      TrainingIndex.from_document(document, f"the model file {model_file}"))
    training = plan.training()
    fit_on = tuple(dict.fromkeys(i.lang for i in training.items))
    in_training = {(d.language, d.split) for d in task.training_entries()}
    if options.gold is None and all((d.language, d.split) in in_training for d in plan.entries):
        rankings, info = cross_validate(system, items, training, seed=options.seed)
        index = TrainingIndex(frozenset(), frozenset(), frozenset(),
                              f"{training.source} without each fold's compounds (cross-validation)")
        fitted = Fitted(rankings, info, index, cv_overlaps(items, rankings, training))
    else:
        info = fit_cached(system, training, use_cache=options.use_cache)
        fitted = Fitted(system.rank(items), {"cross_validated": False, **info},
                        TrainingIndex.from_items(training.items, f"{training.source} of the {FOLDER[task.data_from]}"))
    if other := [lang for lang in plan.languages if lang not in fit_on]:
        fitted.notes = [f"{plan.system} was fit on the task file's {fitted.fitting['fit_on']} rows and ranks "
                        f"{', '.join(other)} through its multilingual embedders"]
    return fitted
