"""A hub model id that cannot be fetched fails in seconds, saying how to give a local path.

Without a local copy, transformers asks the Hugging Face hub for every file and retries a connection that will
not come (46 s measured before this check). So before loading a hub id: a copy in the Hugging Face cache is
used as it is; else, when `HF_HUB_OFFLINE` is set or the hub's host does not accept a connection within
`PROBE_TIMEOUT_S`, a SensoError says so and how to give a local path.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

from senso.core.errors import SensoError

PROBE_TIMEOUT_S = 3.0  # a reachable hub accepts a TCP connection well within this
_TRUE = ("1", "true", "yes", "on")


def hub_offline() -> bool:
    """HF_HUB_OFFLINE now, or as huggingface_hub read it when first imported (it then refuses every request)."""
    from huggingface_hub import constants

    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE or bool(constants.HF_HUB_OFFLINE)


def hub_host() -> tuple[str, int]:
    """The hub's host and port ($HF_ENDPOINT, default https://huggingface.co)."""
    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    return url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)


def hub_reachable(timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the hub's host accepts a TCP connection within `timeout` seconds (a name that does not resolve,
    a refused or unanswered connection: False)."""
    try:
        with socket.create_connection(hub_host(), timeout=timeout):
            return True
    except OSError:
        return False


def cached_locally(name: str) -> bool:
    """Whether the Hugging Face cache holds a snapshot of hub model `name` (its config.json)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except Exception:  # not a valid hub id (e.g. a path that does not exist): no cached copy
        return False


def is_hub_id(name: str) -> bool:
    """Whether `name` reads as a hub id (NAME or ORG/NAME), not a path (absolute, ./, ~, or deeper)."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    if name.startswith(("/", ".", "~")) or name.count("/") > 1 or os.sep != "/" and os.sep in name:
        return False
    try:
        validate_repo_id(name)
    except HFValidationError:
        return False
    return True


def check_hub_model(name: str) -> None:
    """SensoError, in seconds, when hub model `name` has no local copy and the hub cannot be reached (a name
    that is no hub id is left to the loader, which says the folder is missing)."""
    if not is_hub_id(name) or cached_locally(name):
        return
    if hub_offline():
        why = "HF_HUB_OFFLINE is set"
    elif not hub_reachable():
        host, _ = hub_host()
        why = f"the hub ({host}) did not answer within {PROBE_TIMEOUT_S:g} s"
    else:
        return
    raise SensoError(f"model {name!r} is neither a local folder nor in the Hugging Face cache, and {why}: give a "
                     f"local path instead (model='hf:/path/to/checkpoint', a folder with config.json and the "
                     f"weights), or download it where there is a network first (huggingface-cli download {name})")
