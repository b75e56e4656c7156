"""A researcher's own word-in-context system, run through the same loop as the registered ones.

```python
class MySystem:
    name = "my-system"                               # optional: recorded as system "user:my-system"

    def fit(self, pairs: list[WicPair]) -> None: ... # optional: called with the training rows first

    def judge(self, pairs: list[WicPair]) -> list[float | bool]:
        return [0.7 for pair in pairs]               # P(same meaning) in [0, 1], or True/False, per pair

    def relate(self, pairs: list[WicPair]) -> list[float]:
        return [2.5 for pair in pairs]               # a graded relatedness per pair (higher: more related)

    def describe(self) -> dict: ...                  # optional: what the run records of the system
```

A system has `judge`, `relate` or both (a binary task asks `judge`, a graded one `relate`). The adapter is strict:
a missing method, a count of answers other than the pairs', a string, None or NaN, a probability outside [0, 1]
or a bool where a score is asked is a SensoError naming the method and the pair; numpy numbers are numbers.
(The family-independent adapter of core, where present, is the place this belongs; this one is the family's own.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.core.options import python_value
from senso.wic.items import WicPair
from senso.wic.systems.context import WicContext, check_pairs

METHODS = ("judge", "relate")


def check_user_system(system: Any) -> None:
    """SensoError unless the object has judge(pairs) or relate(pairs)."""
    if not any(callable(getattr(system, m, None)) for m in METHODS):
        raise SensoError(f"system={type(system).__name__}(...) has neither judge(pairs) (P(same meaning) or True/False "
                         "per pair) nor relate(pairs) (a graded score per pair): a word-in-context system has one")


def _answers(system: Any, method: str, pairs: list[WicPair]) -> list[Any]:
    call = getattr(system, method, None)
    if not callable(call):
        raise SensoError(f"{type(system).__name__} has no {method}(pairs) method, which this task asks "
                         f"({'P(same meaning) or True/False' if method == 'judge' else 'a graded score'} per pair)")
    answers = call(list(pairs))
    answers = python_value(answers)
    if isinstance(answers, (str, bytes)) or not isinstance(answers, Sequence):
        raise SensoError(f"{type(system).__name__}.{method}(pairs) returned {type(answers).__name__}, not a list of "
                         "one answer per pair")
    if len(answers) != len(pairs):
        raise SensoError(f"{type(system).__name__}.{method}(pairs) returned {len(answers)} answers for {len(pairs)} "
                         "pairs: one per pair, in order")
    return [python_value(a) for a in answers]


def _probability(system: Any, pair: WicPair, answer: Any) -> float:
    if isinstance(answer, bool):
        return 1.0 if answer else 0.0
    if not isinstance(answer, Real) or math.isnan(answer) or not 0.0 <= answer <= 1.0:
        raise SensoError(f"{type(system).__name__}.judge: pair {pair.pair_id}: answers P(same meaning) in [0, 1] or "
                         f"True/False, got {answer!r}")
    return float(answer)


def _score(system: Any, pair: WicPair, answer: Any) -> float:
    if isinstance(answer, bool) or not isinstance(answer, Real) or math.isnan(answer) or math.isinf(answer):
        raise SensoError(f"{type(system).__name__}.relate: pair {pair.pair_id}: answers a finite number (how related "
                         f"the two usages are), got {answer!r}")
    return float(answer)


@dataclass
class UserWicSystem:
    """The adapter: the registered systems' protocol around a researcher's object."""

    system: Any

    def __post_init__(self) -> None:
        check_user_system(self.system)

    @property
    def name(self) -> str:
        return "user:" + str(getattr(self.system, "name", None) or type(self.system).__name__)

    def bind(self, context: WicContext) -> "UserWicSystem":
        return self

    def fit(self, pairs: Sequence[WicPair]) -> "UserWicSystem":
        if callable(getattr(self.system, "fit", None)):
            self.system.fit(check_pairs(pairs, f"{type(self.system).__name__}.fit"))
        return self

    def judge(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, "judge")
        return [_probability(self.system, p, a) for p, a in zip(pairs, _answers(self.system, "judge", pairs))]

    def relate(self, pairs: Sequence[WicPair]) -> list[float]:
        pairs = check_pairs(pairs, "relate")
        return [_score(self.system, p, a) for p, a in zip(pairs, _answers(self.system, "relate", pairs))]

    def describe(self) -> dict[str, Any]:
        described = self.system.describe() if callable(getattr(self.system, "describe", None)) else {}
        if not isinstance(described, dict):
            raise SensoError(f"{type(self.system).__name__}.describe() returned {type(described).__name__}, not a dict")
        return {"system": self.name, "user_supplied": True,
                "class": f"{type(self.system).__module__}.{type(self.system).__qualname__}", **described}
