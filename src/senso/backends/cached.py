"""The response cache, applied once, around any model: models only compute.

A model class lists its cacheable methods in `CACHED` (method name -> `CachedMethod`): the cache
namespace, the name of its method that keys each item's request (model fingerprint + method + the
item's exact request + settings that change the answer), and how a result splits into one JSON value
per item and joins back. `Cached(model, cache)` (what `load_model` returns unless `--no-cache`) serves
those methods from the cache: it looks every key up at once, computes only the misses (each distinct
request once, in the caller's order or in key order, batched), stores each batch as soon as it is done
(so a killed run keeps every finished batch) and reports progress (hits first). Everything else is the model's.

What a `CachedMethod` can say besides (each off by default):
- `compute`: the model method the misses go to, when it is not the cached method itself (which then
  returns `finish`/`join` of what `compute` gives, e.g. `YesNo`s built from stored log-probs);
- `finish`: a model method (items, values, *args, **kwargs) -> result, instead of `join`, for a result
  that also updates the model (e.g. which texts were truncated, for hits and misses alike);
- `parts`: each item's value is `parts` JSON values stored under `parts` keys (its keys method gives a
  tuple per item); an item is a hit only when every part is cached, and a batch's parts are stored together;
- `chunk`: misses per call, a model attribute name (e.g. "batch_size") or a number; all at once if None;
- `in_key_order`: misses are computed sorted by key, so batches depend only on what is missing;
- `streams`: the method takes `on_batch` and calls it with each batch it finishes ({index in its input:
  value}), so the wrapper stores every batch as it is done (a model that batches itself, or runs async
  requests concurrently);
- `progress_indices`: `progress` gets the indices (in the call's input) of the items just done, not a count;
- `single`: the method answers one request (its first argument), not a list;
- `memo`: a model attribute holding a dict (key -> stored value) the model keeps for its life: keys found there
  are not looked up again, and every value read or computed is put there (an embedder asked for the same texts
  by every fold of a run decodes each stored vector once).

A model whose own methods call its cached ones (e.g. `OpenAICompatLM.score_choices` calls `post_many`)
sets `CACHED_INNER = True`: behind the wrapper its other methods then run on a view of the model whose
cached methods are the wrapper's.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

from senso.core.cache import ResponseCache


def identity(value: Any) -> Any:
    """The value itself (a `split` or `join` that changes nothing)."""
    return value


@dataclass(frozen=True)
class CachedMethod:
    namespace: str
    keys: str  # name of the model's method (items, *args, **kwargs) -> one key (or `parts` keys) per item
    split: Callable[[Any], Sequence[Any]] = list  # the computed result -> one JSON value per item
    join: Callable[[list[Any]], Any] = identity  # one JSON value per item -> the method's result
    chunk: str | int | None = None  # misses per call: a model attribute, a number, or None (all in one call)
    streams: bool = False  # the compute method takes `on_batch` and calls it with each batch it finishes
    compute: str | None = None  # the model method that computes misses (default: the cached method itself)
    finish: str | None = None  # model method (items, values, *args, **kwargs) -> result, instead of `join`
    parts: int = 1  # JSON values (and keys) per item
    in_key_order: bool = False  # compute misses sorted by key (batches depend only on what is missing)
    progress_indices: bool = False  # `progress` gets the indices of the items done, not their count
    single: bool = False  # the method takes one request (its first argument), not a list
    memo: str | None = None  # a model attribute: dict key -> value, consulted first and kept up to date (parts=1)

    def __post_init__(self) -> None:
        if self.memo and (self.parts != 1 or self.single):
            raise ValueError(f"{self.namespace}: a memo is for one value per item (parts=1, not single)")


def _lookup(method: CachedMethod, cache: ResponseCache, keys: Sequence[Hashable],
            memo: dict | None = None) -> dict[Hashable, Any]:
    distinct = list(dict.fromkeys(keys))
    if memo is not None:
        known = {key: memo[key] for key in distinct if key in memo}
        return known | cache.get_many(method.namespace, [key for key in distinct if key not in known])
    if method.parts == 1:
        return cache.get_many(method.namespace, distinct)
    stored = cache.get_many(method.namespace, list(dict.fromkeys(k for key in distinct for k in key)))
    return {key: [stored[k] for k in key] for key in distinct if all(k in stored for k in key)}


def _flat(method: CachedMethod, new: dict[Hashable, Any]) -> dict[str, Any]:
    if method.parts == 1:
        return new
    return {k: v for key, values in new.items() for k, v in zip(key, values, strict=True)}


def cached_call(model: Any, name: str, method: CachedMethod, cache: ResponseCache, items: Any, *args,
                progress: Callable[[Any], None] | None = None, **kwargs) -> Any:
    """`model.<name>(items, ...)` with every item's answer read from or written to `cache`."""
    if method.single:
        return _cached_single(model, name, method, cache, items, *args, **kwargs)
    items = list(items)
    keys = [tuple(k) if method.parts > 1 else k for k in getattr(model, method.keys)(items, *args, **kwargs)]
    memo = getattr(model, method.memo) if method.memo else None
    found = _lookup(method, cache, keys, memo)
    pending: dict[Hashable, int] = {}  # key -> index of its first item, in the caller's order
    for index, key in enumerate(keys):
        if key not in found:
            pending.setdefault(key, index)
    counts = Counter(keys)

    def report(done: set[Hashable]) -> None:
        if progress is None or not done:
            return
        if method.progress_indices:
            progress([i for i, key in enumerate(keys) if key in done])
        else:
            progress(sum(counts[key] for key in done))

    report(set(found))
    todo = sorted(pending) if method.in_key_order else list(pending)
    compute = getattr(model, method.compute or name)

    def store(new: dict[Hashable, Any]) -> None:
        new = {key: value for key, value in new.items() if key not in found}
        if not new:
            return
        found.update(new)
        cache.put_many(method.namespace, _flat(method, new))
        report(set(new))

    if todo and method.streams:
        def on_batch(done: dict[int, Any]) -> None:
            store({todo[i]: value for i, value in done.items()})

        result = compute([items[pending[key]] for key in todo], *args, on_batch=on_batch, **kwargs)
        store(dict(zip(todo, method.split(result))))  # anything the model did not report per batch
    elif todo:
        size = method.chunk if isinstance(method.chunk, int) else getattr(model, method.chunk) if method.chunk else len(todo)
        for start in range(0, len(todo), size):
            part = todo[start:start + size]
            store(dict(zip(part, method.split(compute([items[pending[key]] for key in part], *args, **kwargs)))))
    if memo is not None:
        memo.update(found)
    values = [found[key] for key in keys]
    if method.finish:
        return getattr(model, method.finish)(items, values, *args, **kwargs)
    return method.join(values)


