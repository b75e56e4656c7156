"""What every Likert system runner is given, and what it returns (the registry's contract)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from senso.backends.access import ModelAccess
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.core.params import NoOptions
from senso.core.progress import bar
from senso.core.records import text_hash
from senso.likert.items import LikertItem
from senso.likert.task import LikertPrediction, LikertPrompt, LikertTask

# (predictions in item order, the system's description, run facts for results.json: protocol, supervised, ...)
SystemOutput = tuple[list[LikertPrediction], dict[str, Any], dict[str, Any]]


@dataclass
class LikertRunContext(ModelAccess):
    """A run's inputs: `items` are scored; `pool` is the whole data set (few-shot exemplars, training folds);
    `params` the system's options, an object of the class its registry row names (typed attributes);
    `settings` the served model's typed settings (`--model-args`); `models` the run's ModelPool (models
    shared by the tasks of one call, and the ones the caller provided), through which every model is loaded
    (`ModelAccess`)."""

    options: RunOptions
    task: LikertTask
    items: list[LikertItem]
    pool: list[LikertItem]
    cache: ResponseCache
    models: Any = None
    params: Any = field(default_factory=NoOptions)
    settings: dict[str, Any] = field(default_factory=dict)


def predict_prompts(system: Any, prompts: Sequence[LikertPrompt], description: str) -> list[LikertPrediction]:
    """A prompt system's predictions (with a progress bar where progress is shown), each recording the hash
    of its rendered prompt."""
    with bar(description, len(prompts)) as advance:
        predictions = system.predict_prompts(prompts, progress=advance)
    for prompt, pred in zip(prompts, predictions):
        pred.extra["prompt_hash"] = text_hash(prompt.context)
    return predictions
