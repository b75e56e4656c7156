"""Options declared once, typed (as scikit-learn's estimators declare their parameters).

A `Param` says an option's name, type, default, allowed values and one line of help; a `Params` is the
ordered set a system (or a part of one: sense, meaning, ranker, aggregator, roles, a backend's settings)
reads. From that one declaration come:
- parsing and validation of values given as text (`--set KEY=VALUE`, the part flags such as `--sense`) or
  as Python values (`senso.evaluate(..., hedge=False)`): `Params.resolve`; one yes/no parser, `parse_bool`;
- the error for an unknown key, listing the valid ones with their types;
- `senso systems NAME` (`Params.describe`) and the run record (the typed values `resolve` returns).

Messages name options as the command line does (`--sense`, `--set hedge`, `--limit`); the Python API
translates them to its keyword arguments (`python_message`: `--set hedge` -> `hedge=`), from the same
declarations, so each message is written once and reads right on both surfaces.
"""

from __future__ import annotations

import re
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

    def parse(self, value: Any) -> Any:
        """The typed value of `value` (text from the command line, or a Python value); None stays None."""
        if value is None:
            return None
        label = self.label
        if self.kind == "bool":
            return parse_bool(value, label)
        if self.kind in ("int", "float"):
            return self._number(value, label)
        if self.kind == "list":
            items = value.split(",") if isinstance(value, str) else list(value)
            texts = tuple(str(v).strip() for v in items if str(v).strip())
            return texts if self.item == "str" else tuple(replace(self, kind=self.item, item="str").parse(v) for v in texts)
        if self.kind == "path":
            return Path(value)
        text = str(value)
        if self.kind == "choice" and text not in self.choices:
            raise OptionError(f"{label}: unknown value {text!r}; choose from {', '.join(self.choices)}")
        return text

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

    def with_defaults(self, **defaults: Any) -> "Params":
        """The same options with other defaults (e.g. fitted-pipeline: sense-pipeline's, with learned parts)."""
        unknown = set(defaults) - set(self._params)
        if unknown:
            raise ValueError(f"no options {sorted(unknown)} to give defaults to")
        return Params(*(replace(p, default=defaults.get(p.name, p.default)) for p in self))

    def without(self, names: Iterable[str]) -> "Params":
        drop = set(names)
        return Params(*(p for p in self if p.name not in drop))

    def check_names(self, given: Iterable[str], owner: str, flags: Mapping[str, str] | None = None) -> None:
        """Unknown names are an error listing every valid one with its type; `flags` gives the flag of the
        options the caller knows by one (`sense` -> `--sense`), so an unknown one is named by it."""
        unknown = [name for name in given if name not in self._params]
        if not unknown:
            return
        listed = "; ".join(f"{p.label} ({p.type_name})" for p in self) or "none"
        what = ", ".join(option_label(n, (flags or {}).get(n)) for n in unknown)
        error = OptionError(f"unknown option{'s' if len(unknown) > 1 else ''} {what} for {owner}; valid: {listed}")
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


NO_PARAMS = Params()
