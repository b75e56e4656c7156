"""A persistent key-value cache of model responses (SQLite, one commit per write batch).

Keys are hashes of everything that determines a response (model fingerprint, exact token ids or
request); values are JSON. A run killed midway keeps every batch it committed, so a rerun
recomputes only the unfinished items.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable

from senso.core.paths import cache_dir


def cache_key(*parts: Any) -> str:
    """sha256 of the JSON encoding of `parts` (sorted keys), as hex."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Get and put JSON values by key, in `namespace` (e.g. "loglik", "embedding")."""

    def __init__(self, path: str | Path | None = None, enabled: bool = True):
        self.enabled = enabled
        self.path = Path(path) if path else cache_dir() / "responses.sqlite"
        self._conn: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=60)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS responses (namespace TEXT, key TEXT, value TEXT, PRIMARY KEY (namespace, key))"
            )
            self._conn.commit()
        return self._conn

    def get(self, namespace: str, key: str) -> Any | None:
        if not self.enabled:
            return None
        row = self.conn.execute("SELECT value FROM responses WHERE namespace=? AND key=?", (namespace, key)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return json.loads(row[0])

    def get_many(self, namespace: str, keys: Iterable[str]) -> dict[str, Any]:
        return {k: v for k in keys if (v := self.get(namespace, k)) is not None}

    def put_many(self, namespace: str, items: dict[str, Any]) -> None:
        """Store all items in one transaction (atomic: all or none survive a kill)."""
        if not self.enabled or not items:
            return
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO responses (namespace, key, value) VALUES (?, ?, ?)",
                [(namespace, k, json.dumps(v)) for k, v in items.items()],
            )

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
