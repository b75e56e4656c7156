"""Options declared once, typed, on the class that reads them (as scikit-learn's estimators declare theirs).

A system, or a part of one (sense, meaning, ranker, aggregator, a backend's settings), declares each of its
options as a dataclass field made by `param(default, help, ...)`: the field's name and type annotation are
the option's, so nothing is written twice. `declared(cls)` reads them as a `Params` (`Param`s: name, type,
default, allowed values, one line of help, a flag where it has one). A class made of parts holds each as a typed
value (`part(OTHER)`: a field whose type is the part's own class), never by joining classes or naming another
class's option in a string; users still name every option by its own name (`--sense`, `--set hedge=...`,
`senso.evaluate(..., roles=...)`), and `option_paths` is the one map from those names to the nested values.
`Configurable` gives such a class scikit-learn's parameter protocol: `get_params(deep=True)` (every `__init__`
field, a part's as `part__name`), `set_params(**values)` (each value checked, `part__name` too, then the class's
own checks) and `clone` (parts cloned). From that one declaration come:
- parsing and validation of values given as text (`--set KEY=VALUE`, a sweep file: `Text`; the part flags such
  as `--sense`) or as Python values (`senso.evaluate(..., hedge=False)`; a Python string is never taken for a
  bool or a number): `Params.resolve`; one yes/no parser, `parse_bool`;
- the error for an unknown key, listing the valid ones with their types and suggesting the closest;
- `senso systems NAME` (`Params.describe`) and the run record (the typed values `resolve` returns).

Messages name options as the command line does (`--sense`, `--set hedge`, `--limit`); the Python API
translates them to its keyword arguments (`python_message`: `--set hedge` -> `hedge=`), from the same
declarations, so each message is written once and reads right on both surfaces.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from senso.core.errors import SensoError

KINDS = ("bool", "int", "float", "str", "path", "list", "choice")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

def option_label(name: str, flag: str | None = None) -> str:
    """How a message names option `name`: its own flag, else `--set name`."""
    return flag or f"--set {name}"


_SET = re.compile(r"--set ([A-Za-z_][A-Za-z0-9_]*)")
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def python_message(text: str, flags: Mapping[str, str]) -> str:
    """A message written for the command line, naming Python's keyword arguments instead: `--set KEY` ->
    `KEY`, and each flag in `flags` (flag -> keyword) -> the keyword (`--limit must be ...` -> `limit must be ...`)."""
    text = _SET.sub(lambda m: m.group(1), text)
    return _FLAG.sub(lambda m: flags.get(f"--{m.group(1)}", m.group(0)), text)


class OptionError(SensoError):
    """A bad option value or an unknown option: the message names the option as the user gave it (an unknown
    one also carries the names given, `unknown`, and the declared options, `declared`)."""

    unknown: tuple[str, ...] = ()
    declared: tuple["Param", ...] = ()


class Text(str):
    """A value written as text (`--set KEY=VALUE`, a sweep file): parsed by its option's type (`hedge=off` is
    False, `orders=3` is 3). A plain Python string is taken as given, never as a bool or a number."""


def _python_string(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, Text)


def parse_bool(value: Any, label: str) -> bool:
    """The one yes/no parser: True/False, or true/false, yes/no, 1/0, on/off in any case."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise OptionError(f"{label} expects true or false (also yes/no, 1/0, on/off), got {value!r}")


