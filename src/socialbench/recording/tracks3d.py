"""3-D people tracks imported directly (a tracker that outputs floor positions): CSV with the
header ``frame,id,x,y`` or JSON ``[{"frame": 1, "id": 3, "x": 2.5, "y": -0.4}, ...]``;
``frame`` is the 1-based image index (as in MOTChallenge), ``x``/``y`` metres in the robot
frame of that image (x forward, y left) or in the odometry's world frame."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

from socialbench.errors import DataError
from socialbench.files.safe_read import file_kind, parse_json_bytes, read_regular_bytes

__all__ = ["Point3D", "read_tracks3d"]


@dataclass(frozen=True)
class Point3D:
    frame: int  # 0-based image index
    track_id: str
    x: float
    y: float


def _point(src: str, row: dict[str, object], line: int | None, n_frames: int) -> Point3D:
    vals: dict[str, float] = {}
    for key in ("frame", "id", "x", "y"):
        v = row.get(key)
        try:
            if isinstance(v, bool) or v is None:
                raise ValueError
            f = float(v)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise DataError.single(
                src, key, f"missing or not a number: {v!r}", "give frame,id,x,y as numbers", line
            ) from None
        if not math.isfinite(f):
            raise DataError.single(src, key, f"not finite: {v!r}", "give finite numbers", line)
        vals[key] = f
    if vals["frame"] != int(vals["frame"]) or not 1 <= vals["frame"] <= n_frames:
        raise DataError.single(
            src, "frame", f"frame {row.get('frame')!r} not in 1..{n_frames}", "frame = 1-based image index", line
        )
    if vals["id"] != int(vals["id"]):
        raise DataError.single(
            src, "id", f"track id {row.get('id')!r} is not a whole number", "give each person a whole-number id", line
        )
    return Point3D(int(vals["frame"]) - 1, str(int(vals["id"])), vals["x"], vals["y"])


def _unique(points: list[Point3D], src: str, lines: list[int | None]) -> list[Point3D]:
    """``points`` when no (frame, id) repeats; else one line naming the second occurrence."""
    seen: set[tuple[int, str]] = set()
    for p, line in zip(points, lines):
        key = (p.frame, p.track_id)
        if key in seen:
            raise DataError.single(
                src,
                "frame, id",
                f"person {p.track_id} appears twice in frame {p.frame + 1}",
                "keep one position per person and frame",
                line,
            )
        seen.add(key)
    return points


def read_tracks3d(path: Path, n_frames: int) -> list[Point3D]:
    """Every point of ``path`` (``.json``: a list of objects; otherwise CSV)."""
    src = str(path)
    if file_kind(path) == "missing":
        raise DataError.single(src, "", "tracks file not found", "give the 3-D tracks with --tracks")
    data = read_regular_bytes(path)
    if path.suffix.lower() == ".json":
        obj = parse_json_bytes(data, src)
        if not isinstance(obj, list):
            raise DataError.single(src, "", "expected a list of {frame, id, x, y}", "write a JSON list")
        out = []
        for i, row in enumerate(obj):
            if not isinstance(row, dict):
                raise DataError.single(src, f"[{i}]", "not an object", "write {frame, id, x, y}")
            out.append(_point(src, row, None, n_frames))
        return _unique(out, src, [None] * len(out))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError.single(src, "", "not UTF-8 text", "write a CSV frame,id,x,y") from None
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or not {"frame", "id", "x", "y"} <= {f.strip() for f in reader.fieldnames}:
        raise DataError.single(src, "header", f"header {reader.fieldnames!r}", "start with frame,id,x,y", 1)
    rows = list(enumerate(reader, 2))
    points = [_point(src, {k.strip(): v for k, v in row.items() if k is not None}, n, n_frames) for n, row in rows]
    return _unique(points, src, [n for n, _ in rows])
