"""Write a folder as a whole or not at all: its files go into a staging folder beside the
target (:func:`staging_folder`), which then takes the target's place (:func:`publish`). A
run that stops before the swap leaves the target as it was (and a ``.<name>.staging-*``
folder, removed by the next run); the previous target is moved aside or removed only once
the new one is complete."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from socialbench.errors import StorageError
from socialbench.files.atomic_write import write_bytes_atomic

__all__ = ["staging_folder", "publish", "discard", "write_staged"]


def staging_folder(target: Path) -> Path:
    """A new empty folder beside ``target`` (same file system, so the swap is a rename);
    staging folders left by an interrupted run are removed first."""
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for old in parent.glob(f".{target.name}.staging-*"):
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=parent))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(stage, 0o777 & ~umask)  # mkdtemp's 0700 would outlive the swap
        return stage
    except OSError as exc:
        raise StorageError.from_os_error(exc, parent) from None


def write_staged(stage: Path, rel: str, data: bytes) -> None:
    """Write ``data`` to ``stage / rel`` (never through a link)."""
    write_bytes_atomic(stage / rel, data, root=stage)


def discard(stage: Path) -> None:
    """Remove a staging folder that will not be published."""
    shutil.rmtree(stage, ignore_errors=True)


def publish(stage: Path, target: Path, *, previous: Path | None = None) -> None:
    """Put ``stage`` in ``target``'s place. An existing ``target`` is renamed to ``previous``
    (kept) or, without ``previous``, removed once the swap is done; an empty folder is
    simply replaced. A ``target`` that is a symbolic link is replaced as a link (what it
    points to is never touched)."""
    try:
        if target.is_symlink() or target.exists():
            if target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
                target.rmdir()
            else:
                aside = previous or Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
                if previous is None:
                    aside.rmdir()
                os.rename(target, aside)
                os.rename(stage, target)
                if previous is None:
                    if aside.is_dir() and not aside.is_symlink():
                        shutil.rmtree(aside)
                    else:
                        aside.unlink()
                return
        os.rename(stage, target)
    except OSError as exc:
        raise StorageError.from_os_error(exc, target) from None
