"""A researcher's own AdMIRe system, run through the same loop as the registered ones.

The protocol is one method per task, plus optional attributes:

```python
class MyRanker:                                          # admire-a
    name: str = "my-ranker"                              # optional: recorded as system "user:my-ranker"
    fitted_compounds: frozenset[str] = frozenset()       # optional: compounds it learned from (SPLIT HYGIENE)
    uses_images: bool = False                            # optional: True puts it on the text+images track

    def rank(self, items: list[AdmireAItem]) -> list[Ranking | Sequence[str]]:
        return [item.image_names for item in items]      # per item: its image names, best first

    def describe(self) -> dict[str, Any]:                # optional: what the run records (a dict, JSON-able)
        return {"rule": "as listed"}
```

- admire-a, `rank(items: list[AdmireAItem]) -> list[Ranking | Sequence[str]]`: per item a
  `senso.admire.systems.base.Ranking`, or the item's image names best first (a list, tuple or numpy array);
- admire-b, `choose(items: list[AdmireBItem]) -> list[SequenceChoice | tuple[str, str]]` (AdmireBItem: sequence
  captions, candidates): per item a `SequenceChoice`, or a pair (the chosen candidate's image name, "idiomatic"
  or "literal");
- admire-sense, `classify(items: list[AdmireAItem]) -> list[SenseDecision | float | str]`: per item a
  `senso.admire.systems.sense.SenseDecision`, P(idiomatic) as a number in [0, 1], or the label "idiomatic" /
  "literal" (a number outside [0, 1] or NaN is an error naming the item).

`describe()` must return a dict (anything else is an error). The run is recorded as user-supplied: system
`user:<name>`, with the object's `describe()` (or its class).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Sequence

from senso.admire.items import SENTENCE_TYPES, AdmireAItem, AdmireBItem
from senso.admire.systems.base import Ranking, SequenceChoice
from senso.admire.systems.sense import SenseDecision
from senso.core.errors import SensoError
from senso.core.options import python_value
from senso.core.user_system import UserProtocol
from senso.core.user_system import UserSystem as CoreUserSystem



def to_ranking(item: AdmireAItem, answer: Any) -> Ranking:
    if isinstance(answer, Sequence) and not isinstance(answer, str):
        return Ranking(order=tuple(str(name) for name in answer))
    raise SensoError(f"item {item.compound!r}: an admire-a system answers a Ranking or the image names best first, "
                     f"got {type(answer).__name__}")


def to_choice(item: AdmireBItem, answer: Any) -> SequenceChoice:
    if isinstance(answer, Sequence) and not isinstance(answer, str) and len(answer) == 2:
        return SequenceChoice(expected_item=str(answer[0]), sentence_type=str(answer[1]))
    raise SensoError(f"item {item.compound!r}: an admire-b system answers a SequenceChoice or a pair (image name, "
                     f"sentence type), got {answer!r}")


def to_decision(item: AdmireAItem, answer: Any) -> SenseDecision:
    if isinstance(answer, str) and answer in SENTENCE_TYPES:
        return SenseDecision(1.0 if answer == "idiomatic" else 0.0, {"label": answer})
    if isinstance(answer, Real) and not isinstance(answer, bool) and 0.0 <= float(answer) <= 1.0:
        return SenseDecision(float(answer))
    if isinstance(answer, Real) and math.isnan(float(answer)):
        raise SensoError(f"item {item.compound!r}: P(idiomatic) is NaN")
    raise SensoError(f"item {item.compound!r}: an admire-sense system answers a SenseDecision, P(idiomatic) in "
                     f"[0, 1] or a label ({', '.join(SENTENCE_TYPES)}), got {answer!r}")


def protocol(subtask: str, task: str) -> UserProtocol:
    """What a system object of `subtask` ("a", "b" or "sense") has: its method, its answers and how each is read."""
    method, answers, answer_type, convert = PROTOCOLS[subtask]
    return UserProtocol(method, f"{method}(items)", task, answers, answer_type, convert)


# subtask -> the method a system object needs, what it returns per item, its answer type and how any other is read
PROTOCOLS = {"a": ("rank", "a ranking of the item's images", Ranking, to_ranking),
             "b": ("choose", "a chosen candidate and sentence type", SequenceChoice, to_choice),
             "sense": ("classify", "P(idiomatic) or a sense label", SenseDecision, to_decision)}


class UserSystem(CoreUserSystem):
    """A researcher's object as a registered system of `subtask` ("a", "b" or "sense") looks: its answers to
    `rank`, `choose` or `classify`, and the compounds it learned from and whether it reads images."""

    def __init__(self, system: Any, subtask: str, task: str):
        super().__init__(system, protocol(subtask, task))
        self.subtask = subtask
        self.fitted_compounds = frozenset(python_value(getattr(system, "fitted_compounds", None)) or ())
        self.uses_images = bool(getattr(system, "uses_images", False))

    rank = choose = classify = CoreUserSystem.answers
