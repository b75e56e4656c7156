"""The models of one evaluation session, each built once: `ModelPool`.

A `senso run` of several tasks, one `senso.evaluate` call, or a pool a researcher keeps and passes to
several calls (`senso.evaluate(..., models=pool)`) shares one pool; nothing is kept anywhere else, so a
model is loaded again only by another pool. The pool holds bare models (the response cache is put around
each one per run, by `load_model`), and the objects a researcher handed in (`provide`): a role's provided
model is what that role gets, used as it is, never reloaded.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable


class ModelPool:
    def __init__(self) -> None:
        self._built: dict[Hashable, Any] = {}
        self._provided: dict[str, Any] = {}
        self.loads = 0  # models built (not counting provided ones): what tests of sharing count

    def provide(self, role: str, model: Any) -> None:
        """`model` (an object already in memory) is what `role` ("lm", "embedder", ...) gets in this pool."""
        self._provided[role] = model

    def provided(self, role: str) -> Any:
        return self._provided.get(role)

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The model built for `key` (its role, spec and the settings that change it), built now if new; its
        per-run counters (tokens computed, ...) start again from zero for each run that gets it."""
        model = self._built.get(key)
        if model is None:
            model = self._built[key] = build()
            self.loads += 1
        reset = getattr(model, "reset_counters", None)
        if callable(reset):
            reset()
        return model

    def clear(self) -> None:
        """Forget every model built here (the provided objects stay): their memory can then be freed."""
        self._built.clear()
