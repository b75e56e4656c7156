"""Likert scoring with a language model: the most likely of the choices `1`..`5`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from senso.core.options import DEFAULT_BATCH_SIZE
from senso.likert.task import LikertPrediction
from senso.likert.task import CHOICES, LikertPrompt


class LoglikelihoodModel(Protocol):
    spec: str
    fingerprint: str

    def describe(self) -> dict[str, Any]: ...

    def loglikelihood_choices(self, prompts: Sequence[LikertPrompt], batch_size: int = DEFAULT_BATCH_SIZE,
                              progress: Callable[[int], None] | None = None) -> list[list[float]]: ...


def argmax_choice(logprobs: Sequence[float]) -> int:
    """1-based index of the highest log-prob; ties go to the lower choice."""
    best = 0
    for i, value in enumerate(logprobs):
        if value > logprobs[best]:
            best = i
    return best + 1


def expected_score(logprobs: Sequence[float]) -> float:
    """Sum of p_k * k over k = 1..5 with p the log-probs renormalised over the five choices."""
    top = max(logprobs)
    weights = [math.exp(v - top) for v in logprobs]
    total = sum(weights)
    return sum((k + 1) * w for k, w in enumerate(weights)) / total


def prediction_from_logprobs(item_id: str, logprobs: Sequence[float], **extra: Any) -> LikertPrediction:
    if len(logprobs) != len(CHOICES):
        raise ValueError(f"{item_id}: expected {len(CHOICES)} log-probs, got {len(logprobs)}")
    return LikertPrediction(item_id=item_id, label=argmax_choice(logprobs), expected=expected_score(logprobs),
                            logprobs=[float(v) for v in logprobs], extra=dict(extra))


@dataclass
class LikertLM:
    """The published protocol: score each choice's continuation, answer the most likely."""

    model: LoglikelihoodModel
    batch_size: int = DEFAULT_BATCH_SIZE
    name: str = "likert-lm"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model.describe(), "batch_size": self.batch_size}

    def predict_prompts(self, prompts: Sequence[LikertPrompt],
                        progress: Callable[[int], None] | None = None) -> list[LikertPrediction]:
        all_logprobs = self.model.loglikelihood_choices(prompts, batch_size=self.batch_size, progress=progress)
        return [
            prediction_from_logprobs(p.item_id, lps, exemplar_ids=list(p.exemplar_ids))
            for p, lps in zip(prompts, all_logprobs)
        ]
