"""A researcher's own Likert system, run through the same loop as the registered ones.

The protocol is one method, plus optional attributes:

```python
class MySystem:
    name: str = "my-system"                  # optional: recorded as system "user:my-system" (default: the class)
    clip: bool = False                       # optional: True clips scores outside the gold scale (recorded)
    normalise: bool = False                  # optional: True rescales distributions that do not sum to 1 (recorded)

    def predict(self, items: list[LikertItem], task: LikertTask) -> list[float | Sequence[float] | LikertPrediction]:
        return [0.4 for item in items]       # one answer per item, in order

    def describe(self) -> dict[str, Any]:    # optional: what the run records of the system (a dict, JSON-able)
        return {"rule": "0.4 everywhere"}
```

`items` are `senso.likert.items.LikertItem`s (id, text, word, group, domain, gold); `task` the
`senso.likert.task.LikertTask` (labels, gold_range, gold_label, gold_score). An answer is one of:
- a number on the task's gold scale (`task.gold_range`; ABRICOT: a mean in 0-1): the label and expected score
  follow the task's own rules, as for the gold (`task.gold_label`, `task.gold_score`). A number outside the
  scale (a 1-5 label on ABRICOT's 0-1 scale) is an error naming the item, unless the system says `clip = True`;
- a distribution over the task's labels (ABRICOT: five non-negative numbers for 1..5, summing to 1 within
  1e-6; a list, tuple or numpy array): the label is the most likely (ties: the lower), the expected score the probability-weighted mean. One
  that does not sum to 1 is an error, unless the system says `normalise = True`;
- a `senso.likert.task.LikertPrediction`, taken as it is.

The run is recorded as user-supplied: system `user:<name>`, with the object's `describe()` (or its class) and
`clip`/`normalise` when set.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.user_system import UserProtocol, UserSystem
from senso.likert.items import LikertItem
from senso.likert.systems.context import LikertRunContext, SystemOutput
from senso.likert.task import LikertPrediction, LikertTask

SUM_TOLERANCE = 1e-6  # how far from 1 a distribution's sum may be (float rounding), unless `normalise`


def _from_distribution(item: LikertItem, values: Sequence[float], task: LikertTask,
                       normalise: bool = False) -> LikertPrediction:
    labels = task.labels
    if len(values) != len(labels) or any(not isinstance(v, Real) or v < 0 or math.isnan(v) for v in values):
        raise SensoError(f"item {item.id}: a distribution needs {len(labels)} non-negative numbers (labels "
                         f"{', '.join(map(str, labels))}), got {list(values)!r}")
    total = float(sum(values))
    if total <= 0:
        raise SensoError(f"item {item.id}: the distribution {list(values)!r} sums to 0")
    if abs(total - 1.0) > SUM_TOLERANCE and not normalise:
        raise SensoError(f"item {item.id}: the distribution {list(values)!r} sums to {total:g}, not 1: answer "
                         "probabilities over the labels, or set normalise = True on the system to rescale them "
                         "(recorded in the run)")
    probs = [float(v) / total for v in values]
    best = max(range(len(probs)), key=lambda k: (probs[k], -k))
    return LikertPrediction(item.id, labels[best], sum(p * label for p, label in zip(probs, labels)),
                            None, {"distribution": probs})


def _from_score(item: LikertItem, score: float, task: LikertTask, clip: bool = False) -> LikertPrediction:
    if math.isnan(score):
        raise SensoError(f"item {item.id}: the score is NaN")
    low, high = task.gold_range
    if not low <= score <= high and not clip:
        labels = f"{min(task.labels)}-{max(task.labels)}"
        raise SensoError(f"item {item.id}: the score {score:g} is outside {task.name}'s gold scale {low:g}-{high:g} "
                         f"(a label {labels}? answer a number on the gold scale or a distribution over the labels), "
                         "or set clip = True on the system to clip it (recorded in the run)")
    clipped = task.clip(score)
    return LikertPrediction(item.id, task.gold_label(clipped), task.gold_score(clipped), None,
                            {"pred": score, "pred_clipped": clipped})


def to_likert_prediction(item: LikertItem, answer: Any, task: LikertTask, clip: bool = False,
                         normalise: bool = False) -> LikertPrediction:
    """One answer of a user system (a Python value) as a LikertPrediction (see the module docstring)."""
    if isinstance(answer, Real) and not isinstance(answer, bool):
        return _from_score(item, float(answer), task, clip)
    if isinstance(answer, Sequence) and not isinstance(answer, str):
        return _from_distribution(item, answer, task, normalise)
    raise SensoError(f"item {item.id}: a Likert system answers a number on the gold scale, a distribution over "
                     f"the labels or a LikertPrediction, got {type(answer).__name__}")


PROTOCOL = UserProtocol("predict", "predict(items, task)", "Likert",
                        "a score on the gold scale or a distribution over the labels", LikertPrediction,
                        to_likert_prediction, switches=("clip", "normalise"))


def user_runner(system: Any):
    """A registry-style runner (`LikertRunContext -> SystemOutput`) around a researcher's system object."""
    user = UserSystem(system, PROTOCOL)

    def run(ctx: LikertRunContext) -> SystemOutput:
        predictions = user.answers(ctx.items, ctx.task)
        return predictions, user.describe(), {"protocol": "user-supplied system", "supervised": None}

    return run
