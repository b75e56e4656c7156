"""Registered systems as objects, as scikit-learn's estimators are: `senso.system(name, **params)`.

```python
pipeline = senso.system("fitted-pipeline", hedge=False)    # senso.system('fitted-pipeline', hedge=False)
pipeline.get_params()["ranking__hedge"]                     # False; a part's parameters as part__name
trial = senso.clone(pipeline).set_params(roles="learned+rules")   # sklearn.base.clone(pipeline) too
senso.evaluate("admire-a", system=trial, split="dev")       # as system="fitted-pipeline", hedge=False, roles=...
```

An object is a registered system's name and an object of its options class (the `core.params.Configurable` its
registry row names), so its parameters are declared once, there: `get_params(deep=True)` gives every one (a
part's as `part__name`); `set_params` takes the names users give (`roles=`, as `senso.evaluate` and `--set`
do) or the paths (`ranking__roles=`), each checked by its declaration (a wrong name or value is a SensoError
naming it; a refused call sets nothing); `clone` gives an object with the same parameters; it pickles; its repr
shows the parameters that differ from the system's defaults. `senso.evaluate` runs the system the object names
with `given()`, the values a user would have typed, so both forms give the same run.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Mapping

from senso import catalog
from senso.core.errors import SensoError
from senso.core.options import PARAM_KINDS, check_python_value, python_value
from senso.core.params import Configurable, OptionError, declared, option_paths, python_message
from senso.core.params import clone as clone_configurable


class System:
    """A registered system (`name`) with its parameters (`options`, an object of its options class). Made by
    `senso.system(name, **params)`; what `senso.evaluate(task, system=...)` runs for every task that `name`
    answers with the same options class."""

    def __init__(self, name: str, options: Configurable, task: str | None = None) -> None:
        self._name, self._options, self._task = name, options, task

    @property
    def name(self) -> str:
        """The registered name (`senso.systems()` lists them)."""
        return self._name

    @property
    def options(self) -> Configurable:
        """The typed parameters, as the system's parts read them (`options.ranking.hedge`)."""
        return self._options

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Every parameter's value by name (scikit-learn's): the options class's fields; `deep`, each part's own
        too, as `part__name`."""
        return self._options.get_params(deep=deep)

    def set_params(self, **params: Any) -> "System":
        """Sets parameters named as users name them (`roles=`) or by their path (`ranking__roles=`), each checked
        by its declaration; a wrong name or value is a SensoError naming it and sets nothing. Returns the object."""
        paths = _paths(self, {key: python_value(value) for key, value in params.items()})
        try:
            self._options.set_params(**paths)
        except OptionError as exc:
            raise OptionError(python_message(str(exc), catalog.flag_names())) from None
        return self

    def clone(self) -> "System":
        """A new object of the same system with the same parameters (parts copied), as `sklearn.base.clone`."""
        return System(self._name, clone_configurable(self._options), self._task)

    def __sklearn_clone__(self) -> "System":
        return self.clone()

    def given(self) -> dict[str, Any]:
        """The parameters that differ from the system's defaults, by the names users give (`hedge`, not
        `ranking__hedge`): what `senso.evaluate(task, system=NAME, **given)` would be given."""
        names = {path: name for name, path in option_paths(type(self._options)).items()}
        defaults = _leaves(type(self._options)())
        return {names.get(path, path): value for path, value in _leaves(self._options).items()
                if path not in defaults or value != defaults[path]}

    def __repr__(self) -> str:
        task = [f"task={self._task!r}"] if self._task is not None else []  # a name several families register
        shown = [repr(self._name), *task] + [f"{name}={_shown(value)}" for name, value in self.given().items()]
        return f"senso.system({', '.join(shown)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, System) and (other.name, other.options, other._task) == (self._name, self._options,
                                                                                            self._task)

    __hash__ = None  # type: ignore[assignment]  # mutable, as scikit-learn's estimators are


def _leaves(options: Configurable) -> dict[str, Any]:
    """Every parameter's value by its path, the parts themselves left out."""
    return {path: value for path, value in options.get_params(deep=True).items()
            if not isinstance(value, Configurable)}


def _shown(value: Any) -> str:
    return repr(str(value)) if isinstance(value, Path) else repr(value)


