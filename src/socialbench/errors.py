"""Error types shared across socialbench.

Data problems carry the file, the field and a fix so the CLI can print them without a
traceback. Model problems are *not* exceptions that escape a run: the engine turns them into
recorded error kinds (see :mod:`socialbench.models.base`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with input data: where, what, and how to fix it."""

    file: str
    field: str
    message: str
    fix: str = ""
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        if self.field:
            where = f"{where} [{self.field}]"
        text = f"{where}: {self.message}"
        if self.fix:
            text += f" (fix: {self.fix})"
        return text


class SocialbenchError(Exception):
    """Base class for errors that the CLI reports as a message (exit code 1)."""


class UsageError(SocialbenchError):
    """The command line or configuration is wrong."""


class DataError(SocialbenchError):
    """Input data is malformed. Holds every problem found, not just the first."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def single(cls, file: str | Path, field: str, message: str, fix: str = "", line: int | None = None) -> DataError:
        return cls(Problem(str(file), field, message, fix, line))


class StorageError(SocialbenchError):
    """Writing to disk failed (full, read-only, a file where a folder should be, not the
    expected file type). The message names the path and the fix; what was written before
    stays on disk, so the same command resumes once the cause is fixed."""

    @classmethod
    def from_os_error(cls, exc: OSError, path: str | Path | None = None, option: str = "") -> StorageError:
        import errno

        where = str(path if path is not None else (exc.filename or "?"))
        other = f"choose another {option}" if option else "choose another path"
        code = exc.errno
        if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
            fix = "free some space, then run the same command again (what was written so far is kept)"
            what = "no space left on the device"
        elif code in (errno.EROFS, errno.EACCES, errno.EPERM):
            fix = f"make it writable or {other}"
            what = "not writable (read-only file system or no permission)"
        elif code in (errno.ENOTDIR, errno.EEXIST):
            fix = f"remove or rename that file, or {other}"
            what = "this path or a folder above it is a file, not a folder"
        else:
            fix = other
            what = exc.strerror or type(exc).__name__
        return cls(f"{where}: {what} (fix: {fix})")
