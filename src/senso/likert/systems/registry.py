"""The one table of Likert systems: name -> what it is and the function that runs it on any Likert task.

`senso run TASK --system NAME` looks NAME up here (an unknown name is an error listing the valid ones);
`senso systems` prints the table. A runner takes a `LikertRunContext` and returns predictions in item
order, the system's description and the run facts recorded in results.json.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from senso.core.errors import SensoError
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.systems.likert_generate import run_likert_generate
from senso.likert.systems.likert_lm import run_likert_lm
from senso.likert.systems.ridge import run_embedding_ridge


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
)}


def get_system(name: str | None) -> LikertSystem:
    """The system named `name` (None: the default, likert-lm); SensoError listing the valid names otherwise."""
    name = name or DEFAULT_SYSTEM
    try:
        return LIKERT_SYSTEMS[name]
    except KeyError:
        raise SensoError(f"unknown Likert system {name!r}; choose from {', '.join(LIKERT_SYSTEMS)}") from None
