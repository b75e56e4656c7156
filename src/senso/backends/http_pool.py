"""Async JSON requests to one or more OpenAI-compatible servers: bounded concurrency, timeouts,
retries with exponential backoff on 429/5xx and network errors, requests spread across base URLs.

The API key is read from an environment variable at construction and kept only in the request
headers; nothing here writes it anywhere.
"""

from __future__ import annotations

import asyncio
import os
import random
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

import httpx2

from senso.core.errors import SensoError

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ServerError(SensoError):
    """A server answered, but not with what was asked (4xx, malformed JSON, missing fields)."""


class ServerUnavailable(SensoError):
    """A server kept failing (network errors, 429, 5xx) after all retries."""


@dataclass(frozen=True)
class RetryPolicy:
    """Attempt i (0-based) that fails waits min(backoff * 2**i, max_backoff) seconds (or the
    server's Retry-After, when larger), jittered by up to 10%, before attempt i+1."""

    max_retries: int = 5
    backoff: float = 0.5
    max_backoff: float = 30.0
    timeout: float = 600.0  # seconds to wait for one response (a long prompt on a busy server is slow)
    connect_timeout: float = 10.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        base = min(self.backoff * (2 ** attempt), self.max_backoff)
        if retry_after is not None:
            base = max(base, min(retry_after, self.max_backoff))
        return base * (1 + 0.1 * random.random())


def normalise_base_url(url: str) -> str:
    """Strip trailing slashes; add `/v1` when the URL has no path (http://host:8000 -> http://host:8000/v1)."""
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise SensoError(f"--base-url must start with http:// or https://, got {url!r}")
    rest = url.split("://", 1)[1]
    if "/" not in rest:
        url += "/v1"
    return url


def _retry_after(response: httpx2.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_text(response: httpx2.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body))
        if isinstance(err, dict):
            return str(err.get("message", err))[:500]
        return str(err)[:500]
    return str(body)[:500]


class ServerPool:
    """Base URLs serving the same model; request i goes to URL i mod n, its retries to the next ones."""

    def __init__(self, base_urls: Sequence[str], api_key_env: str = "OPENAI_API_KEY", concurrency: int = 4,
                 retry: RetryPolicy = RetryPolicy()):
        if not base_urls:
            raise SensoError("no server: pass --base-url URL (comma-separated for several)")
        if concurrency < 1:
            raise SensoError(f"concurrency must be at least 1, got {concurrency}")
        self.base_urls = tuple(normalise_base_url(u) for u in base_urls)
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.retry = retry
        key = os.environ.get(api_key_env)
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.requests_sent = 0
        self.retries = 0
        self.answered = 0  # HTTP responses of any status: something listens at the URL
        self.finished = 0  # POST requests answered with 200 (each is cached by the caller as it arrives)

    def describe(self) -> dict[str, Any]:
        return {"base_urls": list(self.base_urls), "api_key_env": self.api_key_env,
                "api_key_set": bool(self._headers), "concurrency_per_url": self.concurrency,
                "max_retries": self.retry.max_retries, "timeout_s": self.retry.timeout}

    def run(self, jobs: Sequence[Callable[["Session"], Awaitable[Any]]]) -> list[Any]:
        """Run async jobs (each gets a Session) concurrently; the first failure cancels the rest and is raised."""
        return asyncio.run(self._run(jobs))

    async def _run(self, jobs):
        timeout = httpx2.Timeout(self.retry.timeout, connect=self.retry.connect_timeout)
        limits = httpx2.Limits(max_connections=self.concurrency * len(self.base_urls))
        async with httpx2.AsyncClient(timeout=timeout, limits=limits, headers=self._headers) as client:
            session = Session(self, client)
            tasks = [asyncio.ensure_future(job(session)) for job in jobs]
            try:
                return await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise


class Session:
    """One event loop's view of a ServerPool: an HTTP client and per-URL semaphores."""

    def __init__(self, pool: ServerPool, client: httpx2.AsyncClient):
        self.pool = pool
        self.client = client
        self._sems = [asyncio.Semaphore(pool.concurrency) for _ in pool.base_urls]
        self._next = 0

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None, index: int | None = None) -> Any:
        """JSON response of `method path` (path relative to the base URL, e.g. "/completions")."""
        pool = self.pool
        if index is None:
            index, self._next = self._next, self._next + 1
        last_error = "no attempt made"
        transport_failed: str | None = None  # the kind of the last network failure, None after an HTTP answer
        for attempt in range(pool.retry.max_retries + 1):
            slot = (index + attempt) % len(pool.base_urls)
            url = pool.base_urls[slot] + path
            retry_after = None
            async with self._sems[slot]:
                pool.requests_sent += 1
                try:
                    response = await self.client.request(method, url, json=body)
                except httpx2.TransportError as exc:  # refused, reset, timed out
                    last_error = f"{url}: {type(exc).__name__}: {exc}".rstrip(": ")
                    transport_failed = "connection refused" if isinstance(exc, httpx2.ConnectError) else type(exc).__name__
                else:
                    pool.answered += 1
                    transport_failed = None
                    if response.status_code == 200:
                        try:
                            payload = response.json()
                        except ValueError:
                            raise ServerError(f"{url}: answered 200 with a body that is not JSON: {response.text[:200]!r}") from None
                        pool.finished += method == "POST"
                        return payload
                    if response.status_code not in RETRY_STATUS:
                        raise ServerError(f"{url}: HTTP {response.status_code}: {_error_text(response)}")
                    last_error = f"{url}: HTTP {response.status_code}: {_error_text(response)}"
                    retry_after = _retry_after(response)
            if attempt < pool.retry.max_retries:
                pool.retries += 1
                await asyncio.sleep(pool.retry.delay(attempt, retry_after))
        raise ServerUnavailable(unavailable_message(pool, f"{method} {path}", last_error, transport_failed))


def unavailable_message(pool: ServerPool, request: str, last_error: str, transport_failed: str | None) -> str:
    """Why a request gave up, told apart: nothing ever answered (a wrong URL, a server not started), the
    server stopped answering midway (it died or went away), or it kept answering with errors."""
    urls = ", ".join(pool.base_urls)
    attempts = f"{request} failed {pool.retry.max_retries + 1} times; last error: {last_error}"
    if transport_failed and pool.answered == 0:
        return f"nothing answers at {urls} ({transport_failed}): is the server running? Check --base-url. ({attempts})"
    if transport_failed:
        return (f"the server at {urls} stopped answering after {pool.finished} finished requests (cached): "
                f"rerun the same command once it is back; if it crashed, its own log says why. ({attempts})")
    return f"{attempts} on {urls}. Finished requests are cached: rerun the same command once the server is back."
