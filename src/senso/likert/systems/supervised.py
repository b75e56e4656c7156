"""The one runner of the supervised Likert systems (`lexical-prior`, `embedding-ridge`, `decomposed`; each
registry row's `fit` builds its models): it evaluates any of them leave-one-group-out and records how far it
travels.

Every supervised run records `generalisation` (`senso.likert.generalisation.travel_report`) in its results:
leave-one-group-out, between- and within-group r, leave-one-domain-out r (the system refitted per domain)
and the label r, for built-in tasks and task files alike (through their `group` and `domain` columns).
"""

from __future__ import annotations

from typing import Any, Callable

from senso.core.cache import ResponseCache
from senso.likert.generalisation import travel_report
from senso.likert.systems.context import LikertRunContext, SystemOutput

# A supervised system's builder (its registry row's `fit`): (embedder spec, system options, cache, seed=0,
# load_embedder=None) -> a fresh, unfitted model.
Fit = Callable[..., Any]


def builder(fit: Fit, embedder: str | None, options: dict[str, Any] | None, cache: ResponseCache | None,
            seed: int = 0, load_embedder: Callable[[str], Any] | None = None) -> Callable[[], Any]:
    """A function that builds a fresh, unfitted model with `fit` (each call a new model: the LODO fits need
    several); `options` are the values of its declared options (RIDGE_PARAMS), `load_embedder` how its embedders
    load."""
    return lambda: fit(embedder, dict(options or {}), cache, seed=seed, load_embedder=load_embedder)


def run_supervised(name: str, fit: Fit, ctx: LikertRunContext) -> SystemOutput:
    """`name` (its models built by `fit`) evaluated leave-one-group-out on the whole data set, with its travel
    measures."""
    make = builder(fit, ctx.options.embedder, ctx.params.get_params(), ctx.cache, ctx.options.seed, ctx.embedder)
    system = make()
    predictions = system.cross_validated_predict(ctx.pool, ctx.task)
    by_id = {p.item_id: p for p in predictions}
    report = travel_report(name, predictions, ctx.pool, ctx.task, make, seed=ctx.options.seed)
    info = {"protocol": f"supervised, leave-one-group-out cross-validation (groups: {ctx.task.columns['group']})",
            "supervised": True, "cross_validated": True, "generalisation": report.to_json()}
    return [by_id[item.id] for item in ctx.items], system.describe(), info
