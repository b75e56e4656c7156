"""The command line's application: the typer app and its groups, the two consoles (stdout for results, stderr
for progress and notes), the flags every command shares, and `main` (errors as one line, exit codes)."""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from senso import catalog
from senso.catalog import RUN_FIELDS, families
from senso.core.errors import RunInterrupted, SensoError
from senso.core.terminal import labelled, terminal

app = typer.Typer(add_completion=False, no_args_is_help=True, help="senso: graded, context-dependent meaning benchmarks.")
data_app = typer.Typer(no_args_is_help=True, help="Data sets: statistics, downloads, and what two of them share.")
app.add_typer(data_app, name="data")

console = terminal(stderr=True)
out = terminal()

DATA_DIR_HELP = RUN_FIELDS["data_dir"].help


SYSTEM_HELP = "What predicts (default: the published protocol); `senso systems` describes each."


class LiveCommand:
    """A command whose options (`parameters()`) and help (`doc()`, default: the function's docstring) are made
    each time the command line is built, so that a family registered at run time brings its options, flags and
    words; calling it calls `function(**values)`."""

    def __init__(self, function: Callable[..., Any], parameters: Callable[[], list[inspect.Parameter]],
                 doc: Callable[[], str] | None = None):
        self.function, self.parameters = function, parameters
        self.doc = doc or (lambda: function.__doc__ or "")
        self.__name__, self.__annotations__ = function.__name__, {}

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.Signature(self.parameters())

    @property
    def __doc__(self) -> str:  # type: ignore[override]  (typer reads a command's help here)
        return self.doc()

    def __call__(self, **values: Any) -> Any:
        return self.function(**values)


def family_flags() -> list[inspect.Parameter]:
    """The families' system flags (`Family.flags`: `--sense` ...) as command options, in each family's panel."""
    params = []
    for family in families():
        for param in family.flags():
            annotation = Optional[Path] if param.kind == "path" else Optional[str]
            option = typer.Option(None, param.flag, help=f"{param.help} ({param.type_name}).",
                                  rich_help_panel=family.flags_panel or None)
            params.append(inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                                            default=option))
    return params


def flagged_values(values: dict[str, Any]) -> dict[str, Any]:
    """The values given for the families' system flags (`family_flags`), by option name, taken out of `values`."""
    names = {param.name for family in families() for param in family.flags()}
    given = {name: values.pop(name) for name in names if name in values}
    return {name: value for name, value in given.items() if value is not None}


@dataclass(frozen=True)
class CommandLine:
    """What a family's `commands` registers its own commands on: the typer app and the two consoles."""

    app: Any
    out: Any
    console: Any


_ADDED: dict[Any, tuple[list[Any], list[Any]]] = {}  # family -> the commands and groups it registered


def family_commands(family: Any, added: bool) -> None:
    """Register a family's own commands (`Family.commands`), or remove them when the family leaves the table."""
    if not added:
        commands, groups = _ADDED.pop(family, ([], []))
        app.registered_commands[:] = [c for c in app.registered_commands if c not in commands]
        app.registered_groups[:] = [g for g in app.registered_groups if g not in groups]
        return
    if family.commands is None or family in _ADDED:
        return
    before = list(app.registered_commands), list(app.registered_groups)
    family.commands(CommandLine(app, out, console))
    _ADDED[family] = ([c for c in app.registered_commands if c not in before[0]],
                      [g for g in app.registered_groups if g not in before[1]])


def _version(value: bool) -> None:
    if value:
        from senso.core.version import __version__

        out.print(f"senso {__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print senso's version and exit."),
) -> None:
    """senso: graded, context-dependent meaning benchmarks."""


def _parse_set(pairs: list[str], flag: str = "--set") -> dict[str, str]:
    """`--set KEY=VALUE` pairs (repeatable; or another such `flag`, `--model-args`) as a dict of `Text` values
    (parsed by each option's type: `hedge=off` is False); a key given twice is an error."""
    from senso.core.params import Text

    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SensoError(f"{flag} expects KEY=VALUE, got {pair!r}")
        if key.strip() in options:
            raise SensoError(f"{flag} {key.strip()} is given twice; keep one")
        options[key.strip()] = Text(value)
    return options


def bool_flags(command) -> set[str]:
    """Every on/off flag of `command` and its subcommands (`--no-cache`, `--json` ...)."""
    flags = {opt for param in command.params if getattr(param, "is_flag", False) for opt in param.opts}
    for sub in getattr(command, "commands", {}).values():
        flags |= bool_flags(sub)
    return flags


def normalise_args(args: list[str], flags: set[str]) -> list[str]:
    """`--no-cache=true` -> `--no-cache`, `--no-cache=false` -> nothing (for every on/off flag in `flags`); a flag
    of a family's own command given to `senso run` is refused with the family's word on it (`Family.run_refuses`)."""
    from senso.core.params import parse_bool

    for family in families():
        for refused, message in family.run_refuses.items():
            if args[:1] == ["run"] and any(a.partition("=")[0] == refused for a in args):
                raise SensoError(message)
    result = []
    for arg in args:
        flag, sep, value = arg.partition("=")
        if sep and flag in flags:
            if parse_bool(value, flag):
                result.append(flag)
        else:
            result.append(arg)
    return result


def _systems_help() -> str:
    """Every system name, per task (imported only for `--help`: the registries are slow to import)."""
    return " ".join([SYSTEM_HELP, *(family.systems_help() for family in families())])


def _literal_help(command) -> None:
    """Escape every help text of `command` and its subcommands, so that typer's rich help prints `[grid]`,
    `[options]` and paths as written instead of reading them as markup (and dropping them)."""
    from rich.markup import escape

    for item in (command, *command.params):
        for name in ("help", "short_help", "epilog"):
            if isinstance(getattr(item, name, None), str):
                setattr(item, name, escape(getattr(item, name)))
    for sub in getattr(command, "commands", {}).values():
        _literal_help(sub)


def main(args: list[str] | None = None) -> None:
    try:
        command = typer.main.get_command(app)
        argv = normalise_args(sys.argv[1:] if args is None else list(args), bool_flags(command))
        if "--help" in argv and "run" in argv:
            for param in command.commands["run"].params:
                if param.name == "system":
                    param.help = _systems_help()
        _literal_help(command)
        command.main(args=argv, prog_name="senso", standalone_mode=True)
    except RunInterrupted as exc:  # SIGINT / SIGTERM during a run: what was kept, and 128 + the signal
        console.print(labelled("stopped:", "bold red", str(exc)), soft_wrap=True)
        sys.exit(exc.exit_code)
    except SensoError as exc:
        console.print(labelled("error:", "bold red", str(exc)), soft_wrap=True)
        sys.exit(2)
