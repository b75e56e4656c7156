"""The one mapping from a `--dtype` name to what torch and transformers take."""

from __future__ import annotations

from senso.core.errors import SensoError
from senso.core.options import DTYPES


def torch_dtype(name: str):
    """The torch dtype named `name`, or the string "auto"; SensoError naming the choices otherwise."""
    if name not in DTYPES:
        raise SensoError(f"unknown dtype {name!r}; choose from {', '.join(DTYPES)} (--dtype)")
    if name == "auto":
        return "auto"
    import torch

    return getattr(torch, name)
