"""The one table of Likert systems: name -> what it is and the function that runs it on any Likert task.

`senso run TASK --system NAME` looks NAME up here (an unknown name is an error listing the valid ones);
`senso systems` prints the table. A runner takes a `LikertRunContext` and returns predictions in item
order, the system's description and the run facts recorded in results.json (supervised systems: with
their travel measures, `generalisation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from senso.core.errors import SensoError
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.systems.likert_generate import run_likert_generate
from senso.likert.systems.likert_lm import run_likert_lm
from senso.likert.systems.supervised import run_decomposed, run_embedding_ridge, run_lexical_prior


@dataclass(frozen=True)
class LikertSystem:
    name: str
    description: str
    run: Callable[[LikertRunContext], SystemOutput]


DEFAULT_SYSTEM = "likert-lm"
LIKERT_SYSTEMS: dict[str, LikertSystem] = {s.name: s for s in (
    LikertSystem(DEFAULT_SYSTEM, "the published protocol: the most likely of the task's choices (ABRICOT: 1..5) "
                                 "under a language model (--model, --protocol, --shots)", run_likert_lm),
    LikertSystem("embedding-ridge", "ridge regression on sentence embeddings (--embedder), evaluated "
                                    "leave-one-group-out (ABRICOT: leave-one-lemma-out; supervised)", run_embedding_ridge),
    LikertSystem("likert-generate", "a chat model (--model openai:NAME) asked for the label, its answer parsed: NOT "
                                    "the official likelihood protocol; for chat-only APIs without log-probs",
                 run_likert_generate),
    LikertSystem("lexical-prior", "a word's concreteness learned from English norms (Brysbaert et al. 2014) through the "
                                  "multilingual embedder (--embedder), scale/offset calibrated on the training groups' "
                                  "means (supervised, leave-one-group-out)", run_lexical_prior),
    LikertSystem("decomposed", "lexical-prior level + a ridge on context embeddings fitted on deviations from each "
                               "group's mean (supervised, leave-one-group-out)", run_decomposed),
)}


def get_system(name: str | None) -> LikertSystem:
    """The system named `name` (None: the default, likert-lm); SensoError listing the valid names otherwise."""
    name = name or DEFAULT_SYSTEM
    try:
        return LIKERT_SYSTEMS[name]
    except KeyError:
        raise SensoError(f"unknown Likert system {name!r}; choose from {', '.join(LIKERT_SYSTEMS)}") from None
