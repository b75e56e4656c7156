"""A tiny scripted HTTP server on 127.0.0.1 for testing the OpenAI-compatible client:
answers each path from a queue of scripted replies (status, JSON, headers), then from a default."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Reply = tuple[int, Any, dict[str, str]]


class FakeServer:
    def __init__(self, default: Callable[[str, dict | None], Reply] | None = None, delay: float = 0.0):
        self.script: dict[str, list[Reply]] = {}
        self.default = default or (lambda path, body: (404, {"error": {"message": f"no route {path}"}}, {}))
        self.delay = delay
        self.requests: list[tuple[str, str, dict | None, dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _handle(self, method: str):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                path = self.path.split("/v1", 1)[-1]
                with server._lock:
                    server.requests.append((method, path, body, dict(self.headers)))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    queue = server.script.get(path)
                    reply = queue.pop(0) if queue else None
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    status, payload, headers = reply if reply is not None else server.default(path, body)
                    data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "FakeServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def posts(self, path: str) -> list[dict]:
        return [body for method, p, body, _ in self.requests if method == "POST" and p == path]


MODELS = (200, {"object": "list", "data": [{"id": "tiny", "object": "model", "owned_by": "test", "created": 123}]}, {})


def legacy_topk(top: dict[str, float]) -> dict:
    """A completions response in the legacy shape (vLLM, llama-cpp-python, OpenAI)."""
    best = max(top, key=top.get)
    return {"object": "text_completion", "model": "tiny", "choices": [{
        "text": best, "index": 0, "finish_reason": "length",
        "logprobs": {"tokens": [best], "token_logprobs": [top[best]], "top_logprobs": [top], "text_offset": [0]}}]}


def content_topk(top: dict[str, float], as_probs: bool = False) -> dict:
    """A completions response in llama.cpp's own shape (`logprobs.content`, optionally probabilities)."""
    import math

    best = max(top, key=top.get)
    if as_probs:
        entries = [{"id": i, "token": t, "bytes": list(t.encode()), "prob": math.exp(v)} for i, (t, v) in enumerate(top.items())]
        item = {"id": 0, "token": best, "bytes": list(best.encode()), "prob": math.exp(top[best]), "top_probs": entries}
    else:
        entries = [{"id": i, "token": t, "bytes": list(t.encode()), "logprob": v} for i, (t, v) in enumerate(top.items())]
        item = {"id": 0, "token": best, "bytes": list(best.encode()), "logprob": top[best], "top_logprobs": entries}
    return {"object": "text_completion", "model": "tiny", "system_fingerprint": "b1234-abc",
            "choices": [{"text": best, "index": 0, "finish_reason": "length", "logprobs": {"content": [item]}}]}


def chat_reply(text: str, logprobs: list[tuple[str, float]] | None = None) -> dict:
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    if logprobs is not None:
        choice["logprobs"] = {"content": [{"token": t, "logprob": v, "bytes": None,
                                           "top_logprobs": [{"token": t, "logprob": v}]} for t, v in logprobs]}
    return {"object": "chat.completion", "model": "tiny", "choices": [choice]}
