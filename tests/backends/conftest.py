"""The real llama-cpp-python server for the `openai` backend's tests, and what a test says when it dies."""

from __future__ import annotations

import pytest

from senso.core.errors import SensoError


@pytest.fixture(scope="session")
def llama_server_process():
    pytest.importorskip("uvicorn", reason="llama-cpp-python's server extra is not installed: pip install -e '.[server]'")
    from senso.backends.llama_server import LlamaServer, default_gguf

    with LlamaServer(default_gguf()) as server:
        yield server


@pytest.fixture
def gemma_server(llama_server_process):
    """The session's server, checked alive before each test (a crash in an earlier test is named, not retried)."""
    llama_server_process.check()
    return llama_server_process


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """A test that failed because the server process died fails with the server's exit signal and log
    ("llama server exited with signal 11 (SIGSEGV) while answering; its log: ...") instead of the
    client's connection errors."""
    outcome = yield
    server = getattr(item, "funcargs", {}).get("gemma_server")
    if server is None or outcome.excinfo is None:
        return
    try:
        server.check()
    except SensoError as died:
        outcome.force_exception(died)
