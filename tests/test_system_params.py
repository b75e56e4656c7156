"""Every registered system's settings follow scikit-learn's convention: its options class is the configurable
thing, its parts nested typed values (`part__name`), `get_params()` / `set_params()` / `clone()` round-trip, and a
wrong value or an unknown name is a SensoError naming the parameter as given."""

from __future__ import annotations

from pathlib import Path

import pytest

from senso.catalog import all_tasks
from senso.core.errors import SensoError
from senso.core.params import Configurable, Param, clone, declared, option_paths

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


def leaves(configured: Configurable) -> dict[str, object]:
    """Every parameter's value, a part's as `part__name` (the parts themselves left out)."""
    return {key: value for key, value in configured.get_params().items() if not isinstance(value, Configurable)}


@pytest.mark.parametrize("name, system", sorted(registered().items()))
def test_get_params_set_params_and_clone_round_trip(name, system):
    assert issubclass(system, Configurable), name
    configured, paths = system(), option_paths(system)
    defaults = leaves(configured)
    assert set(defaults) == set(paths.values())  # every parameter, each one declared, a part's as part__name
    copy = clone(configured)
    assert copy is not configured and type(copy) is system and copy.get_params() == configured.get_params()
    assert all(copy.get_params()[key] is not value for key, value in configured.get_params().items()
               if isinstance(value, Configurable))  # parts deep-copied
    changed = {paths[p.name]: other_value(p) for p in declared(system)}
    assert configured.set_params(**changed) is configured
    assert leaves(configured) == {**defaults, **changed}
    assert leaves(clone(configured)) == leaves(configured) and leaves(copy) == defaults
    # the names users give (`--set`, the part flags, `senso.evaluate` keywords) reach the same nested values
    flat = {p.name: other_value(p) for p in declared(system)}
    assert leaves(system.from_values(declared(system).resolve(flat, name))) == leaves(configured)
    configured.set_params(**defaults)
    assert leaves(configured) == defaults


@pytest.mark.parametrize("name, system", sorted(registered().items()))
def test_a_wrong_value_or_an_unknown_name_is_an_error_naming_it(name, system):
    configured, paths = system(), option_paths(system)
    for param in declared(system):
        with pytest.raises(SensoError, match=paths[param.name]):
            configured.set_params(**{paths[param.name]: WRONG[param.kind]})
    unknown = ["no_such_parameter", *(f"{key}__no_such_parameter" for key, value in configured.get_params().items()
                                      if isinstance(value, Configurable))]
    for key in unknown:
        with pytest.raises(SensoError, match=key):
            configured.set_params(**{key: 1})
    assert configured.get_params() == system().get_params()  # nothing was set by a refused call


def test_parts_are_nested_typed_values():
    """Composite systems hold their parts as typed values, named `part__name` (fitted-pipeline: its own defaults
    for sense-pipeline's parts)."""
    systems = registered()
    pipeline, fitted = systems["admire-a/sense-pipeline"](), systems["admire-a/fitted-pipeline"]()
    params = pipeline.get_params()
    assert params["ranking__roles"] == "rules" and params["classifier__sense"] == "context-similarity"
    assert fitted.get_params()["ranking__roles"] == "learned" and fitted.classifier.sense == "learned"
    assert type(fitted.ranking) is type(pipeline.ranking) and option_paths(type(fitted))["hedge"] == "ranking__hedge"
    with pytest.raises(SensoError, match="ranking__hedge: --set hedge expects True or False"):
        fitted.set_params(ranking__hedge="maybe")
    assert fitted.set_params(ranking__hedge=False, classifier__sense="fitted").ranking.hedge is False
    assert clone(fitted).classifier is not fitted.classifier and pipeline.ranking.hedge is True


def test_the_names_users_give_reach_the_nested_parts():
    """`--sense fitted --set hedge=off`, `senso.evaluate(..., roles="learned+rules")`: flat names, mapped onto the
    parts once (`option_paths`); a wrong value is named as the user gave it."""
    from senso.admire.systems.registry import SYSTEMS, check_system
    from senso.catalog import RunOptions
    from senso.core.params import Text

    row = SYSTEMS["a"]["fitted-pipeline"]
    given = {"sense": Text("fitted"), "hedge": Text("off"), "roles": "learned+rules", "meaning": "none"}
    typed = row.typed(check_system(row, RunOptions(task="admire-a", system=row.name, system_options=given)))
    assert (typed.classifier.sense, typed.ranking.hedge, typed.ranking.roles, typed.evidence.meaning) == (
        "fitted", False, "learned+rules", "none")
    assert typed.classifier.sense_roles is True  # fitted-pipeline's own default for its sense part
    with pytest.raises(SensoError, match="--set hedge expects true or false"):
        check_system(row, RunOptions(task="admire-a", system=row.name, system_options={"hedge": Text("maybe")}))
