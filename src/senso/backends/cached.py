"""The response cache, applied once, around any model: models only compute.

A model class lists its cacheable batch methods in `CACHED` (method name -> `CachedMethod`): the cache
namespace, the name of its method that keys each item's request (model fingerprint + method + the
item's exact request + settings that change the answer), and how a result splits into one JSON value
per item and joins back. `Cached(model, cache)` (what `load_model` returns unless `--no-cache`) serves
those methods from the cache: it looks every key up at once, computes only the misses (each distinct
request once, in the caller's order, batched), stores each batch as soon as it is done (so a killed
run keeps every finished batch) and reports progress (hits first). Everything else is the model's.

A method whose model reports batches itself (`streams=True`, e.g. `HFCausalLM.loglikelihood_choices`)
takes `progress` and sets `model.batch_done` ({index in its input: value}) before each `progress(n)`;
the others are called on chunks of `chunk` misses (a model attribute, e.g. `batch_size`; all at once if None).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from senso.core.cache import ResponseCache


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class CachedMethod:
    namespace: str
    keys: str  # name of the model's method (items, *args, **kwargs) -> one key per item
    split: Callable[[Any], Sequence[Any]] = list  # the method's result -> one JSON value per item
    join: Callable[[list[Any]], Any] = _identity  # one JSON value per item -> the method's result
    chunk: str | None = None  # model attribute: misses per call (None: all in one call)
    streams: bool = False  # the method takes `progress` and sets `model.batch_done` before each call of it


def cached_call(model: Any, name: str, method: CachedMethod, cache: ResponseCache, items: Sequence[Any], *args,
                progress: Callable[[int], None] | None = None, **kwargs) -> Any:
    """`model.<name>(items, ...)` with every item's answer read from or written to `cache`."""
    items = list(items)
    keys = getattr(model, method.keys)(items, *args, **kwargs)
    found = cache.get_many(method.namespace, list(dict.fromkeys(keys)))
    pending: dict[str, int] = {}  # key -> index of its first item, in the caller's order
    for index, key in enumerate(keys):
        if key not in found:
            pending.setdefault(key, index)
    counts = Counter(keys)
    hits = len(items) - sum(counts[key] for key in pending)
    if progress is not None and hits:
        progress(hits)
    todo = list(pending)
    compute = getattr(model, name)

    def store(new: dict[str, Any]) -> None:
        new = {key: value for key, value in new.items() if key not in found}
        if not new:
            return
        found.update(new)
        cache.put_many(method.namespace, new)
        if progress is not None:
            progress(sum(counts[key] for key in new))

    if todo and method.streams:
        def on_batch(_n: int) -> None:
            store({todo[i]: value for i, value in getattr(model, "batch_done", {}).items()})

        result = compute([items[pending[key]] for key in todo], *args, progress=on_batch, **kwargs)
        store(dict(zip(todo, method.split(result))))  # anything the model did not report per batch
    elif todo:
        size = getattr(model, method.chunk) if method.chunk else len(todo)
        for start in range(0, len(todo), size):
            part = todo[start:start + size]
            store(dict(zip(part, method.split(compute([items[pending[key]] for key in part], *args, **kwargs)))))
    return method.join([found[key] for key in keys])


class Cached:
    """`model` with the methods in its class's `CACHED` served through `cache`; all else is the model's own."""

    def __init__(self, model: Any, cache: ResponseCache):
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "cache", cache)

    def __getattr__(self, name: str) -> Any:
        model = object.__getattribute__(self, "model")
        method = getattr(type(model), "CACHED", {}).get(name)
        if method is None:
            return getattr(model, name)
        return functools.partial(cached_call, model, name, method, object.__getattribute__(self, "cache"))

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.model, name, value)

    def __repr__(self) -> str:
        return f"Cached({self.model!r})"


def with_cache(model: Any, cache: ResponseCache | None) -> Any:
    """`model` behind the cache, or the model itself when there is no cache (`--no-cache`) or nothing to cache."""
    if cache is None or not cache.enabled or not getattr(type(model), "CACHED", None):
        return model
    return Cached(model, cache)
