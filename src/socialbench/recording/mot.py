"""MOTChallenge boxes (``frame,id,x,y,w,h,score,-1,-1,-1``; frame numbers from 1, pixels of
the published image): read with every row checked, and written.

A row's frame number is the 1-based index of the image message (or the folder's frame) in
time order. Bad rows fail with one line naming the file, the line, the field and the fix."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from socialbench.errors import DataError
from socialbench.files.safe_read import file_kind, read_regular_bytes

__all__ = ["Box", "MAX_TRACK_GAP", "read_boxes", "format_boxes"]

#: Largest gap (source frames) between two boxes of one id before the id counts as jumping.
MAX_TRACK_GAP = 30
_FIELDS = ("frame", "id", "bb_left", "bb_top", "bb_width", "bb_height", "conf")
MAX_BOXES_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Box:
    """One detection: 0-based frame index, track id, pixel box and score."""

    frame: int
    track_id: str
    x: float
    y: float
    w: float
    h: float
    score: float

    @property
    def bottom_centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2.0, self.y + self.h)


def read_boxes(path: Path, n_frames: int | None = None, max_gap: int = MAX_TRACK_GAP) -> list[Box]:
    """Every box of ``path`` (sorted by frame, then id). ``n_frames``: frames in the
    recording (a later frame number is an error); ``max_gap``: see :data:`MAX_TRACK_GAP`."""
    src = str(path)
    if file_kind(path) == "missing":
        raise DataError.single(src, "", "boxes file not found", "give the tracker's MOTChallenge file with --boxes")
    try:
        text = read_regular_bytes(path, MAX_BOXES_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise DataError.single(
            src, "", "not UTF-8 text", "give a MOTChallenge CSV (frame,id,x,y,w,h,score,...)"
        ) from None
    boxes: list[Box] = []
    seen: dict[tuple[int, str], int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split(",")]
        if len(cells) < 6:
            raise DataError.single(
                src,
                "row",
                f"{len(cells)} columns, expected at least 6",
                "write frame,id,x,y,w,h,score,-1,-1,-1",
                lineno,
            )
        vals: list[float] = []
        for name, cell in zip(_FIELDS, cells[:7]):
            try:
                v = float(cell)
            except ValueError:
                raise DataError.single(
                    src, name, f"not a number: {cell!r}", "write numbers in every column", lineno
                ) from None
            if not math.isfinite(v):
                raise DataError.single(src, name, f"not a finite number: {cell!r}", "write finite numbers", lineno)
            vals.append(v)
        frame, tid = vals[0], vals[1]
        if frame != int(frame) or frame < 1:
            raise DataError.single(
                src, "frame", f"frame {cells[0]!r} is not a whole number >= 1", "number frames from 1", lineno
            )
        if n_frames is not None and frame > n_frames:
            raise DataError.single(
                src,
                "frame",
                f"frame {int(frame)} but the recording has {n_frames} frames",
                "give the boxes of this recording (frame = 1-based image index)",
                lineno,
            )
        if tid != int(tid):
            raise DataError.single(
                src, "id", f"id {cells[1]!r} is not a whole number", "give integer track ids", lineno
            )
        if vals[4] <= 0 or vals[5] <= 0:
            raise DataError.single(
                src, "bb_width/bb_height", "box of zero or negative size", "drop the row or fix its size", lineno
            )
        key = (int(frame) - 1, str(int(tid)))
        if key in seen:
            raise DataError.single(
                src,
                "id",
                f"id {key[1]} twice in frame {int(frame)} (also line {seen[key]})",
                "give each box of a frame its own id",
                lineno,
            )
        seen[key] = lineno
        boxes.append(Box(key[0], key[1], vals[2], vals[3], vals[4], vals[5], vals[6] if len(vals) > 6 else 1.0))
    boxes.sort(key=lambda b: (b.frame, int(b.track_id)))
    last: dict[str, int] = {}
    for b in sorted(boxes, key=lambda b: (int(b.track_id), b.frame)):
        prev = last.get(b.track_id)
        if prev is not None and b.frame - prev > max_gap:
            raise DataError.single(
                src,
                "id",
                f"id {b.track_id} jumps from frame {prev + 1} to frame {b.frame + 1} ({b.frame - prev} frames; at most {max_gap})",
                "give the track a new id after a long gap, or raise --max-track-gap",
                seen[(b.frame, b.track_id)],
            )
        last[b.track_id] = b.frame
    return boxes


def format_boxes(boxes: Iterable[Box]) -> str:
    """MOTChallenge text of ``boxes`` (frame numbers 1-based)."""
    return "".join(
        f"{b.frame + 1},{b.track_id},{b.x:.2f},{b.y:.2f},{b.w:.2f},{b.h:.2f},{b.score:.3f},-1,-1,-1\n" for b in boxes
    )