@dataclass(frozen=True)
class Param:
    """One option: `kind` is one of KINDS ("choice" when `choices` are given); `default` None means "not set"
    (the part decides); `flag` is its own command-line flag (else it is given as `--set name=VALUE`)."""

    name: str
    kind: str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] = ()
    flag: str | None = None
    minimum: float | None = None
    item: str = "str"  # a list's items: "str", "int" or "float" (then each item is parsed as that number)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown kind {self.kind!r}")
        if (self.kind == "choice") != bool(self.choices):
            raise ValueError(f"{self.name}: kind 'choice' and choices go together")
        if self.item not in ("str", "int", "float") or (self.item != "str" and self.kind != "list"):
            raise ValueError(f"{self.name}: items of kind {self.item!r} are for lists of str, int or float")

    @property
    def label(self) -> str:
        return option_label(self.name, self.flag)

    @property
    def type_name(self) -> str:
        if self.kind == "choice":
            return " | ".join(self.choices)
        if self.kind == "list":
            return "comma-separated list" if self.item == "str" else f"comma-separated {self.item}s"
        if self.minimum is not None:
            return f"{self.kind} >= {self.minimum:g}"
        return self.kind

    @property
    def python_type(self) -> str:
        """What a Python caller gives (a string is never taken for a bool or a number)."""
        if self.kind == "list" and self.item != "str":
            return f"a list of {self.item}s"
        return {"bool": "True or False", "int": "an integer", "float": "a number"}.get(self.kind, self.type_name)

    def parse(self, value: Any) -> Any:
        """The typed value of `value` (`Text` from the command line or a sweep file, or a Python value); None
        stays None. A Python string is never taken for a bool or a number."""
        if value is None:
            return None
        label = self.label
        if _python_string(value) and (self.kind in ("bool", "int", "float") or self.item != "str"):
            raise OptionError(f"{label} expects {self.python_type}, got the string {value!r}")
        if self.kind == "bool":
            return parse_bool(value, label)
        if self.kind in ("int", "float"):
            return self._number(value, label)
        if self.kind == "list":
            return self._list(value, label)
        if not isinstance(value, (str, Path)):
            raise OptionError(f"{label} expects {'a path' if self.kind == 'path' else 'a string'}, got {value!r}")
        if self.kind == "path":
            return Path(value)
        text = str(value)
        if self.kind == "choice" and text not in self.choices:
            raise OptionError(f"{label}: unknown value {text!r}; choose from {', '.join(self.choices)}")
        return text

    def _list(self, value: Any, label: str) -> tuple[Any, ...]:
        if isinstance(value, str):
            items: list[Any] = [Text(v) if isinstance(value, Text) else v for v in value.split(",")]
        elif isinstance(value, Sequence):
            items = list(value)
        else:
            raise OptionError(f"{label} expects a list (or comma-separated text), got {value!r}")
        items = [type(v)(v.strip()) if isinstance(v, str) else v for v in items]  # Text stays Text
        items = [v for v in items if not (isinstance(v, str) and not v)]
        if self.item == "str":
            return tuple(str(v) for v in items)
        return tuple(replace(self, kind=self.item, item="str").parse(v) for v in items)

    def _number(self, value: Any, label: str) -> int | float:
        convert = int if self.kind == "int" else float
        if isinstance(value, bool) or (self.kind == "int" and isinstance(value, float) and not value.is_integer()):
            raise OptionError(f"{label} expects a{'n integer' if self.kind == 'int' else ' number'}, got {value!r}")
        try:
            number = convert(value)
        except (TypeError, ValueError):
            kind = "an integer" if self.kind == "int" else "a number"
            raise OptionError(f"{label} expects {kind}, got {value!r}") from None
        if self.minimum is not None and number < self.minimum:
            raise OptionError(f"{label} must be at least {self.minimum:g}, got {number!r}")
        return number

    def to_json(self, value: Any) -> Any:
        """How the run record writes a typed value (paths as text, lists as lists)."""
        if isinstance(value, Path):
            return str(value)
        if isinstance(value, tuple):
            return list(value)
        return value

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type_name, "default": self.to_json(self.default), "help": self.help,
                "flag": self.flag or f"--set {self.name}=VALUE"}


