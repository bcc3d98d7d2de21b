"""Clear an output folder before a generator writes it again: exactly the files and folders
the generator owns, nothing else (whether it may clear is the generator's rule). A name that
is a symbolic link loses the link only: its target (perhaps outside the folder) is never
followed, emptied or removed.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = ["remove_generated"]


def remove_generated(root: Path, names: Iterable[str]) -> None:
    """Remove each entry ``root / name`` that exists: a folder with its contents, a file or
    a symbolic link by itself (never what the link points to). Names that do not exist are
    skipped."""
    for name in names:
        target = root / name
        try:
            mode = os.lstat(target).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(mode):
            shutil.rmtree(target)  # refuses links inside instead of following them
        else:
            target.unlink()
