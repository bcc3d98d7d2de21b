"""SQLite response cache (after lmms-eval's): successful generations keyed on the request.

Key = SHA-256 of the model identity (name + endpoint, never secrets) and the request
fingerprint. Failures are never written. WAL mode so several runs can share a cache file.
The cache only saves time, so it never fails a question: an unusable entry is a miss, and a
cache that stays locked (:data:`LOCK_WAIT_S`), has another layout or breaks is turned off for
the run, each kind of problem logged once. A file that is not a SQLite database is refused
when the cache is opened (:class:`StorageError` naming the file and the fix).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from pathlib import Path

from socialbench.errors import StorageError
from socialbench.types import Generation, Request, Usage

log = logging.getLogger(__name__)

CACHE_OPTION = "--cache file, or pass --no-cache"
#: Longest wait (s) for a lock another process holds on the cache file; after that the run
#: goes on without the cache (a warning says so) instead of waiting at every answer.
LOCK_WAIT_S = 1.0
#: Columns the cache reads and writes.
COLUMNS = ("key", "model", "text", "usage", "created")
_USAGE_FIELDS = frozenset({"prompt_tokens", "completion_tokens", "reasoning_tokens"})

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


def cache_key(model_identity: str, request: Request) -> str:
    return hashlib.sha256(f"{model_identity}\0{request.fingerprint()}".encode()).hexdigest()


def entry_problem(text: object, usage: object, reasoning: object = None) -> str | None:
    """Why a stored (``text``, ``usage``, ``reasoning``) row cannot be served, or None when
    it can."""
    if not isinstance(text, str):
        return f"its text is {type(text).__name__}, not text"
    if reasoning is not None and not isinstance(reasoning, str):
        return f"its reasoning is {type(reasoning).__name__}, not text"
    if not isinstance(usage, str):
        return f"its usage is {type(usage).__name__}, not JSON text"
    try:
        counts = json.loads(usage)
    except (ValueError, RecursionError):
        return "its usage is not JSON"
    if not isinstance(counts, dict):
        return "its usage is not a JSON object"
    for name, value in counts.items():
        if name not in _USAGE_FIELDS:
            return f"its usage has an unknown field {str(name)[:40]!r}"
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"its usage field {name} is not a count"
    return None


def _locked(exc: sqlite3.Error) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


class ResponseCache:
    def __init__(self, path: str | Path, lock_wait_s: float = LOCK_WAIT_S):
        """Open (or create) the cache file; a path that cannot hold one raises
        :class:`StorageError` naming the path and the fix. A file another process keeps
        locked, or one with another table layout, is opened as a cache that is off (every
        lookup a miss, nothing written), with a warning."""
        self.path = Path(path)
        #: Entries found unusable and sqlite errors met (each a miss or a skipped write).
        self.errors = 0
        self._off = False
        self._reasoning = False
        self._reported: set[str] = set()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and not self.path.is_file():
                raise StorageError(f"{self.path}: not a file (fix: choose another {CACHE_OPTION})")
        except OSError as exc:
            raise StorageError.from_os_error(exc, self.path, CACHE_OPTION) from None
        try:  # e.g. a symlink to a folder that does not exist
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=lock_wait_s
            )
        except sqlite3.Error as exc:
            raise StorageError(_cache_problem(self.path, exc)) from None
        try:
            self._db.execute(f"PRAGMA busy_timeout={int(lock_wait_s * 1000)}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        except sqlite3.Error as exc:
            if _locked(exc):
                self._turn_off("locked", f"is locked by another process for more than {lock_wait_s:g} s")
                return
            self._db.close()
            raise StorageError(_cache_problem(self.path, exc)) from None
        missing = [c for c in COLUMNS if c not in columns]
        if missing:
            self._turn_off("layout", f"has a responses table without the column(s) {', '.join(missing)}")
            return
        #: Whether the file has the ``reasoning`` column (files written before it had none:
        #: it is added; a file that cannot be changed is used without reasoning sections).
        self._reasoning = "reasoning" in columns
        if not self._reasoning:
            try:
                self._db.execute("ALTER TABLE responses ADD COLUMN reasoning TEXT")
                self._reasoning = True
            except sqlite3.Error:
                pass

    def _report(self, kind: str, message: str) -> None:
        """Log ``message`` as a warning the first time a problem of ``kind`` is met."""
        self.errors += 1
        if kind not in self._reported:
            self._reported.add(kind)
            log.warning("response cache %s %s", self.path, message)

    def _turn_off(self, kind: str, what: str) -> None:
        self._off = True
        self._report(kind, f"{what}; this run goes on without it (fix: pass another {CACHE_OPTION})")

    def _failed(self, exc: sqlite3.Error) -> None:
        if _locked(exc):
            self._turn_off("locked", f"is locked by another process ({exc})")
        else:
            self._turn_off("error", f"cannot be used any more ({type(exc).__name__}: {exc})")

    def get(self, key: str) -> Generation | None:
        """The generation stored under ``key``; None on a miss, an unusable entry or a
        cache that is off (see the module docstring). Never raises for the file's content."""
        if self._off:
            return None
        reasoning = "reasoning" if self._reasoning else "NULL"
        try:
            row = self._db.execute(f"SELECT text, usage, {reasoning} FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            self._failed(exc)
            return None
        if row is None:
            return None
        problem = entry_problem(*row)
        if problem is not None:
            self._report(
                "entry",
                f"holds unusable entries ({problem}); each is a miss: the model is asked and the entry "
                "replaced (further unusable entries are not reported)",
            )
            return None
        return Generation(text=row[0], usage=Usage(**json.loads(row[1])), reasoning=row[2])

    def put(self, key: str, model_identity: str, generation: Generation) -> None:
        """Store ``generation`` under ``key``; a cache that is off or fails stays unwritten
        (logged once), the answer itself is the caller's."""
        if self._off:
            return
        row = (key, model_identity, generation.text, json.dumps(generation.usage.as_dict()), time.time())
        try:
            if self._reasoning:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, model, text, usage, created, reasoning)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (*row, generation.reasoning),
                )
            else:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, model, text, usage, created) VALUES (?, ?, ?, ?, ?)", row
                )
        except sqlite3.Error as exc:
            self._failed(exc)

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
