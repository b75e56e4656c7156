"""Options declared once, on the class that reads them (`senso.core.params`)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from senso.core.errors import SensoError
from senso.core.params import _PARAM, Configurable, OptionError, Text, _kind, clone, declared, option_paths, param, part


@dataclass
class Toy(Configurable):
    hedge: bool = param(True, "hedges")
    mode: str = param("pointwise", "the mode", choices=("pointwise", "list"))
    orders: int = param(5, "orders", minimum=1)
    weights: tuple[float, ...] | None = param(None, "weights")
    members: tuple[str, ...] = param(("a", "b"), "members", flag="--members")
    glossary: Path | None = param(None, "a file", flag="--glossary")


@dataclass
class Reader(Configurable):
    source: str
    hedge: bool = Toy.hedge
    orders: int = 3


def test_the_declaration_gives_names_types_defaults_and_flags():
    described = {d["name"]: d for d in declared(Toy).describe()}
    assert list(described) == ["hedge", "mode", "orders", "weights", "members", "glossary"]
    assert described["mode"]["type"] == "pointwise | list" and described["orders"]["type"] == "int >= 1"
    assert described["weights"]["type"] == "comma-separated floats" and described["members"]["default"] == ["a", "b"]
    assert described["glossary"]["flag"] == "--glossary" and described["hedge"]["flag"] == "--set hedge=VALUE"
    assert len(declared(Reader)) == 0  # a class that reads options declares none of its own


def test_text_is_parsed_and_python_values_are_taken_strictly():
    params = declared(Toy)
    typed = params.resolve({"hedge": Text("off"), "orders": Text("2"), "weights": Text("1, 2"), "members": "x,y"}, "t")
    assert typed == {"hedge": False, "mode": "pointwise", "orders": 2, "weights": (1.0, 2.0), "members": ("x", "y"),
                     "glossary": None}
    assert params.resolve({"weights": [1, 2.5], "hedge": False}, "t")["weights"] == (1.0, 2.5)
    for given, message in [({"hedge": "off"}, "--set hedge expects True or False, got the string 'off'"),
                           ({"orders": "3"}, "--set orders expects an integer, got the string '3'"),
                           ({"weights": "1,2"}, "--set weights expects a list of floats, got the string '1,2'"),
                           ({"orders": 0}, "--set orders must be at least 1"),
                           ({"glossary": 3}, "--glossary expects a path, got 3"),
                           ({"mode": "lists"}, "--set mode: unknown value 'lists'; choose from pointwise, list")]:
        with pytest.raises(OptionError, match=message):
            params.resolve(given, "t")


def test_an_unknown_option_lists_the_valid_ones_and_suggests_the_closest():
    with pytest.raises(OptionError) as caught:
        declared(Toy).resolve({"hedges": True}, "--system toy")
    message = str(caught.value)
    assert message.startswith("unknown option --set hedges for --system toy; valid: --set hedge (bool); --set mode "
                              "(pointwise | list)")
    assert message.endswith("--glossary (path); did you mean --set hedge?")
    with pytest.raises(OptionError, match=r"unknown option --set zzz for t; valid: .*\(path\)$"):
        declared(Toy).resolve({"zzz": 1}, "t")


def test_get_params_and_set_params():
    reader = Reader("s")
    assert reader.get_params() == {"source": "s", "hedge": True, "orders": 3}  # every parameter, declared or not
    assert reader.set_params(hedge=False, orders=Text("4")) is reader and reader.get_params() == {
        "source": "s", "hedge": False, "orders": 4}
    with pytest.raises(OptionError, match=r"unknown parameter order of Reader; valid: source, hedge, orders; "
                                          r"did you mean orders\?"):
        reader.set_params(order=2)
    with pytest.raises(OptionError, match="expects True or False"):
        reader.set_params(hedge="no")
    with pytest.raises(OptionError, match="--set source expects a string, got 3"):  # typed by its annotation
        reader.set_params(source=3)
    with pytest.raises(OptionError, match="--set hedge expects True or False"):
        reader.set_params(orders=2, hedge="no")
    assert reader.orders == 4  # a refused call sets nothing
    with pytest.raises(OptionError, match="did you mean --set orders"):  # a class of options alone: their types
        Toy().set_params(order=2)
    toy = Toy.from_values({"hedge": False, "unrelated": 1})
    assert toy.hedge is False and toy.orders == 5


@dataclass
class Checked(Configurable):
    low: int = param(1, "low")
    high: int = param(2, "high")

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise SensoError(f"low {self.low} is above high {self.high}")


@dataclass
class Nested(Configurable):
    part: Checked = dataclasses.field(default_factory=Checked)
    name: str = "n"


def test_set_params_runs_the_class_checks_and_reaches_nested_parts_and_clone_copies():
    checked = Checked()
    with pytest.raises(SensoError, match="low 5 is above high 2"):
        checked.set_params(low=5)
    assert checked.get_params() == {"low": 1, "high": 2}  # refused by its own checks: left as it was
    nested = Nested()
    assert nested.get_params() == {"part": nested.part, "part__low": 1, "part__high": 2, "name": "n"}
    assert nested.get_params(deep=False) == {"part": nested.part, "name": "n"}
    nested.set_params(part__high=9, name="m")
    assert (nested.part.high, nested.name) == (9, "m")
    with pytest.raises(OptionError, match="name of Nested is not a part"):
        nested.set_params(name__x=1)
    copy = clone(nested)
    assert copy.part is not nested.part and copy.get_params(deep=False).keys() == nested.get_params(deep=False).keys()
    assert copy.get_params()["part__high"] == 9 and copy.name == "m"
    with pytest.raises(SensoError, match="clone takes an object with get_params"):
        clone(object())


@dataclass
class Whole(Configurable):
    """Options made of parts: the toy's with another default, and the checked part."""

    toy: Toy = part(Toy, orders=2)
    bounds: Checked = part(Checked)
    label: str = param("w", "its own option")


