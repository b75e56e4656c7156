"""A researcher's own system object, run through the same loop as the registered ones: the adapter every family
uses, written once.

A family declares its protocol (`UserProtocol`): the one method a system object has (Likert's `predict`,
AdMIRe's `rank`, `choose` or `classify`), what it answers per item, the family's answer type (taken as it is) and
the converter that reads any other answer (a number, a list, a label: a numpy value arrives as Python's). The
adapter (`UserSystem`) checks the method, calls it, checks that it answered once per item, converts each answer and
records the object as `user:<name>` with its `describe()` and the switches it sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from senso.core.errors import SensoError
from senso.core.options import python_value
from senso.core.records import jsonable

USER_PREFIX = "user:"  # a run of a researcher's own system object is recorded as system "user:<name>"


def user_system_name(system: Any) -> str:
    """The recorded name of a researcher's system object: `user:` + its `name`, else its class's."""
    return USER_PREFIX + str(getattr(system, "name", None) or type(system).__name__)


def describe_user_system(system: Any) -> dict[str, Any]:
    """What a run records of a researcher's system: its own `describe()`, its class, and that it is theirs."""
    described = system.describe() if callable(getattr(system, "describe", None)) else {}
    if not isinstance(described, dict):
        raise SensoError(f"{type(system).__name__}.describe() returned {type(described).__name__}, not a dict: "
                         "describe() returns a dict of what the run records of the system (e.g. {'rule': '...'})")
    return {"name": user_system_name(system), "user_supplied": True,
            "class": f"{type(system).__module__}.{type(system).__qualname__}",
            **jsonable(described, f"{type(system).__name__}.describe()")}


@dataclass(frozen=True)
class UserProtocol:
    """What a family asks of a researcher's system object.

    `method` is called with the items (and the `args` the family passes: Likert's task) and answers one value per
    item: an `answer_type` is taken as it is, anything else goes through `convert(item, answer, *args,
    **switches)`. `switches` are True/False attributes a system may set (Likert's `clip`, `normalise`): checked,
    handed to `convert` and recorded when set. `kind` and `call` name the system and its method in messages."""

    method: str  # "predict"
    call: str  # the method as a message shows it: "predict(items, task)"
    kind: str  # what the system is called in messages: "Likert", "admire-a"
    answers: str  # what it returns per item, as a message says it
    answer_type: type
    convert: Callable[..., Any]
    switches: tuple[str, ...] = ()


def check_user_system(system: Any, protocol: UserProtocol) -> None:
    """SensoError unless the object has the protocol's method (and its switches are True or False)."""
    if not callable(getattr(system, protocol.method, None)):
        raise SensoError(f"system={type(system).__name__}(...) has no {protocol.call} method: a {protocol.kind} "
                         f"system returns, per item, {protocol.answers}")
    switches_of(system, protocol)


def switches_of(system: Any, protocol: UserProtocol) -> dict[str, bool]:
    """The object's switches when set (each True or False, never text)."""
    switches = {}
    for name in protocol.switches:
        value = getattr(system, name, False)
        if not isinstance(value, bool):
            raise SensoError(f"{type(system).__name__}.{name} must be True or False, got {value!r}")
        if value:
            switches[name] = True
    return switches


class UserSystem:
    """A researcher's object as a registered system looks: `name`, `describe()`, `answers(items, *args)`."""

    def __init__(self, system: Any, protocol: UserProtocol):
        check_user_system(system, protocol)
        self.system, self.protocol = system, protocol
        self.name = user_system_name(system)

    def describe(self) -> dict[str, Any]:
        return {**describe_user_system(self.system), **switches_of(self.system, self.protocol)}

    def answers(self, items: Sequence[Any], *args: Any) -> list[Any]:
        """The object's answers to its method, one per item, each converted and checked."""
        protocol = self.protocol
        answers = list(getattr(self.system, protocol.method)(list(items), *args))
        if len(answers) != len(items):
            raise SensoError(f"{self.name} returned {len(answers)} answers for {len(items)} items")
        switches = switches_of(self.system, protocol)
        return [answer if isinstance(answer, protocol.answer_type)
                else protocol.convert(item, python_value(answer), *args, **switches)
                for item, answer in zip(items, answers)]
