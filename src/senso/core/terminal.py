"""The terminal: every message is printed literally. A message holds paths, task-file keys, `[section]` names and
user data, so no console reads rich markup (`[bold]`...); styles come from `style=` and `labelled`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from rich.progress import Progress


def terminal(stderr: bool = False, **kwargs: Any) -> Console:
    """A rich Console that prints text as written (no markup, no highlighting of numbers and paths)."""
    return Console(stderr=stderr, markup=False, highlight=False, **kwargs)


def labelled(label: str, style: str, message: str) -> Text:
    """`label message` with the label styled (e.g. a red "WARNING:") and the message as written."""
    return Text.assemble((label, style), " ", message)


def progress_bar(console: Console, transient: bool = False) -> "Progress":
    """A progress bar (description, bar, done of total, time left) whose description is printed as written."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=console, transient=transient)
