"""A system's answers checked before they are scored: one finite number per pair, a P(same meaning) in [0, 1];
anything else is an error naming the system's method and the pair."""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.wic.items import WicPair


def checked_answers(values: Any, pairs: Sequence[WicPair], method: str, probability: bool) -> list[float]:
    """`values` as floats, one per pair (a bool is 1.0 or 0.0 for a P(same)); SensoError otherwise."""
    try:
        values = list(values)
    except TypeError:
        raise SensoError(f"{method}(pairs) returned {type(values).__name__}, not one number per pair") from None
    if len(values) != len(pairs):
        raise SensoError(f"{method}(pairs) returned {len(values)} answers for {len(pairs)} pairs")
    answers = []
    for value, pair in zip(values, pairs):
        if isinstance(value, bool) and probability:
            value = float(value)
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
            raise SensoError(f"{method}(pairs) answered {value!r} for pair {pair.pair_id} ({pair.source}): expected a "
                             "finite number" + (" in [0, 1], P(same meaning)" if probability else ""))
        if probability and not 0.0 <= float(value) <= 1.0:
            raise SensoError(f"{method}(pairs) answered {float(value):g} for pair {pair.pair_id} ({pair.source}): a "
                             "P(same meaning) is in [0, 1]")
        answers.append(float(value))
    return answers
