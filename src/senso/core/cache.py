"""A persistent key-value cache of model responses (SQLite, one commit per write batch).

Keys are hashes of everything that determines a response (model fingerprint, exact token ids or
request); values are JSON. A run killed midway keeps every batch it committed, so a rerun
recomputes only the unfinished items.

A fault in the cache never loses results and never ends in a traceback: a cache that cannot be opened
(not a database, an unwritable folder) is a SensoError naming the file and the fix (`check()` opens it
before anything slow starts); an unreadable row is recomputed; a write that fails turns the cache off
for the rest of the run. Each is said loudly on stderr and kept in `warnings` (for results.json).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterable

from senso.core.errors import SensoError
from senso.core.paths import cache_dir


def cache_key(*parts: Any) -> str:
    """sha256 of the JSON encoding of `parts` (sorted keys), as hex."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Get and put JSON values by key, in `namespace` (e.g. "loglik", "embedding")."""

    def __init__(self, path: str | Path | None = None, enabled: bool = True):
        self.enabled = enabled
        self.path = Path(path) if path else cache_dir(create=False) / "responses.sqlite"
        self._conn: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.bad_rows = 0
        self.warnings: list[str] = []

    def _fault(self, exc: Exception) -> SensoError:
        if isinstance(exc, OSError) or "unable to open" in str(exc) or "readonly" in str(exc):
            fix = "make it and its folder writable, point SENSO_CACHE_DIR at a writable folder, or run with --no-cache"
        else:
            fix = "delete it (senso rebuilds it; cached responses are recomputed) or run with --no-cache"
        return SensoError(f"the response cache {self.path} cannot be used ({exc}); {fix}")

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=60)
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute("CREATE TABLE IF NOT EXISTS responses "
                                 "(namespace TEXT, key TEXT, value TEXT, PRIMARY KEY (namespace, key))")
                    conn.commit()
                    conn.execute("SELECT 1 FROM responses LIMIT 1").fetchall()
                except sqlite3.Error:
                    conn.close()
                    raise
            except (OSError, sqlite3.Error) as exc:
                raise self._fault(exc) from None
            self._conn = conn
        return self._conn

    def check(self) -> None:
        """Open the cache now (a run calls this before anything slow): SensoError naming the file and the fix."""
        if self.enabled:
            self.conn

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        print(f"WARNING: {message}", file=sys.stderr)

    def get(self, namespace: str, key: str) -> Any | None:
        if not self.enabled:
            return None
        try:
            row = self.conn.execute("SELECT value FROM responses WHERE namespace=? AND key=?", (namespace, key)).fetchone()
        except sqlite3.Error as exc:
            self._disable(f"reading the response cache {self.path} failed ({exc})")
            return None
        if row is not None:
            try:
                value = json.loads(row[0])
            except (TypeError, ValueError):
                self.bad_rows += 1
                if self.bad_rows == 1:
                    self._warn(f"the response cache {self.path} holds an unreadable row ({namespace}); it is recomputed "
                               "and replaced (delete the file if this repeats)")
                row = None
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return value

    def _disable(self, why: str) -> None:
        self._warn(f"{why}; running on without the response cache (results are not affected; nothing more is "
                   "cached). Fix: delete the file, make its folder writable, or use --no-cache")
        self.enabled = False
        self.close()

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        return {k: v for k in keys if (v := self.get(namespace, k)) is not None}

    def put_many(self, namespace: str, items: dict[str, Any]) -> None:
        """Store all items in one transaction (atomic: all or none survive a kill)."""
        if not self.enabled or not items:
            return
        rows = [(namespace, k, json.dumps(v)) for k, v in items.items()]
        try:
            with self.conn:
                self.conn.executemany("INSERT OR REPLACE INTO responses (namespace, key, value) VALUES (?, ?, ?)", rows)
        except (sqlite3.Error, SensoError) as exc:
            self._disable(f"writing to the response cache {self.path} failed ({exc})")

    def put(self, namespace: str, key: str, value: Any) -> None:
        self.put_many(namespace, {key: value})

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "ResponseCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
