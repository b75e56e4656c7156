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
from senso.core.errors import SensoError
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
    training: Callable[[], Any] | None = None  # the rows fitted parts learn from (`fitting.TrainingRows`), memoised

    def training_rows(self) -> Any:
        """What fitted parts learn from (`fitting.TrainingRows`): the rows the run gave (its task file's training
        rows; AdMIRe 1's EN train+dev for a task without its own), read when a fitted part first asks."""
        if self.training is None:
            raise SensoError("this system has fitted parts, and its run gave it no training rows to fit them on")
        return self.training()
