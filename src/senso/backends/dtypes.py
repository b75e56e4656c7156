"""torch helpers: the one mapping from a `--dtype` name to what torch and transformers take, and the
fingerprint of a model held in memory."""

from __future__ import annotations

import hashlib

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


def weights_fingerprint(module: Any) -> str:
    """sha256 over a torch module's state dict (names, dtypes, shapes, bytes): for in-memory models."""
    import torch

    digest = hashlib.sha256()
    for name, tensor in sorted(module.state_dict().items()):
        t = tensor.detach().cpu().contiguous()
        digest.update(f"{name}\0{t.dtype}\0{tuple(t.shape)}\n".encode())
        digest.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return "weights:" + digest.hexdigest()
