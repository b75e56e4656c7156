"""`senso systems` (every system and part, a line each; or one system's options) and `senso tasks`."""

from __future__ import annotations

from typing import Optional

import typer

from senso.catalog import all_tasks, families
from senso.cli.app import app, out
from senso.core.errors import SensoError
from senso.core.tables import folded

@app.command("systems")
def systems(name: Optional[str] = typer.Argument(None, help="A system: list every option it declares; a part: what "
                                                             "it is and which systems use it.")) -> None:
    """List the systems of every task family and the parts they are composed of, a line each;
    with a NAME, every option of that system (flag or --set key, type, default, help), or, for a part (a sense,
    a ranker, an embedder ...), what it is and which systems use it."""
    from rich.table import Table

    if name is not None:
        _print_system_options(name)
        return

    table = Table(title="Systems and parts (senso run TASK --system NAME)")
    for column in ("kind", "name", "what it does"):
        table.add_column(column)
    for family in families():
        for kind, name, summary in family.catalog():
            table.add_row(kind, name, summary)
    out.print(folded(table))


def _print_system_options(name: str) -> None:
    """`senso systems NAME`: what the system is, then each option it declares (`senso.core.params`) as a short
    block: how to give it, its type or values and default, then what it does, wrapped under it."""
    import textwrap

    from senso.api import systems as all_systems

    found = [s for s in all_systems() if s.name == name]
    if not found:
        _print_part(name)
        return
    width = out.width
    for k, system in enumerate(found):
        out.print(("\n" if k else "") + f"{system.name} ({', '.join(system.tasks)})", style="bold")
        out.print(textwrap.fill(system.description, width), soft_wrap=True)
        options = system.options.describe()
        if not options:
            out.print("No options of its own.")
            continue
        out.print("\nOptions (a flag of its own, else --set NAME=VALUE):")
        for option in options:
            head = f"{option['flag']}  ({option['type']}; default {_shown_default(option['default'])})"
            out.print(textwrap.fill(head, width, initial_indent="  ", subsequent_indent=" " * 6, break_on_hyphens=False), style="bold",
                      soft_wrap=True)
            out.print(textwrap.fill(option["help"], width, initial_indent=" " * 6, subsequent_indent=" " * 6),
                      soft_wrap=True)


def _print_part(name: str) -> None:
    """`senso systems PART`: a part `senso systems` lists (a sense, a ranker, an embedder ...): what it is and
    which systems use it, as its family says (`Family.catalog`, `Family.part_users`)."""
    import textwrap

    parts = [(family, kind, summary) for family in families() for kind, listed, summary in family.catalog()
             if listed == name]
    if not parts:
        raise SensoError(f"unknown system or part {name!r}; `senso systems` lists them")
    for k, (family, kind, summary) in enumerate(parts):
        out.print(("\n" if k else "") + f"{name}: {kind}, a part of {family.called} systems", style="bold")
        out.print(textwrap.fill(summary, out.width), soft_wrap=True)
        users = family.part_users(name)
        out.print(textwrap.fill(f"Used by: {', '.join(users)}." if users else "No system uses it by name.",
                                out.width, subsequent_indent="  "), soft_wrap=True)


def _shown_default(value) -> str:
    """An option's default as one would type it (`a,b` for a list, `none` for no value, `true`/`false`)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


@app.command("tasks")
def tasks() -> None:
    """List the built-in tasks and what each measures, then the kinds of task file (a path ending .toml, of the kind
    its `kind` key says)."""
    from rich.table import Table

    table = Table(title="Tasks (senso run TASK)")
    for column in ("task", "family", "what it is"):
        table.add_column(column)
    for entry in all_tasks():
        table.add_row(entry.name, entry.family.name, entry.description)
    out.print(folded(table))
