"""The one table of Likert systems: name -> what it is and the function that runs it on any Likert task.

`senso run TASK --system NAME` looks NAME up here (an unknown name is an error listing the valid ones);
`senso systems` prints the table. A runner takes a `LikertRunContext` and returns predictions in item
order, the system's description and the run facts recorded in results.json (supervised systems: with
their travel measures, `generalisation`).

Each row also declares what its runner reads, so `senso.likert.run.check_options` can refuse every other
option before anything loads: `flags`, the model and prompt options (RunOptions fields, see MODEL_FLAGS;
"protocol" means the system builds prompts under --protocol/--shots); `params`, the system's own options
(`options`, the class that declares them with `senso.core.params.param`: name, type, default, help; `params`
reads them as Params; a system that reads --model also takes its backend's settings, e.g. openai's); `backends`,
the --model backends it can use; `check`, a check of the system's inputs against the task's items
(lmeval-samples: the log), run before the run folder is written; and, for a supervised system, `fit`, the
builder of its models, and `simplicity`, its place among them (`fittable`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from senso.core.params import NoOptions
from senso.core.system_row import MODEL_FLAGS, SystemRow, unknown_system
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.systems.likert_generate import run_likert_generate
from senso.likert.systems.likert_lm import run_likert_lm
from senso.likert.systems.lmeval import LmevalOptions, check_lmeval, run_lmeval_samples
from senso.likert.systems.lmeval import SYSTEM_NAME as LMEVAL_SYSTEM
from senso.likert.systems.decomposed import Decomposed, lexical_prior
from senso.likert.systems.ridge import EmbeddingRidge, RidgeOptions
from senso.likert.systems.supervised import Fit, run_supervised


@dataclass(frozen=True)
class LikertSystem(SystemRow):
    name: str
    description: str
    run: Callable[[LikertRunContext], SystemOutput]
    flags: tuple[str, ...] = ()  # RunOptions fields among LIKERT_FLAGS that the runner reads
    options: type = NoOptions  # the class declaring its own options (besides its model backend's settings)
    backends: tuple[str, ...] = ()  # the --model backends it can use (empty: any the lm role takes)
    # checks its inputs against the task's items before the run folder is written: (task, load, options),
    # where load() gives (data file, items scored, whole pool)
    check: Callable[..., Any] | None = None
    fit: Fit | None = None  # a supervised system: builds a fresh unfitted model (`supervised.builder`)
    simplicity: int = 0  # a supervised system's place among them, simplest first (`senso fit` prefers it on a tie)


# Model and prompt options (RunOptions fields) a Likert system may read; a row's `flags` names its own.
LIKERT_FLAGS = MODEL_FLAGS + ("protocol", "shots", "chat_template")


def _supervised(name: str, description: str, fit: Fit, simplicity: int) -> LikertSystem:
    """The row of a supervised system: its models built by `fit`, evaluated leave-one-group-out."""
    return LikertSystem(name, description, functools.partial(run_supervised, name, fit), flags=("embedder",),
                        options=RidgeOptions, fit=fit, simplicity=simplicity)


DEFAULT_SYSTEM = "likert-lm"
LIKERT_SYSTEMS: dict[str, LikertSystem] = {s.name: s for s in (
    LikertSystem(DEFAULT_SYSTEM, "the published protocol: the most likely of the task's choices (ABRICOT: 1..5) "
                                 "under a language model (--model, --protocol, --shots)", run_likert_lm,
                 flags=("model", "backend", "base_url", "protocol", "shots", "chat_template")),
    _supervised("embedding-ridge", "ridge regression on sentence embeddings (--embedder), evaluated "
                                   "leave-one-group-out (ABRICOT: leave-one-lemma-out; supervised)",
                EmbeddingRidge.from_options, simplicity=1),
    LikertSystem("likert-generate", "a chat model (--model openai:NAME) asked for the label, its answer parsed: NOT "
                                    "the official likelihood protocol; for chat-only APIs without log-probs",
                 run_likert_generate, flags=("model", "backend", "base_url", "protocol", "shots"), backends=("openai",)),
    _supervised("lexical-prior", "a word's concreteness learned from English norms (Brysbaert et al. 2014) through "
                                 "the multilingual embedder (--embedder), scale/offset calibrated on the training "
                                 "groups' means (supervised, leave-one-group-out)", lexical_prior, simplicity=0),
    _supervised("decomposed", "lexical-prior level + a ridge on context embeddings fitted on deviations from each "
                              "group's mean (supervised, leave-one-group-out)", Decomposed.from_options, simplicity=2),
    LikertSystem(LMEVAL_SYSTEM, "the answers lm-evaluation-harness logged (lm_eval --log_samples; --set samples=FILE, "
                                "results=FILE; what `senso score TASK --lmeval-samples FILE` runs), scored by senso",
                 run_lmeval_samples, options=LmevalOptions, check=check_lmeval),
)}


def get_system(name: str | None) -> LikertSystem:
    """The system named `name` (None: the default, likert-lm); SensoError listing the valid names otherwise."""
    name = name or DEFAULT_SYSTEM
    try:
        return LIKERT_SYSTEMS[name]
    except KeyError:
        raise unknown_system("Likert", name, LIKERT_SYSTEMS) from None


def fittable() -> dict[str, Fit]:
    """Name -> builder of every supervised system (what `senso fit` fits and chooses among), simplest first."""
    rows = sorted((row for row in LIKERT_SYSTEMS.values() if row.fit is not None), key=lambda row: row.simplicity)
    return {row.name: row.fit for row in rows}
