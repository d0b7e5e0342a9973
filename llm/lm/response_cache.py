"""A response cache on disk keyed by model, parameters and prompt, so re-runs cost nothing."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path


class ResponseCache:
    """A sqlite table from a request's key to its JSON result."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT)")
        self._db.commit()

    @staticmethod
    def key(**request) -> str:
        """A stable digest of the request (model, parameters, prompt)."""
        text = json.dumps(request, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, key: str):
        """The cached result, or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value) -> None:
        """Store a result."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)",
                             (key, json.dumps(value)))
            self._db.commit()


def cached(cache: ResponseCache | None, request: dict, compute):
    """`compute()` through the cache when there is one."""
    if cache is None:
        return compute()
    key = ResponseCache.key(**request)
    hit = cache.get(key)
    if hit is not None:
        return hit
    value = compute()
    cache.put(key, value)
    return value
