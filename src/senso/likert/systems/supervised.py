"""The supervised Likert systems (`lexical-prior`, `embedding-ridge`, `decomposed`): how each is built, and
the one runner that evaluates any of them leave-one-group-out and records how far it travels.

Every supervised run records `generalisation` (`senso.likert.generalisation.travel_report`) in its results:
leave-one-group-out, between- and within-group r, leave-one-domain-out r (the system refitted per domain)
and the label r, for built-in tasks and task files alike (through their `group` and `domain` columns).
"""

from __future__ import annotations

from typing import Any, Callable

from senso.core.cache import ResponseCache
from senso.likert.generalisation import travel_report
from senso.likert.systems import decomposed
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.systems.ridge import SYSTEMS as RIDGE_SYSTEMS

# name -> builder(embedder spec, system options, cache, seed=0); simplest first (`choose_system` prefers it on a tie)
FITTABLE: dict[str, Callable[..., Any]] = {
    "lexical-prior": decomposed.SYSTEMS["lexical-prior"], **RIDGE_SYSTEMS, "decomposed": decomposed.SYSTEMS["decomposed"],
}


def builder(name: str, embedder: str | None, options: dict[str, Any] | None, cache: ResponseCache | None,
            seed: int = 0, load_embedder: Callable[[str], Any] | None = None) -> Callable[[], Any]:
    """A function that builds a fresh, unfitted `name` (each call a new model: the LODO fits need several);
    `options` are the values of its declared options (RIDGE_PARAMS), `load_embedder` how its embedders load."""
    build = FITTABLE[name]
    return lambda: build(embedder, dict(options or {}), cache, seed=seed, load_embedder=load_embedder)


def run_supervised(name: str, ctx: LikertRunContext) -> SystemOutput:
    """`name` evaluated leave-one-group-out on the whole data set, with its travel measures."""
    make = builder(name, ctx.options.embedder, ctx.params.get_params(), ctx.cache, ctx.options.seed, ctx.load_embedder)
    system = make()
    predictions = system.cross_validated_predict(ctx.pool, ctx.task)
    by_id = {p.item_id: p for p in predictions}
    report = travel_report(name, predictions, ctx.pool, ctx.task, make, seed=ctx.options.seed)
    info = {"protocol": f"supervised, leave-one-group-out cross-validation (groups: {ctx.task.columns['group']})",
            "supervised": True, "cross_validated": True, "generalisation": report.to_json()}
    return [by_id[item.id] for item in ctx.items], system.describe(), info


def run_embedding_ridge(ctx: LikertRunContext) -> SystemOutput:
    """Ridge regression on sentence embeddings (--embedder), evaluated leave-one-group-out."""
    return run_supervised("embedding-ridge", ctx)


def run_lexical_prior(ctx: LikertRunContext) -> SystemOutput:
    """The lexical prior of each group's word, calibrated on the training groups, evaluated leave-one-group-out."""
    return run_supervised("lexical-prior", ctx)


def run_decomposed(ctx: LikertRunContext) -> SystemOutput:
    """Lexical-prior level + a context ridge on deviations from the group means, evaluated leave-one-group-out."""
    return run_supervised("decomposed", ctx)
