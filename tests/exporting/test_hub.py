"""`senso export --push-to-hub` against a local stand-in for the Hub's HTTP API on 127.0.0.1 (hub_standin):
what huggingface_hub sends is recorded and checked; without a token, offline or without network the command
stops with a sentence before anything is written."""

from __future__ import annotations

import socket

import pytest
from hub_standin import TOKEN, StandInHub, start


@pytest.fixture()
def hub(monkeypatch, tmp_path):
    stand_in = StandInHub()
    server = start(stand_in)
    monkeypatch.setenv("HF_ENDPOINT", stand_in.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # no stored login
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # as read at import: another test's setting may stay
    yield stand_in
    server.shutdown()
    server.server_close()


def test_push_uploads_the_export_folder_privately(hub, senso_cli, abricot_runs, admire_runs, tmp_path):
    code, output = senso_cli("export", abricot_runs["A"], admire_runs["A0"], "--to", tmp_path / "export",
                             "--push-to-hub", "org/senso-results")
    assert code == 0, output
    assert f"uploaded to {hub.url}/datasets/org/senso-results (private)" in output
    assert all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in hub.requests if r.path.startswith("/api/")
               and "agent-harnesses" not in r.path)
    assert hub.repos["org/senso-results"] == {"name": "senso-results", "organization": "org", "visibility": "private",
                                              "type": "dataset"}
    assert hub.paths().index("GET /api/whoami-v2") < hub.paths().index("POST /api/repos/create")
    local = {p.relative_to(tmp_path / "export").as_posix(): p.read_bytes()
             for p in (tmp_path / "export").rglob("*") if p.is_file()}
    assert set(local) == {"README.md", "data/abricot-abs.parquet", "data/admire-a.parquet", "data/results.parquet"}
    assert hub.files["org/senso-results"] == local  # every file, byte for byte
    assert all(TOKEN.encode() not in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())  # never written


def test_push_without_to_uploads_a_temporary_folder_and_public_is_asked(hub, senso_cli, abricot_runs, tmp_path):
    code, output = senso_cli("export", abricot_runs["A"], "--push-to-hub", "org/open", "--public")
    assert code == 0, output
    assert hub.repos["org/open"]["visibility"] == "public"
    assert set(hub.files["org/open"]) == {"README.md", "data/abricot-abs.parquet", "data/results.parquet"}
    assert list(tmp_path.iterdir()) == []


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("env, phrase", [
    ({"HF_TOKEN": None}, "no Hugging Face token: set HF_TOKEN, or run `hf auth login`"),
    ({"HF_TOKEN": "hf_wrong"}, "refused the token (HTTP 401)"),
    ({"HF_HUB_OFFLINE": "1"}, "HF_HUB_OFFLINE is set, so nothing can be uploaded"),
    ({"HF_ENDPOINT": "closed"}, "cannot reach the Hub (http://127.0.0.1:"),
])
def test_refused_before_anything_is_written(hub, senso_cli, abricot_runs, tmp_path, monkeypatch, env, phrase):
    for key, value in env.items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, f"http://127.0.0.1:{_closed_port()}" if value == "closed" else value)
    code, output = senso_cli("export", abricot_runs["A"], "--to", tmp_path / "export", "--push-to-hub", "org/x")
    assert code == 2 and phrase in output, output
    assert not (tmp_path / "export").exists()
    assert not any(r.path == "/api/repos/create" for r in hub.requests)


def test_a_bad_repository_name_is_named(senso_cli, abricot_runs):
    code, output = senso_cli("export", abricot_runs["A"], "--push-to-hub", "senso-results")
    assert code == 2 and "give the dataset repository as ORG/NAME" in output
