"""The true tracks beside a simulated recording (``REC/truth/``): ``people.csv`` (``frame,
time,id,x,y,visible``: world metres, frame = 1-based image index, visible = 1 when the
person would be detected by the simulator's rule) and ``robot.csv`` (``frame,time,x,y,yaw``)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from socialbench.errors import DataError
from socialbench.files.safe_read import file_kind, read_regular_bytes

__all__ = ["TruthTracks", "read_truth", "PEOPLE_HEADER", "ROBOT_HEADER"]

PEOPLE_HEADER = ("frame", "time", "id", "x", "y", "visible")
ROBOT_HEADER = ("frame", "time", "x", "y", "yaw")


@dataclass(frozen=True, eq=False)
class TruthTracks:
    """True people per 0-based frame index: ``{id: (frames, xy (n, 2), visible (n,))}``."""

    people: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]

    def at(self, person: str, frames: np.ndarray) -> np.ndarray:
        """``(len(frames), 2)`` positions (NaN where the person is absent)."""
        f, xy, _ = self.people[person]
        out = np.full((len(frames), 2), np.nan)
        pos = np.searchsorted(f, frames)
        ok = (pos < len(f)) & (f[np.minimum(pos, len(f) - 1)] == frames)
        out[ok] = xy[pos[ok]]
        return out

    def visible_at(self, person: str, frames: np.ndarray) -> np.ndarray:
        f, _, vis = self.people[person]
        pos = np.searchsorted(f, frames)
        ok = (pos < len(f)) & (f[np.minimum(pos, len(f) - 1)] == frames)
        out = np.zeros(len(frames), dtype=bool)
        out[ok] = vis[pos[ok]]
        return out


def _text(path: Path) -> str:
    try:
        return read_regular_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise DataError.single(str(path), "", "not UTF-8 text", "write a CSV file") from None


def read_truth(folder: Path) -> TruthTracks:
    """Read ``folder/people.csv``."""
    path = folder / "people.csv"
    if file_kind(path) == "missing":
        raise DataError.single(
            str(path), "", "true tracks not found", "give the folder `sim recording` wrote as REC/truth"
        )
    text = _text(path)
    rows: dict[str, list[tuple[int, float, float, bool]]] = {}
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(h.strip() for h in header) != PEOPLE_HEADER:
        raise DataError.single(str(path), "header", f"header {header!r}", f"start with {','.join(PEOPLE_HEADER)}", 1)
    for lineno, row in enumerate(reader, 2):
        try:
            rows.setdefault(row[2], []).append((int(row[0]) - 1, float(row[3]), float(row[4]), row[5].strip() == "1"))
        except (IndexError, ValueError):
            raise DataError.single(
                str(path), "row", f"malformed row {row!r}", "write frame,time,id,x,y,visible", lineno
            ) from None
    people = {}
    for pid, obs in rows.items():
        obs.sort()
        people[pid] = (
            np.array([o[0] for o in obs], dtype=int),
            np.array([(o[1], o[2]) for o in obs], dtype=float).reshape(-1, 2),
            np.array([o[3] for o in obs], dtype=bool),
        )
    return TruthTracks(people)
