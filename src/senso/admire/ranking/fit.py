"""A ranking task file's training rows, and how a fitted system (`systems/fitting.py`) is scored on the file's
items honestly: loaded from `--set model_file=FILE`; cross-validated by expression group when every scored item is a
training row; otherwise fit once on the training rows (cached). Each way says what the system was trained on
(`overlap.TrainingIndex`), so every run records what its items share with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from senso.admire.overlap import TrainingIndex
from senso.admire.rankfile import DataFile, RankingTask
from senso.admire.systems.fitting import TrainingRows, cross_validate, cv_overlaps, fit_cached, load_fitted_model


@dataclass
class Fitted:
    """What a fitted run did: the rankings, results.json's `fitting`, the training data and per-item overlaps."""

    rankings: list[Any]
    fitting: dict[str, Any]
    training: TrainingIndex
    overlaps: list[dict[str, Any]] | None = field(default=None)
    languages: tuple[str, ...] = ()  # of the rows it was fit on (none known: a model file)

    def elsewhere(self, system: str, languages: Sequence[str]) -> list[str]:
        """A note when the system ranks languages it was not fit on (through its multilingual embedders)."""
        other = [lang for lang in languages if self.languages and lang not in self.languages]
        if not other:
            return []
        return [f"{system} was fit on the task file's {self.fitting['fit_on']} rows and ranks {', '.join(other)} "
                "through its multilingual embedders"]


def cross_validates(task: RankingTask, entries: Sequence[DataFile], gold_given: bool) -> bool:
    """Whether every scored item is a training row (their gold is what the system learns from)."""
    training = {(d.language, d.split) for d in task.training_entries()}
    return not gold_given and all((d.language, d.split) in training for d in entries)


FOLDER = {"data-dir": "data folder", "task-file": "task file"}  # where a file's paths are relative to


def run_fitted(system: Any, items: Sequence[Any], rows: Callable[[], TrainingRows], model_file: Any,
               cross_validated: bool, seed: int, use_cache: bool, data_from: str) -> Fitted:
    if model_file:
        document = load_fitted_model(system, model_file)
        return Fitted(system.rank(items), {"cross_validated": False, "model_file": str(model_file),
                                           "training_data_sha256": document.get("training_data_sha256")},
                      TrainingIndex.from_document(document, f"the model file {model_file}"))
    training = rows()
    if cross_validated:
        rankings, info = cross_validate(system, items, training, seed=seed)
        index = TrainingIndex(frozenset(), frozenset(), frozenset(),
                              f"{training.source} without each fold's compounds (cross-validation)")
        return Fitted(rankings, info, index, cv_overlaps(items, rankings, training), languages(training))
    info = fit_cached(system, training, use_cache=use_cache)
    return Fitted(system.rank(items), {"cross_validated": False, **info},
                  TrainingIndex.from_items(training.items, f"{training.source} of the {FOLDER[data_from]}"),
                  languages=languages(training))


def languages(rows: TrainingRows) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i.lang for i in rows.items))
