"""Likert scoring with a language model: the most likely of the task's choices (ABRICOT: `1`..`5`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from senso.core.options import DEFAULT_BATCH_SIZE
from senso.core.prompting import argmax_choice
from senso.likert.task import LikertPrediction
from senso.likert.task import DEFAULT_CHOICES, LikertPrompt
from senso.likert.systems.context import LikertRunContext, SystemOutput


class LoglikelihoodModel(Protocol):
    spec: str
    fingerprint: str

    def describe(self) -> dict[str, Any]: ...

    def loglikelihood_choices(self, prompts: Sequence[LikertPrompt], batch_size: int = DEFAULT_BATCH_SIZE,
                              progress: Callable[[int], None] | None = None) -> list[list[float]]: ...


def expected_score(logprobs: Sequence[float], labels: Sequence[int] | None = None) -> float:
    """Sum of p_k * label_k with p the log-probs renormalised over the choices (labels default: 1..n)."""
    labels = range(1, len(logprobs) + 1) if labels is None else labels
    top = max(logprobs)
    weights = [math.exp(v - top) for v in logprobs]
    total = sum(weights)
    return sum(label * w for label, w in zip(labels, weights)) / total


def prediction_from_logprobs(item_id: str, logprobs: Sequence[float], labels: Sequence[int] | None = None,
                             **extra: Any) -> LikertPrediction:
    """The most likely label (ties: the lower) and the expected score; `labels` default to a 1-5 scale."""
    labels = tuple(int(c) for c in DEFAULT_CHOICES) if labels is None else tuple(labels)
    if len(logprobs) != len(labels):
        raise ValueError(f"{item_id}: expected {len(labels)} log-probs, got {len(logprobs)}")
    return LikertPrediction(item_id=item_id, label=labels[argmax_choice(logprobs) - 1],
                            expected=expected_score(logprobs, labels), logprobs=[float(v) for v in logprobs],
                            extra=dict(extra))


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
            prediction_from_logprobs(p.item_id, lps, p.labels, exemplar_ids=list(p.exemplar_ids))
            for p, lps in zip(prompts, all_logprobs)
        ]


def run_likert_lm(ctx: LikertRunContext) -> SystemOutput:
    """The published protocol on any task: the most likely of the task's choices under --model (--protocol)."""
    from senso.core.records import text_hash
    from senso.likert.systems.context import predict_prompts
    from senso.likert.task import build_prompts

    _, protocol = ctx.task.protocol(ctx.options.protocol)
    model = ctx.scored_lm(chat_template=ctx.options.chat_template)
    prompts = build_prompts(ctx.items, ctx.task, protocol, shots=ctx.options.shots, pool=ctx.pool)
    system = LikertLM(model, batch_size=ctx.options.batch_size)
    predictions = predict_prompts(system, prompts, f"{ctx.task.name} [{protocol}]")
    # A server backend flags choices absent from its top-k list (their value is an upper bound, not a guess).
    for pred, prompt, scores in zip(predictions, prompts, getattr(model, "last_scores", None) or []):
        pred.extra["bounded_choices"] = [prompt.labels[k] for k, flag in enumerate(scores.bounded) if flag]
    info = {
        "protocol": protocol,
        "shots": len(prompts[0].exemplar_ids) if prompts else 0,
        "prompt_template_hash": text_hash(ctx.task.template),
        "exemplar_ids": {p.item_id: list(p.exemplar_ids) for p in prompts if p.exemplar_ids},
        "supervised": False,
    }
    counters = {k: getattr(model, k) for k in ("tokens_in_prompts", "tokens_computed") if hasattr(model, k)}
    if counters:
        info["token_counts"] = counters
    return predictions, system.describe(), info
