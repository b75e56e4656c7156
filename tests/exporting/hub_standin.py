"""A local stand-in for the Hugging Face Hub's HTTP API on 127.0.0.1: just what `huggingface_hub` calls to
make a dataset repository and upload a folder (whoami, repos/create, validate-yaml, preupload, commit), every request
recorded (method, path, headers, body) so a test can check what was sent."""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "hf_standin_token"


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class StandInHub:
    url: str = ""
    requests: list[Request] = field(default_factory=list)
    repos: dict[str, dict[str, Any]] = field(default_factory=dict)  # repo id -> create request body
    files: dict[str, dict[str, bytes]] = field(default_factory=dict)  # repo id -> path -> content committed

    def paths(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.requests]


def _handler(hub: StandInHub):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self, status: int, data: Any) -> None:
            body = json.dumps(data).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            hub.requests.append(Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self._reply(401, {"error": "Invalid credentials in Authorization header"})
            self._reply(*_route(hub, self.command, self.path.split("?")[0], body))

        do_GET = do_POST = do_PUT = do_HEAD = _handle

    return Handler


def _commit(hub: StandInHub, repo: str, body: bytes) -> tuple[int, Any]:
    for line in body.decode("utf-8").splitlines():
        entry = json.loads(line)
        if entry["key"] == "file":
            value = entry["value"]
            hub.files.setdefault(repo, {})[value["path"]] = base64.b64decode(value["content"])
    return 200, {"commitUrl": f"{hub.url}/datasets/{repo}/commit/abc", "commitOid": "a" * 40, "pullRequestUrl": None}


def _route(hub: StandInHub, method: str, path: str, body: bytes) -> tuple[int, Any]:
    parts = path.strip("/").split("/")
    if path == "/api/whoami-v2":
        return 200, {"type": "user", "name": "tester", "auth": {"accessToken": {"role": "write"}}}
    if path == "/api/validate-yaml":  # the Hub checks a README's metadata before the commit
        return 200, {"errors": [], "warnings": []}
    if path == "/api/repos/create":
        request = json.loads(body)
        repo = f"{request.get('organization') or 'tester'}/{request['name']}"
        hub.repos[repo] = request
        return 200, {"url": f"{hub.url}/datasets/{repo}"}
    if len(parts) >= 6 and parts[:2] == ["api", "datasets"]:
        repo, action = f"{parts[2]}/{parts[3]}", parts[4]
        if action == "preupload":
            files = json.loads(body)["files"]
            return 200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]}
        if action == "commit":
            return _commit(hub, repo, body)
    return 404, {"error": f"the stand-in does not know {method} {path}"}


def start(hub: StandInHub) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
