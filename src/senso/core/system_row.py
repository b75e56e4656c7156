"""What every family's table of systems shares: a row's declared options (`params`, `typed`), the error for a name
it does not hold, and the refusal of a model flag its system does not read (`MODEL_FLAGS`).

A row (Likert's `LikertSystem`, AdMIRe's `AdmireSystem`) is a frozen dataclass of its family's fields that mixes in
`SystemRow`: it holds `name`, `options` (the class declaring the system's own options, `core.params`) and `flags`
(the RunOptions fields among the model flags that its system reads).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from senso.core.errors import SensoError
from senso.core.options import run_fields
from senso.core.params import Params, declared

# The model options (RunOptions fields) a system may read; a row's `flags` names its own.
MODEL_FLAGS = ("model", "backend", "base_url", "embedder", "generator", "image_model")


class SystemRow:
    """A registry row's declared options: `params` (the options class as `Params`) and `typed(values)`."""

    name: str
    options: type
    flags: tuple[str, ...]

    @property
    def params(self) -> Params:
        """Its own options, as its options class declares them."""
        return declared(self.options)

    def typed(self, values: Mapping[str, Any]) -> Any:
        """The object of its options class holding `values` (typed by `Params.resolve`)."""
        return self.options.from_values(values)


def unknown_system(kind: str, name: str, names: Iterable[str]) -> SensoError:
    """The error for a system name a table does not hold, listing the ones it does (`kind`: "Likert", "admire-a")."""
    return SensoError(f"unknown {kind} system {name!r}; choose from {', '.join(names)}")


def refuse_unread_flags(options: Any, reads: Iterable[str], owner: str, flags: tuple[str, ...] = MODEL_FLAGS) -> None:
    """SensoError for the first of `flags` the run gives that the system (`owner`, as messages name it: `--system
    NAME`) does not read (`reads`, RunOptions fields), saying which it reads."""
    reads = tuple(reads)
    for name in flags:
        if getattr(options, name) not in (None, False) and name not in reads:
            fields = run_fields(type(options))
            listed = ", ".join(fields[f].flag for f in reads) or "none of them"
            raise SensoError(f"{fields[name].flag} is not used by {owner} (it reads {listed}): leave it out")


def refuse_name_and_object(options: Any) -> None:
    """SensoError when a run names a registered system (--system) and was given a researcher's system object too."""
    if options.system is not None:
        raise SensoError("--system names a registered system, but a system object was given too: give one of them")
