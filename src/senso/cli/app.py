"""The command line's application: the typer app and its groups, the two consoles (stdout for results, stderr
for progress and notes), the flags every command shares, and `main` (errors as one line, exit codes)."""

from __future__ import annotations

import sys

import typer

from senso.catalog import RUN_FIELDS, all_tasks
from senso.core.errors import RunInterrupted, SensoError
from senso.core.terminal import labelled, terminal

app = typer.Typer(add_completion=False, no_args_is_help=True, help="senso: graded, context-dependent meaning benchmarks.")
data_app = typer.Typer(no_args_is_help=True, help="Data sets: statistics, downloads, and what two of them share.")
app.add_typer(data_app, name="data")

console = terminal(stderr=True)
out = terminal()

DATA_DIR_HELP = RUN_FIELDS["data_dir"].help


SYSTEM_HELP = "What predicts (default: the published protocol); `senso systems` describes each."


BOOL_FLAGS = ("--no-cache", "--chat-template", "--allow-partial", "--no-thumbnails", "--force", "--json", "--quiet",
              "--by-domain")


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


ALLOW_PARTIAL_IN_RUN = (
    "--allow-partial is an AdMIRe option of `senso score`, `senso submission pack` and `senso leaderboard` (which "
    "refuse a partial file without it); `senso run` does not use it: a run on part of a split (--limit, or a data "
    "file shorter than the official split) is scored anyway and marked PARTIAL. Leave it out")


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


def normalise_args(args: list[str]) -> list[str]:
    """`--no-cache=true` -> `--no-cache`, `--no-cache=false` -> nothing (for every flag in BOOL_FLAGS)."""
    from senso.core.params import parse_bool

    if args[:1] == ["run"] and any(a.partition("=")[0] == "--allow-partial" for a in args):
        raise SensoError(ALLOW_PARTIAL_IN_RUN)
    result = []
    for arg in args:
        flag, sep, value = arg.partition("=")
        if sep and flag in BOOL_FLAGS:
            if parse_bool(value, flag):
                result.append(flag)
        else:
            result.append(arg)
    return result


def _systems_help() -> str:
    """Every system name, per task (imported only for `--help`: the registries are slow to import)."""
    return " ".join([SYSTEM_HELP, *dict.fromkeys(task.systems_help() for task in all_tasks())])


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
        argv = normalise_args(sys.argv[1:] if args is None else list(args))
        command = typer.main.get_command(app)
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
