"""Pinhole camera projection between the robot frame and the front-view image.

Frames
------
* Robot frame: x forward, y left, z up (metres), origin on the ground below the robot
  reference point.
* The camera sits at ``(x_offset, 0, camera_height)`` in the robot frame, looking forward,
  tilted down by ``pitch`` radians (0 = level).
* Camera frame (OpenCV convention): z forward along the optical axis, x right, y down.
  For a level camera: ``X_c = -y_r``, ``Y_c = -(z_r - camera_height)``,
  ``Z_c = x_r - x_offset``.
* Pixels: ``u = fx·X_c/Z_c + cx`` (column, right), ``v = fy·Y_c/Z_c + cy`` (row, down).

Defaults are the SCAND Spot intrinsics of ``dataset_cfg.yaml``. The release does not give
the camera's height or offset: ``camera_height`` 0.6 m and ``x_offset`` 0 are assumptions
(``dataset_cfg.yaml``'s ``camera_height`` / ``camera_x_offset`` are read when present).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from socialbench.errors import DataError

SCAND_DATASET_CFG = """\
dataset_name: scand_spot
camera_matrix:
  fx: 623.3087
  fy: 624.91863
  cx: 640
  cy: 360
native_resolution_x: 1280
native_resolution_y: 720
"""
"""The release's ``dataset_cfg.yaml`` (SCAND Spot intrinsics, :class:`PinholeCamera`'s
defaults), as the synthetic fixture and the simulator write it."""

#: The keys a ``dataset_cfg.yaml`` may hold: the release's (``dataset_name``, ``camera_matrix``,
#: ``native_resolution_x/y``; reference §1) and the camera mounting socialbench reads when present.
DATASET_CFG_KEYS = (
    "dataset_name",
    "camera_matrix",
    "native_resolution_x",
    "native_resolution_y",
    "camera_height",
    "camera_x_offset",
)
#: The keys of ``camera_matrix`` written as a mapping (or ``{data: [9 numbers]}``, OpenCV's).
CAMERA_MATRIX_KEYS = ("fx", "fy", "cx", "cy")


@dataclass(frozen=True)
class PinholeCamera:
    """Intrinsics plus a fixed mounting on the robot (see the module docstring)."""

    fx: float = 623.3087
    fy: float = 624.91863
    cx: float = 640.0
    cy: float = 360.0
    width: int = 1280
    height: int = 720
    camera_height: float = 0.6
    x_offset: float = 0.0
    pitch: float = 0.0  # radians, positive tilts the camera down
    near: float = 0.1  # metres: points closer than this along the axis are not visible

    # ----------------------------------------------------------------- transforms

    def _rotation(self) -> np.ndarray:
        """Level-camera coordinates -> pitched camera coordinates."""
        c, s = math.cos(self.pitch), math.sin(self.pitch)
        return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])

    def robot_to_camera(self, points: npt.ArrayLike) -> np.ndarray:
        """Robot-frame points ``(N, 3)`` -> camera-frame points ``(N, 3)``."""
        p = np.asarray(points, dtype=float).reshape(-1, 3)
        level = np.stack([-p[:, 1], -(p[:, 2] - self.camera_height), p[:, 0] - self.x_offset], axis=1)
        return level @ self._rotation().T

    # ----------------------------------------------------------------- projection

    def project(self, points: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Robot-frame points ``(N, 3)`` -> (pixels ``(N, 2)``, depth ``(N,)``).

        Depth is the camera-frame z. Pixels of points with depth <= 0 are NaN."""
        c = self.robot_to_camera(points)
        z = c[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.where(z > 0, self.fx * c[:, 0] / z + self.cx, np.nan)
            v = np.where(z > 0, self.fy * c[:, 1] / z + self.cy, np.nan)
        return np.stack([u, v], axis=1), z

    def visible(self, points: npt.ArrayLike, margin: float = 0.0) -> np.ndarray:
        """Boolean ``(N,)``: in front of the camera (depth > ``near``) and inside the image
        grown by ``margin`` pixels on every side."""
        uv, z = self.project(points)
        with np.errstate(invalid="ignore"):
            inside = (
                (uv[:, 0] >= -margin)
                & (uv[:, 0] < self.width + margin)
                & (uv[:, 1] >= -margin)
                & (uv[:, 1] < self.height + margin)
            )
        return (z > self.near) & inside

    def person_bbox(
        self, x: float, y: float, person_height: float = 1.7, person_width: float = 0.5
    ) -> tuple[float, float, float, float] | None:
        """Pixel box ``(x1, y1, x2, y2)`` of an upright person standing at robot-frame
        ``(x, y)``, modelled as a vertical ``person_width × person_height`` rectangle facing
        the camera; ``None`` if any corner is behind the near plane. Not clipped to the image."""
        hw = person_width / 2.0
        corners = np.array([[x, y + hw, 0.0], [x, y - hw, 0.0], [x, y + hw, person_height], [x, y - hw, person_height]])
        uv, z = self.project(corners)
        if (z <= self.near).any():
            return None
        return (float(uv[:, 0].min()), float(uv[:, 1].min()), float(uv[:, 0].max()), float(uv[:, 1].max()))

    # ----------------------------------------------------------------- construction

    @classmethod
    def from_dataset_cfg(cls, cfg: Mapping[str, object] | str | Path, **overrides: float) -> PinholeCamera:
        """Build from ``dataset_cfg.yaml`` (a path or the parsed mapping).

        ``camera_matrix`` may be ``{fx, fy, cx, cy}``, a 3×3 nested list, a flat list of 9,
        or an OpenCV-style ``{data: [...9]}``. ``native_resolution_x/y``, ``camera_height``
        and ``camera_x_offset`` are used when present."""
        source = "<dataset_cfg>"
        if isinstance(cfg, (str, Path)):
            from socialbench.files.yaml_read import load_yaml

            source = str(cfg)
            try:
                cfg = load_yaml(Path(cfg).read_text(encoding="utf-8")) or {}
            except FileNotFoundError:
                raise DataError.single(source, "", "file not found") from None
        if not isinstance(cfg, Mapping):
            raise DataError.single(source, "", "expected a mapping")
        kw: dict[str, Any] = {}  # ints and floats, by field
        cm = cfg.get("camera_matrix")
        if cm is not None:
            kw.update(_intrinsics(cm, source))
        for key, name, typ in (
            ("native_resolution_x", "width", int),
            ("native_resolution_y", "height", int),
            ("camera_height", "camera_height", float),
            ("camera_x_offset", "x_offset", float),
        ):
            value = cfg.get(key)
            if value is not None:
                try:
                    if not isinstance(value, (int, float, str)):  # what int() / float() take
                        raise TypeError(value)
                    kw[name] = typ(value)
                except (TypeError, ValueError):
                    raise DataError.single(source, key, f"not a number: {value!r}") from None
        kw.update(overrides)
        return cls(**kw)


def _intrinsics(cm: object, source: str) -> dict[str, float]:
    try:
        if isinstance(cm, Mapping) and "data" in cm:
            cm = cm["data"]
        if isinstance(cm, Mapping):
            return {k: float(cm[k]) for k in ("fx", "fy", "cx", "cy")}
        arr = np.asarray(cm, dtype=float).reshape(3, 3)
        return {"fx": arr[0, 0], "fy": arr[1, 1], "cx": arr[0, 2], "cy": arr[1, 2]}
    except (KeyError, TypeError, ValueError):
        raise DataError.single(
            source,
            "camera_matrix",
            f"unrecognised camera matrix {cm!r}",
            "give {fx, fy, cx, cy} or a 3x3 matrix",
        ) from None
