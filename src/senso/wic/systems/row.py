"""A registered word-in-context system as the family reads it (`registry.WIC_SYSTEMS`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from senso.core.system_row import SystemRow
from senso.wic.systems.context import WicContext


@dataclass(frozen=True)
class WicSystem(SystemRow):
    """A row of the table of systems: its name, one line on what it does, its class (configured by its
    constructor's declared parameters: the options users set), the run options it reads besides its own
    (`flags`: "model", "embedder" ...), and `build`, how a configured object becomes the system a run uses
    (given the run's `WicContext`; None: the configured object, bound to the context where it has `bind`).
    `learns_lemmas` False: what the system keeps of its training rows is never of the lemma of the pair it answers
    (pair-lm's exemplars), so no scored pair is "seen" and the run gives no unseen-lemma headline."""

    name: str
    description: str
    options: type
    flags: tuple[str, ...] = ()
    build: Callable[[Any, WicContext], Any] | None = None
    learns_lemmas: bool = True

    def make(self, values: Mapping[str, Any] | None = None, context: WicContext | None = None) -> Any:
        """The system of a run: its class configured with the typed `values`, then built for `context`."""
        configured = self.typed(dict(values or {}))
        if self.build is not None:
            return self.build(configured, context or WicContext())
        bind = getattr(configured, "bind", None)
        return bind(context) if callable(bind) and context is not None else configured
