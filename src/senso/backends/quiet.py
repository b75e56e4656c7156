"""transformers and huggingface_hub print their own progress bars and warnings while a model loads; where
senso shows no progress (`senso.evaluate(...)` without `progress=True`), or stderr is not a terminal (a log
file, where their carriage-return bars make one long line), they print nothing either."""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from senso.core.progress import is_showing


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Within the block, transformers' progress bars and warnings are off unless progress is shown on a
    terminal; the previous settings come back after it."""
    import sys

    if is_showing() and sys.stderr.isatty():
        yield
        return
    from transformers.utils import logging as hf_logging

    bars, verbosity = hf_logging.is_progress_bar_enabled(), hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def quietly(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` run inside `quiet_loading()` (for the functions that load or convert models)."""
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with quiet_loading():
            return function(*args, **kwargs)

    return wrapper
