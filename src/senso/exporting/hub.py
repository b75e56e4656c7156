"""`senso export RUN ... --push-to-hub ORG/NAME`: the export folder uploaded as a Hugging Face dataset repo.

The token is huggingface_hub's usual one (`HF_TOKEN`, else `hf auth login`'s), read by huggingface_hub and
never written by senso; the repository is private unless asked otherwise. Before anything is written the
Hub is asked who the token belongs to, so offline (HF_HUB_OFFLINE, or no network) or without a token the
command stops with a sentence saying so. `HF_ENDPOINT` names another Hub (a mirror, or a test's stand-in).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from senso.backends.hub_access import hub_offline
from senso.core.errors import SensoError

REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
FLAG = "--push-to-hub"


@dataclass
class HubTarget:
    """A dataset repository to upload to, checked reachable with a token that works."""

    repo_id: str
    endpoint: str | None
    user: str
    private: bool


def check_hub(repo_id: str, private: bool = True) -> HubTarget:
    """The repository name, the token and the network, checked before anything is written."""
    import httpx2
    from huggingface_hub import HfApi, get_token
    from huggingface_hub.errors import HfHubHTTPError

    if not REPO_ID.match(repo_id):
        raise SensoError(f"{FLAG} {repo_id!r}: give the dataset repository as ORG/NAME (or USER/NAME)")
    if hub_offline():
        raise SensoError(f"{FLAG}: HF_HUB_OFFLINE is set, so nothing can be uploaded; unset it, or write the "
                         "export to a folder with --to DIR and upload it later")
    endpoint = os.environ.get("HF_ENDPOINT") or None
    token = get_token()
    if not token:
        raise SensoError(f"{FLAG}: no Hugging Face token: set HF_TOKEN, or run `hf auth login` (senso never "
                         "writes the token anywhere)")
    try:
        user = HfApi(endpoint=endpoint).whoami(token=token)
    except HfHubHTTPError as exc:
        status = getattr(exc.response, "status_code", None)
        raise SensoError(f"{FLAG}: the Hub ({endpoint or 'huggingface.co'}) refused the token (HTTP {status}): "
                         "set HF_TOKEN to a token with write access") from None
    except (OSError, httpx2.TransportError) as exc:  # connection refused, no route, DNS, timeouts
        raise SensoError(f"{FLAG}: cannot reach the Hub ({endpoint or 'https://huggingface.co'}): {type(exc).__name__}; "
                         "nothing was written. Check the network, or write the export with --to DIR and "
                         "upload it later") from None
    return HubTarget(repo_id=repo_id, endpoint=endpoint, user=str(user.get("name", "?")), private=private)


def push_folder(target: HubTarget, folder: str | Path, message: str) -> str:
    """The folder uploaded to the target's dataset repository (made if absent); the repository's URL."""
    import httpx2
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(endpoint=target.endpoint)
    try:
        url = api.create_repo(target.repo_id, repo_type="dataset", private=target.private, exist_ok=True)
        api.upload_folder(repo_id=target.repo_id, repo_type="dataset", folder_path=str(folder), commit_message=message)
    except HfHubHTTPError as exc:
        status = getattr(exc.response, "status_code", None)
        raise SensoError(f"{FLAG} {target.repo_id}: the Hub refused the upload (HTTP {status}): {exc}") from None
    except (OSError, httpx2.TransportError) as exc:
        raise SensoError(f"{FLAG} {target.repo_id}: the upload stopped ({type(exc).__name__}: {exc}); the export "
                         f"folder {folder} is complete: upload it again") from None
    return str(url)
