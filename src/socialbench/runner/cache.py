"""SQLite response cache (after lmms-eval's): successful generations keyed on the request.

Key = SHA-256 of the model identity (name + endpoint, never secrets) and the request
fingerprint (prompt, system text, image byte hashes, generation settings). Failures are never
written. One connection, used from the event-loop thread; WAL mode so several runs can share
a cache file. A reply's reasoning section (:attr:`Generation.reasoning`) is kept with it, in a
column that a cache file written before it existed gains when it is opened.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from socialbench.errors import StorageError
from socialbench.types import Generation, Request, Usage

CACHE_OPTION = "--cache file, or pass --no-cache"

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    usage TEXT NOT NULL,
    created REAL NOT NULL,
    reasoning TEXT
)
"""
#: Added to a cache file made before replies had a reasoning section.
REASONING_COLUMN = "ALTER TABLE responses ADD COLUMN reasoning TEXT"


def cache_key(model_identity: str, request: Request) -> str:
    return hashlib.sha256(f"{model_identity}\0{request.fingerprint()}".encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: str | Path):
        """Open (or create) the cache file; a path that cannot hold one raises
        :class:`StorageError` naming the path and the fix."""
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and not self.path.is_file():
                raise StorageError(f"{self.path}: not a file (fix: choose another {CACHE_OPTION})")
        except OSError as exc:
            raise StorageError.from_os_error(exc, self.path, CACHE_OPTION) from None
        try:  # e.g. a symlink to a folder that does not exist
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StorageError(_cache_problem(self.path, exc)) from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.execute(SCHEMA)
            self._add_reasoning_column()
        except sqlite3.Error as exc:
            self._db.close()
            raise StorageError(_cache_problem(self.path, exc)) from None

    def _add_reasoning_column(self) -> None:
        """Give a cache file from before reasoning sections their column (once; a second
        process doing the same at the same moment is no error)."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "reasoning" in columns:
            return
        try:
            self._db.execute(REASONING_COLUMN)
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise

    def get(self, key: str) -> Generation | None:
        row = self._db.execute("SELECT text, usage, reasoning FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        usage = json.loads(row[1])
        return Generation(text=row[0], usage=Usage(**usage), reasoning=row[2])

    def put(self, key: str, model_identity: str, generation: Generation) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, model, text, usage, created, reasoning) VALUES (?, ?, ?, ?, ?, ?)",
            (
                key,
                model_identity,
                generation.text,
                json.dumps(generation.usage.as_dict()),
                time.time(),
                generation.reasoning,
            ),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def _cache_problem(path: Path, exc: sqlite3.Error) -> str:
    """One line naming the cache file, what is wrong with it and the fix."""
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text):
        return f"{path}: not a SQLite response cache ({text}) (fix: delete or move that file, or choose another {CACHE_OPTION})"
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return f"{path}: cannot be written ({text}) (fix: make it writable or choose another {CACHE_OPTION})"
    if "full" in text:
        return f"{path}: no space left on the device ({text}) (fix: free some space or pass --no-cache)"
    return f"{path}: the response cache cannot be used ({text}) (fix: choose another {CACHE_OPTION})"
