"""Clear an output folder before a generator writes it again.

Dataset generators (:mod:`socialbench.construction.export`, :mod:`socialbench.benchmarks.socialnav_sub.simulated`)
own a fixed set of files and folders in their output folder; on an overwrite they remove
exactly those and leave anything else in the folder alone. Each generator decides first
whether it may clear the folder (its own overwrite rules); this module only removes.
A name that is a symbolic link loses the link only: what it points to (perhaps outside the
folder) is never followed, emptied or removed.
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
