"""Write output files safely: never a part, never through a symbolic link (a planted link
could point outside the folder the user named).

Every file socialbench writes into a user-named folder goes through here:
:func:`write_bytes_atomic` replaces a file through an ``O_EXCL`` temporary file (a random
name, so a planted ``*.tmp`` link is never opened) and ``os.replace``; :func:`open_append` and
:func:`open_lock` open with ``O_NOFOLLOW`` (a lock file is never truncated);
:func:`ensure_folder` creates folders a step at a time, refusing a step that is a link. Given
``root``, every link between ``root`` and the file, and the file itself when it is a link, is
refused with a one-line :class:`~socialbench.errors.StorageError`; the target is never touched.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from socialbench.errors import StorageError

__all__ = [
    "LinkRefused",
    "ensure_folder",
    "open_append",
    "open_lock",
    "refuse_link",
    "refuse_links_in",
    "truncate_file",
    "write_bytes_atomic",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class LinkRefused(StorageError):
    """A path socialbench was to write is a symbolic link (or not a plain file or folder)."""


def _link_error(path: Path, option: str) -> LinkRefused:
    try:
        target = f" (to {os.readlink(path)})"
    except OSError:
        target = ""
    other = f"choose another {option}" if option else "choose another output folder"
    return LinkRefused(
        f"{path}: a symbolic link{target}; socialbench never writes through a link out of the folder "
        f"you named (fix: remove the link, or {other})"
    )


def refuse_link(path: Path, option: str = "") -> None:
    """Raise :class:`LinkRefused` if ``path`` is a symbolic link (dangling or not)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError.from_os_error(exc, path, option) from None
    if stat.S_ISLNK(st.st_mode):
        raise _link_error(path, option)


def refuse_links_in(folder: Path, option: str = "") -> None:
    """:class:`LinkRefused` naming the first symbolic link found anywhere below ``folder``
    (not following links; ``folder`` itself may be one, the user named it). socialbench
    never makes links in its outputs, so a link there was planted: an output folder that
    holds one (a shared report folder, an SFT export, a construction work folder) is
    refused before anything is written. Nothing when ``folder`` does not exist."""
    if not folder.is_dir():
        return
    for top, dirs, files in os.walk(folder):
        for name in sorted(dirs + files):
            path = Path(top) / name
            if path.is_symlink():
                raise _link_error(path, option)


def ensure_folder(root: Path, folder: Path, option: str = "") -> Path:
    """Create ``folder`` (``root`` itself or a folder below it) and every folder between,
    one step at a time; :class:`LinkRefused` for a step below ``root`` that is a symbolic
    link, :class:`StorageError` for one that is a file. ``root`` itself may be a link (the
    user named it)."""
    try:
        rel = folder.relative_to(root)
    except ValueError:
        raise ValueError(f"{folder} is not inside {root}") from None
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError.from_os_error(exc, root, option) from None
    current = root
    for part in rel.parts:
        current = current / part
        try:
            os.mkdir(current)
        except FileExistsError:
            pass
        except OSError as exc:
            raise StorageError.from_os_error(exc, current, option) from None
        mode = os.lstat(current).st_mode
        if stat.S_ISLNK(mode):
            raise _link_error(current, option)
        if not stat.S_ISDIR(mode):
            raise StorageError.from_os_error(OSError(errno.ENOTDIR, "Not a directory"), current, option)
    return folder


def write_bytes_atomic(
    path: Path, data: bytes, *, root: Path | None = None, option: str = "", fsync: bool = False
) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    ``os.replace``; on any failure the temporary file is removed and the old ``path``, if
    any, is left as it was.

    Without ``root`` the parent folders are created as needed. With ``root`` (the folder the
    user named), the folders from ``root`` down are created by :func:`ensure_folder` and a
    ``path`` that is a symbolic link is refused (:class:`LinkRefused`), so nothing is
    written outside ``root``. ``fsync``: the bytes are on disk before the rename (a record
    that must survive a power cut)."""
    if root is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        ensure_folder(root, path.parent, option)
        refuse_link(path, option)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _open_plain(path: Path, flags: int, option: str) -> int:
    """``os.open`` with ``O_NOFOLLOW``; :class:`LinkRefused` for a link, :class:`StorageError`
    for anything but a regular file (a FIFO is opened non-blocking, then refused)."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) or (os.path.islink(path)):
            raise _link_error(path, option) from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            raise StorageError(f"{path}: not a regular file (fix: remove it, or choose another {option})") from None
        raise StorageError.from_os_error(exc, path, option) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StorageError(f"{path}: not a regular file (fix: remove it, or choose another {option or 'folder'})")
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def open_append(path: Path, option: str = "") -> int:
    """A file descriptor appending to ``path`` (created if missing), never through a link."""
    return _open_plain(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, option)


def open_lock(path: Path, option: str = "") -> int:
    """A file descriptor of the lock file ``path`` (created if missing, never truncated),
    never through a link."""
    return _open_plain(path, os.O_WRONLY | os.O_CREAT, option)


def truncate_file(path: Path, size: int, option: str = "") -> None:
    """Cut ``path`` to ``size`` bytes, never through a link."""
    fd = _open_plain(path, os.O_WRONLY, option)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)
