"""A hub model's fingerprint: the hub's recorded hashes, else the cached snapshot's files, else an error naming the
model and both reasons (never the name alone standing in for a fingerprint)."""

from __future__ import annotations

from types import SimpleNamespace

import huggingface_hub
import pytest
from huggingface_hub.errors import LocalEntryNotFoundError, OfflineModeIsEnabled

from senso.core.errors import SensoError
from senso.core.fingerprint import FingerprintError, hub_fingerprint, path_fingerprint


def offline(self, name, **_):
    raise OfflineModeIsEnabled(f"no network to ask about {name}")


def test_the_hubs_recorded_hashes_name_the_files(monkeypatch):
    files = [SimpleNamespace(rfilename="model.safetensors", lfs=SimpleNamespace(sha256="ab" * 32), blob_id="x"),
             SimpleNamespace(rfilename="config.json", lfs=None, blob_id="cd" * 20)]
    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", lambda self, name, **_: SimpleNamespace(siblings=files))
    first = hub_fingerprint("org/model")
    files[0].lfs.sha256 = "ef" * 32
    assert first.startswith("hub:") and hub_fingerprint("org/model") != first


def test_offline_the_cached_snapshot_is_fingerprinted(monkeypatch, tmp_path):
    (tmp_path / "config.json").write_text("{}")
    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", offline)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda name, **_: str(tmp_path))
    assert hub_fingerprint("org/model") == path_fingerprint(tmp_path)


def test_neither_the_hub_nor_the_cache_is_an_error_naming_the_model_and_both_reasons(monkeypatch):
    def not_cached(name, **_):
        raise LocalEntryNotFoundError(f"{name} is not in the cache")

    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", offline)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", not_cached)
    with pytest.raises(FingerprintError) as caught:
        hub_fingerprint("org/model")
    message = str(caught.value)
    assert isinstance(caught.value, SensoError) and "cannot fingerprint the hub model 'org/model'" in message
    assert "no network to ask about org/model" in message and "org/model is not in the cache" in message


def test_a_name_that_does_not_resolve_is_the_same_error_not_a_network_traceback(monkeypatch):
    import httpx2

    def no_dns(self, name, **_):
        raise httpx2.ConnectError("[Errno -2] Name or service not known")

    def not_cached(name, **_):
        raise LocalEntryNotFoundError(f"{name} is not in the cache")

    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", no_dns)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", not_cached)
    with pytest.raises(FingerprintError, match="ConnectError: .Errno -2. Name or service not known"):
        hub_fingerprint("org/model")
