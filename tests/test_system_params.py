"""Every registered system's settings follow scikit-learn's convention: its options class is the configurable
thing, `get_params()` / `set_params()` / `clone()` round-trip, and a wrong value or an unknown name is a
SensoError naming the parameter."""

from __future__ import annotations

from pathlib import Path

import pytest

from senso.catalog import all_tasks
from senso.core.errors import SensoError
from senso.core.params import Configurable, Param, clone, declared

# A value of each kind that its declaration refuses (a Python string is never a bool or a number).
WRONG = {"bool": "maybe", "int": "2", "float": "0.5", "str": 3, "path": 3, "list": 3, "choice": "no-such-choice"}


def registered() -> dict[str, type]:
    """Every registered system of every task, by `task/name` (a row shared by several tasks counted once)."""
    found: dict[int, tuple[str, type]] = {}
    for task in all_tasks():
        for entry in task.systems():
            found.setdefault(id(entry.row), (f"{task.name}/{entry.name}", entry.row.options))
    return dict(found.values())


def other_value(param: Param) -> object:
    """A valid value of `param` other than its default."""
    if param.kind == "choice":
        return next(c for c in param.choices if c != param.default)
    other = {"bool": not param.default, "int": int(param.minimum or 0) + 7, "float": 0.25, "str": "other",
             "path": Path("elsewhere.tsv")}
    if param.kind == "list":
        return (1.0, 2.0) if param.item == "float" else (3, 4) if param.item == "int" else ("x", "y")
    return other[param.kind]


def test_every_family_registers_systems_here():
    names = set(registered())
    assert {"abricot-abs/likert-lm", "abricot-abs/embedding-ridge", "admire-a/fitted-pipeline",
            "admire-b/sequence-continuation", "admire-sense/sense-classifier"} <= names
    assert len(names) >= 17


@pytest.mark.parametrize("name, system", sorted(registered().items()))
def test_get_params_set_params_and_clone_round_trip(name, system):
    assert issubclass(system, Configurable), name
    configured = system()
    defaults = configured.get_params(deep=True)
    assert set(defaults) == set(declared(system).names)  # every parameter, each one declared
    copy = clone(configured)
    assert copy is not configured and type(copy) is system and copy.get_params() == defaults
    changed = {p.name: other_value(p) for p in declared(system)}
    assert configured.set_params(**changed) is configured
    assert configured.get_params() == {**defaults, **changed}
    assert clone(configured).get_params() == configured.get_params() and copy.get_params() == defaults
    configured.set_params(**defaults)
    assert configured.get_params() == defaults


@pytest.mark.parametrize("name, system", sorted(registered().items()))
def test_a_wrong_value_or_an_unknown_name_is_an_error_naming_it(name, system):
    configured = system()
    for param in declared(system):
        with pytest.raises(SensoError, match=param.name):
            configured.set_params(**{param.name: WRONG[param.kind]})
    with pytest.raises(SensoError, match="no_such_parameter"):
        configured.set_params(no_such_parameter=1)
    assert configured.get_params() == system().get_params()  # nothing was set by a refused call