def _cached_single(model: Any, name: str, method: CachedMethod, cache: ResponseCache, item: Any, *args,
                   **kwargs) -> Any:
    """A one-request method: `split` makes its result the stored JSON value, `join` makes that the result."""
    key = getattr(model, method.keys)(item, *args, **kwargs)
    value = cache.get(method.namespace, key)
    if value is None:
        value = method.split(getattr(model, method.compute or name)(item, *args, **kwargs))
        cache.put(method.namespace, key, value)
    return method.join(value)


def _served(model: Any, cache: ResponseCache, name: str, inner: Any) -> Any:
    """Attribute `name` of `model`, its cached methods served through `cache` (`inner`: what the model's
    own methods get as `self` when its class sets CACHED_INNER)."""
    method = getattr(type(model), "CACHED", {}).get(name)
    if method is not None:
        return functools.partial(cached_call, model, name, method, cache)
    if getattr(type(model), "CACHED_INNER", False):
        static = inspect.getattr_static(type(model), name, None)
        if isinstance(static, types.FunctionType):
            return types.MethodType(static, inner)
        if isinstance(static, property) and static.fget is not None:
            return static.fget(inner)
    return getattr(model, name)


class _Inner:
    """What a CACHED_INNER model's own methods get as `self` behind the wrapper: the model's attributes
    (none of the wrapper's), its cached methods served through the cache."""

    __slots__ = ("_inner_model", "_inner_cache")

    def __init__(self, model: Any, cache: ResponseCache):
        object.__setattr__(self, "_inner_model", model)
        object.__setattr__(self, "_inner_cache", cache)

    def __getattr__(self, name: str) -> Any:
        return _served(object.__getattribute__(self, "_inner_model"), object.__getattribute__(self, "_inner_cache"),
                       name, self)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_inner_model"), name, value)


class Cached:
    """`model` with the methods in its class's `CACHED` served through `cache`; all else is the model's own."""

    def __init__(self, model: Any, cache: ResponseCache):
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "cache", cache)
        object.__setattr__(self, "_inner", _Inner(model, cache))

    def __getattr__(self, name: str) -> Any:
        return _served(object.__getattribute__(self, "model"), object.__getattribute__(self, "cache"), name,
                       object.__getattribute__(self, "_inner"))

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.model, name, value)

    def __repr__(self) -> str:
        return f"Cached({self.model!r})"


def with_cache(model: Any, cache: ResponseCache | None) -> Any:
    """`model` behind the cache, or the model itself when there is no cache (`--no-cache`) or nothing to cache."""
    if cache is None or not cache.enabled or not getattr(type(model), "CACHED", None):
        return model
    return Cached(model, cache)
