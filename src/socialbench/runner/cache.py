"""SQLite response cache (after lmms-eval's): successful generations keyed on the request.

Key = SHA-256 of the model identity (name + endpoint, never secrets) and the request
fingerprint (prompt, system text, image byte hashes, generation settings). Failures are never
written. One connection, used from the event-loop thread; WAL mode so several runs can share
a cache file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from socialbench.types import Generation, Request, Usage

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    usage TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(model_identity: str, request: Request) -> str:
    return hashlib.sha256(f"{model_identity}\0{request.fingerprint()}".encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.execute(SCHEMA)

    def get(self, key: str) -> Generation | None:
        row = self._db.execute("SELECT text, usage FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        usage = json.loads(row[1])
        return Generation(text=row[0], usage=Usage(**usage))

    def put(self, key: str, model_identity: str, generation: Generation) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, model, text, usage, created) VALUES (?, ?, ?, ?, ?)",
            (key, model_identity, generation.text, json.dumps(generation.usage.as_dict()), time.time()),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        self._db.close()
