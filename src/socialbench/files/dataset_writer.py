"""Write the files of a generated dataset folder: raw bytes, or JSON indented by four spaces.

Used by the dataset generators (:mod:`socialbench.benchmarks.socialnav_sub.synthetic`,
:mod:`socialbench.benchmarks.socialnav_sub.simulated`); parent folders are created as needed and an
existing file is overwritten in place.
"""

from __future__ import annotations

import json
from pathlib import Path


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, creating its parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_json(path: Path, obj: object) -> None:
    """Write ``obj`` as UTF-8 JSON indented by four spaces, with a final newline."""
    write_file(path, (json.dumps(obj, indent=4) + "\n").encode("utf-8"))
