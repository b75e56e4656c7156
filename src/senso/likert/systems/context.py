"""What every Likert system runner is given, and what it returns (the registry's contract)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.likert.items import LikertItem
from senso.likert.task import LikertPrediction, LikertPrompt, LikertTask

# (predictions in item order, the system's description, run facts for results.json: protocol, supervised, ...)
SystemOutput = tuple[list[LikertPrediction], dict[str, Any], dict[str, Any]]


@dataclass
class LikertRunContext:
    """A run's inputs: `items` are scored; `pool` is the whole data set (few-shot exemplars, training folds).
    `load_model(options, cache)` builds the scored LM; `predict_prompts(system, prompts, description)` runs a
    prompt system with a progress bar and records each prompt's hash (both supplied by `likert.run`)."""

    options: RunOptions
    task: LikertTask
    items: list[LikertItem]
    pool: list[LikertItem]
    cache: ResponseCache
    load_model: Callable[[RunOptions, ResponseCache], Any]
    predict_prompts: Callable[[Any, Sequence[LikertPrompt], str], list[LikertPrediction]]
