"""A registered word-in-context system as the family reads it (`registry.WIC_SYSTEMS`), and what a system is
given when it is built for a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from senso.core.params import Params, declared


@dataclass
class SystemContext:
    """What a system is built with: the run's options (`options`: --model, --embedder ...), the call's models
    (`models`, a `senso.backends.pool.ModelPool`), the response cache (`cache`) and the task (`task`, a
    `senso.wic.taskfile.PairsTask`)."""

    options: Any
    models: Any
    cache: Any
    task: Any


@dataclass(frozen=True)
class WicSystem:
    """A row of the table of systems: its name, one line on what it does, its class (configured by its
    constructor's declared parameters: the options users set), the run options it reads besides its own
    (`flags`: "model", "embedder" ...), and `build`, how a configured object becomes the system a run uses
    (given the `SystemContext`; None: the configured object is the system)."""

    name: str
    description: str
    options: type
    flags: tuple[str, ...] = ()
    build: Callable[[Any, SystemContext], Any] | None = None

    @property
    def params(self) -> Params:
        return declared(self.options)

    def make(self, values: dict[str, Any], context: SystemContext) -> Any:
        """The system of a run: its class configured with the typed `values`, then built."""
        configured = self.options.from_values(values)
        return configured if self.build is None else self.build(configured, context)
