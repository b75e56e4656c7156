"""The one table of word-in-context systems: name -> what it is and how it is built.

A system is a class (one module each) configured by its constructor's parameters, declared with `core.params`
(`Configurable`, `param`): the row's `options` is that class, so `row.params` are its options and
`row.build(values, context)` the system, its options set from `values` (typed by `Params.resolve`) and bound to the
run's `WicContext` (response cache, ModelPool, model options). Every system has `fit(pairs)`, `judge(pairs)`
(P(same meaning) per pair), `relate(pairs)` (a graded score per pair) and `describe()`; `decide(p)` where its
binary answer is not p >= 0.5 (`decide` below). `flags` are the run's model options it reads; `supervised` says
its figures on its own training rows must come from `pair_fitted.cross_fitted` (leave-lemma-out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from senso.core.errors import SensoError
from senso.core.params import Params, declared
from senso.wic.systems.context import WicContext
from senso.wic.systems.context_similarity import NAME as CONTEXT_SIMILARITY, ContextSimilarity
from senso.wic.systems.pair_fitted import NAME as PAIR_FITTED, PairFitted
from senso.wic.systems.pair_lm import NAME as PAIR_LM, PairLM


@dataclass(frozen=True)
class WicSystem:
    name: str
    description: str
    options: type  # the system's class: its constructor's parameters are its options
    flags: tuple[str, ...] = ()  # RunOptions fields among the model options that the system reads
    supervised: bool = False  # learns from gold: scored on its training rows only leave-lemma-out

    @property
    def params(self) -> Params:
        return declared(self.options)

    def build(self, values: Mapping[str, Any] | None = None, context: WicContext | None = None) -> Any:
        """The system with its options set from `values` (names as users give them), bound to `context`."""
        system = self.options.from_values(dict(values or {}))
        return system.bind(context) if context is not None else system


def decide(system: Any, p: float) -> bool:
    """The system's binary answer for P(same) `p`: its own `decide` where it declares one, else p >= 0.5."""
    own = getattr(system, "decide", None)
    return bool(own(p)) if callable(own) else p >= 0.5


DEFAULT_SYSTEM = CONTEXT_SIMILARITY
WIC_SYSTEMS: dict[str, WicSystem] = {s.name: s for s in (
    WicSystem(CONTEXT_SIMILARITY, "the cosine of the target's contextual vectors (multilingual-e5-small, mean of its "
                                  "sub-word states at declared layers) in the two sentences; a threshold fit on the "
                                  "training rows", ContextSimilarity),
    WicSystem(PAIR_FITTED, "logistic (binary) and ridge (graded) regression on the pair's per-layer target and "
                           "sentence cosines and lemma-level statistics; fit on the training rows, scored on them "
                           "leave-lemma-out (supervised)", PairFitted, supervised=True),
    WicSystem(PAIR_LM, "the likelihood protocol: P(yes) to 'is the word used in the same way?' under a language "
                       "model (--model; lm-eval's wic prompt for English, an Italian one for WiC-ITA)", PairLM,
              flags=("model", "backend", "base_url")),
)}


def get_system(name: str | None) -> WicSystem:
    """The system named `name` (None: the default); SensoError listing the valid names otherwise."""
    name = name or DEFAULT_SYSTEM
    try:
        return WIC_SYSTEMS[name]
    except KeyError:
        raise SensoError(f"unknown word-in-context system {name!r}; choose from {', '.join(WIC_SYSTEMS)}") from None
