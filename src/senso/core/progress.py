"""Progress of long steps, shown only where someone asked for it.

The command line shows every long step's progress on stderr; `senso.evaluate(...)` is quiet unless called
with `progress=True`. Whoever runs the work says which, for the whole of it (`showing(True)`); code that does
a long step asks for a bar (`bar(description, total)`) and advances it, and gets a no-op where nothing is
shown. Nothing else prints: results, warnings and tables are returned, and the command line prints them.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Callable, Iterator

_SHOWING: contextvars.ContextVar[bool] = contextvars.ContextVar("senso_progress", default=False)

Advance = Callable[[int], None]


def _nothing(n: int) -> None:
    pass


@contextmanager
def showing(enabled: bool) -> Iterator[None]:
    """Within the block, long steps show progress bars on stderr (`enabled`) or nothing."""
    token = _SHOWING.set(bool(enabled))
    try:
        yield
    finally:
        _SHOWING.reset(token)


def is_showing() -> bool:
    return _SHOWING.get()


def note(text: str) -> None:
    """One line on stderr where progress is shown (the command line), nothing in a quiet Python call."""
    if _SHOWING.get():
        import sys

        print(text, file=sys.stderr)


@contextmanager
def bar(description: str, total: int, transient: bool = False, min_total: int = 1) -> Iterator[Advance]:
    """`advance(n)` for a progress bar of `total` steps on stderr, shown while progress is on and the job has
    at least `min_total` steps (`transient`: the bar disappears when done); a no-op otherwise."""
    if not _SHOWING.get() or total < min_total:
        yield _nothing
        return
    from senso.core.terminal import progress_bar, terminal

    with progress_bar(terminal(stderr=True), transient=transient) as progress:
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)
