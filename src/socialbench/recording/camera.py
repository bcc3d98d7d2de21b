"""A calibrated camera on the robot: intrinsics, and the camera-to-robot transform.

Frames: the camera's optical frame is OpenCV's (z forward, x right, y down); the robot frame
(``base_link``) is x forward, y left, z up with its origin on the floor. ``rotation`` and
``translation`` give the camera in the robot frame: ``p_robot = rotation @ p_camera +
translation`` (what a static TF ``base_link -> camera`` holds). :meth:`CameraModel.lift`
intersects the ray through a pixel with the floor (z = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from socialbench.navigation.projection import PinholeCamera

#: Optical frame -> robot frame for a level, forward-looking camera.
LEVEL_OPTICAL = ((0.0, 0.0, 1.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0))

__all__ = ["CameraModel", "LEVEL_OPTICAL", "quaternion_matrix", "matrix_quaternion"]


def quaternion_matrix(x: float, y: float, z: float, w: float) -> np.ndarray:
    """Rotation matrix of the unit quaternion (x, y, z, w) (normalised first)."""
    q = np.array([x, y, z, w], dtype=float)
    n = float(np.linalg.norm(q))
    if not math.isfinite(n) or n < 1e-9:
        raise ValueError("quaternion of zero length")
    x, y, z, w = q / n
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def matrix_quaternion(r: npt.ArrayLike) -> tuple[float, float, float, float]:
    """Unit quaternion (x, y, z, w) of a rotation matrix."""
    m = np.asarray(r, dtype=float)
    tr = float(np.trace(m))
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x, y, z = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, x, y, z = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, x, y, z = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, x, y, z = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    return (float(x), float(y), float(z), float(w))


@dataclass(frozen=True, eq=False)
class CameraModel:
    """Pinhole intrinsics (pixels of the published image) and the camera's pose on the robot."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int
    rotation: np.ndarray  # (3, 3) optical -> robot
    translation: np.ndarray  # (3,) camera origin in the robot frame (m)

    @classmethod
    def level(cls, pinhole: PinholeCamera) -> CameraModel:
        """The camera of a :class:`PinholeCamera` (pitched down by its ``pitch``)."""
        c, s = math.cos(pinhole.pitch), math.sin(pinhole.pitch)
        pitch_down = np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])  # pitched -> level optical
        rot = np.array(LEVEL_OPTICAL) @ pitch_down
        return cls(
            pinhole.fx,
            pinhole.fy,
            pinhole.cx,
            pinhole.cy,
            pinhole.width,
            pinhole.height,
            rot,
            np.array([pinhole.x_offset, 0.0, pinhole.camera_height]),
        )

    @property
    def pitch(self) -> float:
        """Downward tilt of the optical axis (radians)."""
        axis = self.rotation[:, 2]
        return float(math.atan2(-axis[2], math.hypot(axis[0], axis[1])))

    def pinhole(self) -> PinholeCamera:
        """The :class:`PinholeCamera` the renderers use (height, forward offset and pitch;
        a sideways offset or a yawed camera is not representable there)."""
        return PinholeCamera(
            fx=self.fx,
            fy=self.fy,
            cx=self.cx,
            cy=self.cy,
            width=self.width,
            height=self.height,
            camera_height=float(self.translation[2]),
            x_offset=float(self.translation[0]),
            pitch=self.pitch,
        )

    def dataset_cfg(self) -> str:
        """``dataset_cfg.yaml`` of a release built from this camera."""
        return (
            "dataset_name: socialbench_recording\n"
            "camera_matrix:\n"
            f"  fx: {self.fx:.6g}\n  fy: {self.fy:.6g}\n  cx: {self.cx:.6g}\n  cy: {self.cy:.6g}\n"
            f"native_resolution_x: {self.width}\nnative_resolution_y: {self.height}\n"
            f"camera_height: {float(self.translation[2]):.6g}\n"
            f"camera_x_offset: {float(self.translation[0]):.6g}\n"
        )

    def lift(self, uv: npt.ArrayLike) -> np.ndarray:
        """Pixels ``(N, 2)`` -> robot-frame floor points ``(N, 2)``: the ray through each
        pixel meets the floor z = 0 (NaN where the ray points at or above the horizon)."""
        p = np.asarray(uv, dtype=float).reshape(-1, 2)
        rays = np.stack([(p[:, 0] - self.cx) / self.fx, (p[:, 1] - self.cy) / self.fy, np.ones(len(p))], axis=1)
        d = rays @ self.rotation.T  # robot-frame directions
        h = float(self.translation[2])
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(d[:, 2] < -1e-9, -h / d[:, 2], np.nan)
        pts = self.translation[None, :2] + s[:, None] * d[:, :2]
        return np.asarray(pts)
