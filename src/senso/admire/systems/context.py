"""What every AdMIRe system factory is given: `SystemContext` (the registry's contract).

A factory (`build` of a row of `senso.admire.systems.registry`) reads the run's options (`options`) and the
system's options as typed attributes of `params`, an object of the options class its row names (parsed once, by
`senso.core.params.Params.resolve`). Every model comes through `ModelAccess` (with the run's response cache and its
`ModelPool`, so a model is built once per evaluation session and a model the caller provided is used as it is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from senso.admire.systems.parts import ADMIRE_EMBEDDER
from senso.backends.access import ModelAccess
from senso.backends.pool import ModelPool
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.core.params import NoOptions


@dataclass(frozen=True)
class SystemContext(ModelAccess):
    default_embedder = ADMIRE_EMBEDDER

    options: RunOptions
    params: Any = field(default_factory=NoOptions)  # the system's options class, its typed values
    cache: ResponseCache | None = None
    models: ModelPool | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)  # the served model's typed settings (--model-args)
    training: Callable[[], Any] | None = None  # `training_rows`, read only when a fitted part asks (memoised)

    def training_rows(self) -> Any:
        """What fitted parts learn from (`fitting.TrainingRows`): the run's task file's training rows (AdMIRe 1's EN
        train+dev when the task has none of its own)."""
        if self.training is not None:
            return self.training()
        from senso.admire.systems.fitting import shipped_training

        return shipped_training(self.options.data_dir)