def test_parts_are_typed_values_named_part__name_and_by_their_own_name_for_users():
    whole = Whole()
    assert isinstance(whole.toy, Toy) and whole.toy.orders == 2 and Toy().orders == 5
    assert option_paths(Whole)["orders"] == "toy__orders" and option_paths(Whole)["low"] == "bounds__low"
    assert [p.name for p in declared(Whole)] == [*declared(Toy).names, "low", "high", "label"]
    assert declared(Whole)["orders"].default == 2  # the holder's default
    params = whole.get_params()
    assert params["toy__orders"] == 2 and params["bounds__high"] == 2 and params["toy"] is whole.toy
    made = Whole.from_values(declared(Whole).resolve({"orders": Text("4"), "low": 2, "label": "x"}, "t"))
    assert (made.toy.orders, made.bounds.low, made.label, made.toy.hedge) == (4, 2, "x", True)
    assert whole.set_params(toy__mode="list", bounds__high=7) is whole and whole.toy.mode == "list"
    copy = clone(whole)
    assert copy.toy is not whole.toy and copy.bounds is not whole.bounds and copy.get_params() == whole.get_params()
    copy.set_params(toy__hedge=False)
    assert whole.toy.hedge is True  # a deep copy: the clone's parts are its own


def test_a_wrong_part_value_is_an_error_naming_part__name_and_sets_nothing():
    whole = Whole()
    before = whole.get_params()
    for given, message in [({"toy__orders": 0}, "toy__orders: --set orders must be at least 1"),
                           ({"toy__mode": "lists"}, "toy__mode: --set mode: unknown value 'lists'"),
                           ({"toy__nope": 1}, "toy__nope: unknown option --set nope for Toy"),
                           ({"nope__x": 1}, "unknown parameter nope of Whole"),
                           ({"orders": 3}, r"unknown parameter orders of Whole; .*did you mean toy__orders\?"),
                           ({"label__x": 1}, "label of Whole is not a part"),
                           ({"label": "y", "bounds__low": 9}, "low 9 is above high 2")]:
        with pytest.raises(SensoError, match=message):
            whole.set_params(**given)
        assert whole.get_params() == before  # a refused call sets nothing, in any part
    assert whole.toy.get_params() == {**Toy().get_params(), "orders": 2}


@dataclass
class Clash(Configurable):
    toy: Toy = part(Toy)
    hedge: bool = param(False, "a second hedge")


def test_declarations_refuse_what_they_cannot_type():
    with pytest.raises(ValueError, match="immutable"):
        param([1], "a list default")
    with pytest.raises(ValueError, match="option 'hedge' is declared by toy__hedge and hedge"):
        declared(Clash)
    with pytest.raises(ValueError, match="a part is a Configurable"):
        part(str)


def _classes(package: str) -> list[type]:
    found = []
    module = importlib.import_module(package)
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == info.name:
                found.append(value)
    return found


def _option_typed(cls: type, field: dataclasses.Field) -> bool:
    import typing

    try:
        _kind(typing.get_type_hints(cls)[field.name], field.name, ())
    except (ValueError, KeyError, NameError):
        return False
    return True


# Fields that share an option's name but are another setting (each with why).
NOT_THE_OPTION = {
    ("PriorSettings", "kind"): "the lexical prior's own e5 prefix, fixed (part of its cache key); not --set kind",
}


@pytest.mark.parametrize("package", ["senso.admire.systems", "senso.likert.systems"])
def test_no_option_is_declared_twice(package):
    """Each option of a family's systems is declared once: every class that declares an option of that name
    declares it alike (one declaration, e.g. `parts._modality()`), and every class that reads it takes the
    declaring class's default (`StructureRanker.hedge = RankerOptions.hedge`), never another."""
    classes = _classes(package)
    declarations: dict[str, tuple[dict, object]] = {}
    for cls in classes:
        for field in dataclasses.fields(cls):
            spec = field.metadata.get(_PARAM)
            if spec is not None:
                known = declarations.setdefault(field.name, (spec, field.default))
                assert known[0] == spec, f"{cls.__name__}.{field.name} declares option {field.name!r} a second time"
    assert {"hedge", "mode", "orders", "aggregator"} <= set(declarations) or package.startswith("senso.likert")
    for cls in classes:
        for field in dataclasses.fields(cls):
            if field.name in declarations and _PARAM not in field.metadata and _option_typed(cls, field) \
                    and (cls.__name__, field.name) not in NOT_THE_OPTION \
                    and field.default is not declarations[field.name][1]:
                pytest.fail(f"{cls.__module__}.{cls.__name__}.{field.name} has its own default for option "
                            f"{field.name!r}: take the declaring class's (`= DeclaringOptions.{field.name}`)")
