"""A researcher's own Likert system, run through the same loop as the registered ones.

The protocol is one method (plus, optionally, `name` and `describe()`):

```python
class MySystem:
    def predict(self, items, task):          # items: senso LikertItem (id, text, word, group, domain, gold)
        return [0.4 for item in items]       # one answer per item, in order
```

An answer is one of:
- a number on the task's gold scale (ABRICOT: a mean in 0-1): the label and expected score follow the task's
  own rules, as for the gold (`task.gold_label`, `task.gold_score`, after clipping to `gold_range`);
- a distribution over the task's labels (ABRICOT: five non-negative numbers for 1..5, summing to 1): the
  label is the most likely (ties: the lower), the expected score the probability-weighted mean;
- a `senso.likert.task.LikertPrediction`, taken as it is.

The run is recorded as user-supplied: system `user:<name>`, with the object's `describe()` (or its class).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.evaluation import describe_user_system, user_system_name
from senso.likert.items import LikertItem
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.task import LikertPrediction, LikertTask

def check_user_system(system: Any) -> None:
    if not callable(getattr(system, "predict", None)):
        raise SensoError(f"system={type(system).__name__}(...) has no predict(items, task) method: a Likert system "
                         "returns, per item, a score on the gold scale or a distribution over the labels")


def _from_distribution(item: LikertItem, values: Sequence[float], task: LikertTask) -> LikertPrediction:
    labels = task.labels
    if len(values) != len(labels) or any(not isinstance(v, Real) or v < 0 or math.isnan(v) for v in values):
        raise SensoError(f"item {item.id}: a distribution needs {len(labels)} non-negative numbers (labels "
                         f"{', '.join(map(str, labels))}), got {list(values)!r}")
    total = float(sum(values))
    if total <= 0:
        raise SensoError(f"item {item.id}: the distribution {list(values)!r} sums to 0")
    probs = [float(v) / total for v in values]
    best = max(range(len(probs)), key=lambda k: (probs[k], -k))
    return LikertPrediction(item.id, labels[best], sum(p * label for p, label in zip(probs, labels)),
                            None, {"distribution": probs})


def to_likert_prediction(item: LikertItem, answer: Any, task: LikertTask) -> LikertPrediction:
    """One answer of a user system as a LikertPrediction (see the module docstring for what it may be)."""
    if isinstance(answer, LikertPrediction):
        return answer
    if isinstance(answer, Real) and not isinstance(answer, bool):
        if math.isnan(float(answer)):
            raise SensoError(f"item {item.id}: the score is NaN")
        clipped = task.clip(float(answer))
        return LikertPrediction(item.id, task.gold_label(clipped), task.gold_score(clipped), None,
                                {"pred": float(answer), "pred_clipped": clipped})
    if isinstance(answer, Sequence) and not isinstance(answer, str):
        return _from_distribution(item, answer, task)
    raise SensoError(f"item {item.id}: a Likert system answers a number on the gold scale, a distribution over "
                     f"the labels or a LikertPrediction, got {type(answer).__name__}")


def user_runner(system: Any):
    """A registry-style runner (`LikertRunContext -> SystemOutput`) around a researcher's system object."""
    check_user_system(system)

    def run(ctx: LikertRunContext) -> SystemOutput:
        answers = list(system.predict(list(ctx.items), ctx.task))
        if len(answers) != len(ctx.items):
            raise SensoError(f"{user_system_name(system)} returned {len(answers)} answers for {len(ctx.items)} items")
        predictions = [to_likert_prediction(item, answer, ctx.task) for item, answer in zip(ctx.items, answers)]
        return predictions, describe_user_system(system), {"protocol": "user-supplied system", "supervised": None}

    return run