def _paths(system: System, params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` keyed by their paths among the object's parameters (`roles` -> `ranking__roles`); a name that is
    no parameter, or one given twice (by its name and its path), is an OptionError naming it."""
    cls = type(system.options)
    paths = option_paths(cls)
    keyed: dict[str, Any] = {}
    for key, value in params.items():
        path = paths.get(key, key)
        if path in keyed:
            raise OptionError(f"{key} of {system!r} is given twice (also as {path}): give it once")
        keyed[path] = value
    _check_python_types(cls, params)
    top = set(system.get_params(deep=False))
    unknown = [key for key in params if paths.get(key, key).partition("__")[0] not in top]
    if unknown:
        listed = "; ".join(f"{p.name} ({p.python_type})" for p in declared(cls)) or "none"
        close = [m for key in unknown for m in difflib.get_close_matches(key, [*paths, *paths.values()], n=1)]
        hint = f"; did you mean {' and '.join(dict.fromkeys(close))}?" if close else ""
        raise OptionError(f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} of system "
                          f"{system.name}; its parameters: {listed} (a part's also as part__name){hint}")
    return keyed


def _check_python_types(cls: type, params: Mapping[str, Any]) -> None:
    """Each declared option's value of its kind, as `senso.evaluate` checks its keywords (True, not 1 or "yes",
    for a bool; None only where the default is None), named as given."""
    paths = option_paths(cls)
    names = {path: name for name, path in paths.items()}
    options = declared(cls)
    for key, value in params.items():
        name = key if key in paths else names.get(key)
        if name is not None:
            param = options[name]
            check_python_value(key, value, PARAM_KINDS[param.kind], optional=param.default is None)


def served_by(name: str, task: str | Path | None = None) -> dict[type, list[str]]:
    """Options class -> the tasks whose registered system `name` declares its options with it (`task`: that
    task's alone)."""
    tasks = [catalog.task_for(task)] if task is not None else catalog.all_tasks()
    found: dict[type, list[str]] = {}
    for entry in tasks:
        for row in entry.systems():
            if row.name == name:
                found.setdefault(row.row.options, []).append(entry.name)
    return found


def system(name: str, *, task: str | Path | None = None, **params: Any) -> System:
    """The registered system `name` as an object with `params` set (named as `senso.evaluate` takes them:
    `roles="learned"`, or by path: `ranking__roles="learned"`); `task` picks the task's system of that name where
    several families register one under the same name with different parameters."""
    if not isinstance(name, str):
        raise SensoError(f"senso.system takes a registered system's name (senso.systems() lists them), got "
                         f"{type(name).__name__} {name!r}")
    classes = served_by(name, task)
    if not classes:
        known = sorted({row.name for entry in catalog.all_tasks() for row in entry.systems()})
        where = f" for {task}" if task is not None else ""
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SensoError(f"unknown system {name!r}{where}; senso.systems() lists them: {', '.join(known)}{hint}")
    if len(classes) > 1:
        listed = "; ".join(f"{', '.join(tasks)} ({cls.__name__})" for cls, tasks in classes.items())
        raise SensoError(f"system {name!r} is registered with different parameters by {listed}: name the task, "
                         f"senso.system({name!r}, task=...)")
    [options_class] = classes
    return System(name, options_class(), str(task) if task is not None else None).set_params(**params)


def clone(configured: Any) -> Any:
    """A new object with the same parameters, unfitted (scikit-learn's `clone`): a `senso.system(...)` object,
    or any object of a system's options class."""
    if isinstance(configured, System):
        return configured.clone()
    return clone_configurable(configured)


def run_values(held: System, tasks: list[str | Path], options: Mapping[str, Any]) -> dict[str, Any]:
    """The values `senso.evaluate` runs `held` with on `tasks` (its `given()`), once every task is known to have
    a registered system of its name and options class, and no keyword in `options` sets a parameter it holds. A
    task that lists no systems (a ranking task file: its systems are its file's) checks the name when it runs."""
    for task in tasks:
        listed = catalog.task_for(task).systems()
        if listed and type(held.options) not in {row.row.options for row in listed if row.name == held.name}:
            answers = sorted({t for names in served_by(held.name).values() for t in names})
            raise SensoError(f"system={held!r} does not answer {task}: {held.name} answers {', '.join(answers)}")
    paths = option_paths(type(held.options))
    clash = [key for key in options if key in paths or key in paths.values()]
    if clash:
        raise SensoError(f"{', '.join(f'{key}=' for key in clash)}: system={held!r} holds its parameters; set them on "
                         f"it (.set_params({clash[0]}=...)) or give system={held.name!r}")
    return held.given()
