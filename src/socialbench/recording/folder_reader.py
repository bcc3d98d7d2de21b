"""A recording as a plain folder, for labs without ROS::

    REC/frames.csv        file,time      (image file relative to REC, time in seconds)
    REC/odometry.csv      time,x,y,yaw   (world metres, radians)
    REC/calibration.yaml  see socialbench.recording.calibration

Frames are listed in time order; a MOTChallenge frame number is the 1-based row of
``frames.csv``."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from socialbench.errors import DataError
from socialbench.files.safe_read import file_kind, read_regular_bytes
from socialbench.recording.calibration import read_calibration
from socialbench.recording.camera import CameraModel
from socialbench.recording.clip import Recording, check_increasing

__all__ = ["read_folder_recording", "is_folder_recording"]


def is_folder_recording(path: Path) -> bool:
    return path.is_dir() and (path / "frames.csv").is_file()


def _rows(path: Path, header: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    if file_kind(path) == "missing":
        raise DataError.single(str(path), "", "file not found", f"write {path.name} ({','.join(header)})")
    try:
        text = read_regular_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise DataError.single(str(path), "", "not UTF-8 text", f"write {path.name} as a UTF-8 CSV") from None
    reader = csv.reader(io.StringIO(text))
    head = next(reader, None)
    if head is None or tuple(c.strip() for c in head) != header:
        raise DataError.single(str(path), "header", f"header {head!r}", f"start with {','.join(header)}", 1)
    return [(n, row) for n, row in enumerate(reader, 2) if row]


def _float(path: Path, row: list[str], i: int, name: str, lineno: int) -> float:
    try:
        return float(row[i])
    except (IndexError, ValueError):
        raise DataError.single(str(path), name, f"missing or not a number in {row!r}", f"give {name}", lineno) from None


def read_folder_recording(path: Path, camera: CameraModel | None = None) -> Recording:
    """Read the folder ``path`` (module docstring); ``camera`` replaces calibration.yaml."""
    fpath, opath = path / "frames.csv", path / "odometry.csv"
    files: list[Path] = []
    ft: list[float] = []
    for n, row in _rows(fpath, ("file", "time")):
        f = (path / row[0].strip()).resolve()
        if path.resolve() not in f.parents:
            raise DataError.single(str(fpath), "file", f"{row[0]!r} is outside the folder", "list files inside it", n)
        if not f.is_file():
            raise DataError.single(str(fpath), "file", f"{row[0]!r} not found", "list existing image files", n)
        files.append(f)
        ft.append(_float(fpath, row, 1, "time", n))
    if not files:
        raise DataError.single(str(fpath), "", "no frames listed", "list the camera frames")
    orows = _rows(opath, ("time", "x", "y", "yaw"))
    if not orows:
        raise DataError.single(str(opath), "", "no odometry rows", "write time,x,y,yaw per pose")
    odo = np.array([[_float(opath, r, i, k, n) for i, k in enumerate(("time", "x", "y", "yaw"))] for n, r in orows])
    ft_a = np.asarray(ft)
    check_increasing(ft_a, str(fpath), "time", "frame")
    check_increasing(odo[:, 0], str(opath), "time", "odometry")
    cam = camera if camera is not None else read_calibration(path / "calibration.yaml")

    def load(indices: Sequence[int]) -> Iterator[tuple[int, object]]:
        from PIL import Image

        for i in sorted(set(int(i) for i in indices)):
            try:
                with Image.open(files[i]) as img:
                    rgb = img.convert("RGB")
            except (OSError, ValueError, SyntaxError) as exc:  # PIL's UnidentifiedImageError is an OSError
                raise DataError.single(
                    files[i], "", f"cannot be decoded as an image ({exc})", "replace the frame, or drop its row"
                ) from None
            yield i, rgb

    return Recording(
        str(path),
        ft_a,
        odo[:, 0].copy(),
        odo[:, 1:3].copy(),
        odo[:, 3].copy(),
        cam,
        load,
        {"image": "frames.csv", "odometry": "odometry.csv", "camera_info": "calibration.yaml"},
    )