class Params:
    """An ordered set of Params, by name. `a + b` joins two sets (a name in both must be declared alike)."""

    def __init__(self, *params: Param):
        self._params: dict[str, Param] = {}
        for param in params:
            known = self._params.get(param.name)
            if known is not None and known != param:
                raise ValueError(f"option {param.name!r} is declared twice, differently: {known} and {param}")
            self._params[param.name] = param

    def __iter__(self) -> Iterator[Param]:
        return iter(self._params.values())

    def __contains__(self, name: object) -> bool:
        return name in self._params

    def __getitem__(self, name: str) -> Param:
        return self._params[name]

    def __len__(self) -> int:
        return len(self._params)

    def __add__(self, other: "Params") -> "Params":
        return Params(*self, *other)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Params) and list(self) == list(other)

    def __hash__(self) -> int:  # immutable once made: a frozen registry row may hold one
        return hash(tuple(self._params.values()))

    def __repr__(self) -> str:
        return f"Params({', '.join(self._params)})"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._params)

    def check_names(self, given: Iterable[str], owner: str, flags: Mapping[str, str] | None = None) -> None:
        """Unknown names are an error listing every valid one with its type; `flags` gives the flag of the
        options the caller knows by one (`sense` -> `--sense`), so an unknown one is named by it."""
        unknown = [name for name in given if name not in self._params]
        if not unknown:
            return
        listed = "; ".join(f"{p.label} ({p.type_name})" for p in self) or "none"
        what = ", ".join(option_label(n, (flags or {}).get(n)) for n in unknown)
        close = [p.label for n in unknown for m in difflib.get_close_matches(n, self.names, n=1) for p in [self[m]]]
        hint = f"; did you mean {' and '.join(dict.fromkeys(close))}?" if close else ""
        error = OptionError(f"unknown option{'s' if len(unknown) > 1 else ''} {what} for {owner}; valid: {listed}{hint}")
        error.unknown, error.declared = tuple(unknown), tuple(self)  # the Python API lists its keywords from these
        raise error

    def resolve(self, given: Mapping[str, Any], owner: str) -> dict[str, Any]:
        """Every option's typed value: the given ones parsed, the rest their defaults (typed the same way)."""
        self.check_names(given, owner)
        values = {}
        for param in self:
            values[param.name] = param.parse(given[param.name] if param.name in given else param.default)
        return values

    def to_json(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return {name: self._params[name].to_json(value) if name in self._params else value
                for name, value in values.items()}

    def describe(self) -> list[dict[str, Any]]:
        return [p.describe() for p in self]


# ---------------------------------------------------------------- options declared on the class that reads them

_PARAM = "senso.param"  # the key of a field's metadata that holds its declaration
_PART = "senso.part"  # the key of a field's metadata that marks it a part (its Configurable class)


def param(default: Any, help: str, *, choices: Iterable[str] = (), flag: str | None = None,
          minimum: float | None = None) -> Any:
    """A dataclass field that declares an option of its class: its name and type annotation are the option's
    (bool, int, float, str, Path, tuple[str | int | float, ...], each maybe `| None`); `choices` makes a str a
    choice; `flag` is its own command-line flag (else `--set NAME=VALUE`); `minimum` bounds a number."""
    if isinstance(default, (list, dict, set)):
        raise ValueError(f"an option's default is immutable (a tuple for a list), got {default!r}")
    spec = {"help": help, "choices": tuple(choices), "flag": flag, "minimum": minimum}
    return dataclasses.field(default=default, metadata={_PARAM: spec})


def part(cls: type, **defaults: Any) -> Any:
    """A dataclass field holding a part of its class: an object of `cls` (a Configurable), made with `defaults`
    where the holder wants other defaults than the part's own (e.g. fitted-pipeline's learned sense). The
    part's options are its holder's too, named `part__name` by `get_params`/`set_params` and by their own
    name on the command line (`declared`, `option_paths`)."""
    if not (isinstance(cls, type) and issubclass(cls, Configurable)):
        raise ValueError(f"a part is a Configurable, got {cls!r}")
    return dataclasses.field(default_factory=functools.partial(cls, **defaults), metadata={_PART: cls})


_KINDS = {bool: "bool", int: "int", float: "float", str: "str", Path: "path"}


def _kind(hint: Any, name: str, choices: tuple[str, ...]) -> tuple[str, str]:
    """(kind, item) of a field's type annotation, `X | None` read as X."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        kept = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(kept) != 1:
            raise ValueError(f"option {name!r}: one type (or it | None), got {hint}")
        hint = kept[0]
    args = [a for a in typing.get_args(hint) if a is not Ellipsis]
    origin = typing.get_origin(hint)
    if origin in (tuple, Sequence) and len(args) == 1 and args[0] in (str, int, float):
        return "list", args[0].__name__
    if hint in _KINDS:
        kind = _KINDS[hint]
        return ("choice" if kind == "str" and choices else kind), "str"
    raise ValueError(f"option {name!r}: no option type for {hint}")


def _leaves(cls: type, defaults: Any = None) -> list[tuple[str, Param]]:
    """(path, Param) of every option `cls` and its parts declare, in field order; `defaults`, an object of `cls`
    whose values are the defaults (a part made with its holder's defaults)."""
    hints = typing.get_type_hints(cls)
    found: list[tuple[str, Param]] = []
    for f in dataclasses.fields(cls):
        if _PART in f.metadata:
            inner = f.default_factory() if defaults is None else getattr(defaults, f.name)
            found += [(f"{f.name}__{path}", p) for path, p in _leaves(type(inner), inner)]
        spec = f.metadata.get(_PARAM)
        if spec is not None:
            kind, item = _kind(hints[f.name], f.name, spec["choices"])
            default = f.default if defaults is None else getattr(defaults, f.name)
            found.append((f.name, Param(f.name, kind, default, spec["help"], spec["choices"], spec["flag"],
                                        spec["minimum"], item)))
    return found


@functools.cache
def option_paths(cls: type) -> dict[str, str]:
    """Option name -> its path among the parameters of `cls` (`sense` -> `classifier__sense`): the one map from
    the names users give (`--sense`, `--set hedge=...`, `senso.evaluate(..., roles=...)`) to the nested values.
    A name two parts declare would be ambiguous, so it is refused."""
    paths: dict[str, str] = {}
    for path, p in _leaves(cls):
        if p.name in paths:
            raise ValueError(f"{cls.__name__}: option {p.name!r} is declared by {paths[p.name]} and {path}")
        paths[p.name] = path
    return paths


@functools.cache
def declared(cls: type) -> Params:
    """The options class `cls` declares, its parts' included (their `param` fields, in order), as Params named
    as users give them (`option_paths`)."""
    option_paths(cls)  # refuses a name declared by two parts
    return Params(*(p for _, p in _leaves(cls)))


class Configurable:
    """scikit-learn's parameter protocol for a dataclass: its parameters are its `__init__` fields (the `param`
    ones are its declared options, typed and checked by their declaration); a field holding another
    Configurable is a part, whose own parameters `get_params(deep=True)` and `set_params` name `part__name`."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Every parameter's value, by name (every `__init__` field); `deep`: each part's too, as `part__name`."""
        values: dict[str, Any] = {}
        for name in _init_names(type(self)):
            value = values[name] = getattr(self, name)
            if deep and isinstance(value, Configurable):
                values.update({f"{name}__{key}": inner for key, inner in value.get_params(deep=True).items()})
        return values

    def set_params(self, **values: Any) -> "Configurable":
        """Sets the given parameters, a part's as `part__name`, each checked by its declaration or its type (an
        unknown name, or a wrong value, is an OptionError naming it as given), then the object's own checks
        (`__post_init__`, each changed part's first) run again; a refused call sets nothing. Returns the object,
        as scikit-learn's `set_params` does."""
        _check_known(type(self), [key for key in values if "__" not in key], _init_names(type(self)))
        typed: dict[str, Any] = {}
        parts: dict[str, dict[str, Any]] = {}
        for key, value in values.items():
            name, _, inner = key.partition("__")
            if inner:
                _check_nested(self, key, value)
                parts.setdefault(name, {})[inner] = value
            else:
                typed[name] = _typed(type(self), name, value)
        before = _snapshot(self)
        try:
            for name, value in typed.items():
                object.__setattr__(self, name, value)
            for name, inner in parts.items():
                getattr(self, name).set_params(**inner)
            post_init = getattr(self, "__post_init__", None)
            if post_init is not None:
                post_init()
        except Exception:
            _restore(self, before)
            raise
        return self

    @classmethod
    def from_values(cls, values: Mapping[str, Any], **others: Any):
        """An object of `cls` made with `others`, its options (its parts' too) set to typed `values` by the names
        users give (`Params.resolve`'s; names it does not declare are left out), each put in place by
        `option_paths`."""
        paths = option_paths(cls)
        return cls(**others).set_params(**{paths[name]: value for name, value in values.items() if name in paths})


def _check_nested(configurable: Configurable, key: str, value: Any) -> None:
    """`value` of the part parameter `key` (`part__name`, any depth), checked; an OptionError names `key`."""
    name, _, inner = key.partition("__")
    _check_known(type(configurable), [name], _init_names(type(configurable)))
    part = getattr(configurable, name)
    if not isinstance(part, Configurable):
        raise OptionError(f"{name} of {type(configurable).__name__} is not a part with parameters of its own; "
                          f"set it as {name}=VALUE")
    inner_name, _, deeper = inner.partition("__")
    try:
        if deeper:
            _check_nested(part, inner, value)
        else:
            _check_known(type(part), [inner_name], _init_names(type(part)))
            _typed(type(part), inner_name, value)
    except OptionError as exc:
        raise OptionError(f"{key}: {exc}") from None


def _snapshot(configurable: Configurable) -> dict[str, tuple[Any, Any]]:
    """Each parameter's value (a part: the object and its own snapshot), to put back after a refused change."""
    return {name: (value, _snapshot(value) if isinstance(value, Configurable) else None)
            for name, value in configurable.get_params(deep=False).items()}


def _restore(configurable: Configurable, snapshot: Mapping[str, tuple[Any, Any]]) -> None:
    for name, (value, inner) in snapshot.items():
        object.__setattr__(configurable, name, value)
        if inner is not None:
            _restore(value, inner)


def clone(configurable: Configurable) -> Configurable:
    """A new object of the same class with the same parameters, unfitted (scikit-learn's `clone`): each part is
    cloned too; other values (a cache, a loader) are shared, as they are not the object's state."""
    if not isinstance(configurable, Configurable):
        raise SensoError(f"clone takes an object with get_params/set_params (a Configurable), got "
                         f"{type(configurable).__name__}")
    values = {name: clone(value) if isinstance(value, Configurable) else value
              for name, value in configurable.get_params(deep=False).items()}
    return type(configurable)(**values)


@functools.cache
def _init_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


@functools.cache
def _own(cls: type) -> Params:
    """The options `cls` declares itself (not its parts')."""
    return Params(*(p for path, p in _leaves(cls) if path == p.name))


def _check_known(cls: type, given: Sequence[str], names: Sequence[str]) -> None:
    """An unknown parameter is an OptionError: an options class's names its options (with their types); any
    other class's, its parameters."""
    params = _own(cls)
    if set(params.names) == set(names):
        params.check_names(given, cls.__name__)
        return
    unknown = [name for name in given if name not in names]
    if unknown:
        paths = option_paths(cls)  # a part's option given by its own name: its path is what was meant
        close = [paths.get(name) or next(iter(difflib.get_close_matches(name, names, n=1)), None) for name in unknown]
        close = [name for name in close if name]
        hint = f"; did you mean {' and '.join(dict.fromkeys(close))}?" if close else ""
        raise OptionError(f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} of "
                          f"{cls.__name__}; valid: {', '.join(names)}{hint}")


def _typed(cls: type, name: str, value: Any) -> Any:
    """`value` of parameter `name` of `cls`, parsed by its declaration, else checked against its type hint where
    the hint is a plain option type (bool, int, float, str, Path, a tuple of them); other values (objects) are
    left to the class's own checks."""
    params = _own(cls)
    if name in params:
        return params[name].parse(value)
    part_class = _part_class(cls, name)
    if part_class is not None:
        if not isinstance(value, part_class):
            raise OptionError(f"{name} of {cls.__name__} is a part, an object of {part_class.__name__}; got "
                              f"{type(value).__name__} {value!r}")
        return value
    try:
        kind, item = _kind(typing.get_type_hints(cls)[name], name, ())
    except ValueError:
        return value
    return Param(name, kind, item=item).parse(value)


def _part_class(cls: type, name: str) -> type | None:
    """The class of part `name` of `cls` (None: `name` is no part)."""
    found = next((f for f in dataclasses.fields(cls) if f.name == name), None)
    return None if found is None else found.metadata.get(_PART)


@dataclass
class NoOptions(Configurable):
    """The options of a system that declares none."""
