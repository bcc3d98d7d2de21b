"""Camera geometry of the simulated front view: intrinsics scaled to a frame size, world
points into the robot's frame, near-plane and image-rectangle clipping, projection to pixel
lists, and people's boxes for many positions at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from socialbench.navigation.frames import Pose2D, world_to_local
from socialbench.navigation.projection import PinholeCamera


def scaled_camera(camera: PinholeCamera, size: tuple[int, int]) -> PinholeCamera:
    """``camera`` with its intrinsics scaled to an image of ``size`` (same field of view)."""
    sx, sy = size[0] / camera.width, size[1] / camera.height
    return replace(
        camera,
        fx=camera.fx * sx,
        fy=camera.fy * sy,
        cx=camera.cx * sx,
        cy=camera.cy * sy,
        width=int(size[0]),
        height=int(size[1]),
    )


def to_robot(points_xy: np.ndarray, pose: tuple[float, float, float]) -> np.ndarray:
    """Initial-frame points ``(N, 2)`` in the frame of the robot at ``pose`` (x, y, yaw)."""
    return world_to_local(np.asarray(points_xy, dtype=float).reshape(-1, 2), Pose2D(*pose))


def clip_near(poly: np.ndarray, near: float) -> np.ndarray:
    """Clip a camera-frame polygon ``(M, 3)`` to ``z >= near`` (Sutherland-Hodgman)."""
    out: list[np.ndarray] = []
    m = len(poly)
    for i in range(m):
        a, b = poly[i], poly[(i + 1) % m]
        ina, inb = a[2] >= near, b[2] >= near
        if ina:
            out.append(a)
        if ina != inb:
            s = (near - a[2]) / (b[2] - a[2])
            out.append(a + s * (b - a))
    return np.array(out).reshape(-1, 3)


def clip_to_rect(
    pa: np.ndarray, pb: np.ndarray, x0: float, y0: float, x1: float, y1: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Liang-Barsky clipping of 2-D segments ``pa -> pb`` (``(M, 2)`` each) to a rectangle;
    returns the clipped ends and a mask of the segments that remain."""
    d = pb - pa
    t0 = np.zeros(len(pa))
    t1 = np.ones(len(pa))
    ok = np.ones(len(pa), dtype=bool)
    for p, q in (
        (-d[:, 0], pa[:, 0] - x0),
        (d[:, 0], x1 - pa[:, 0]),
        (-d[:, 1], pa[:, 1] - y0),
        (d[:, 1], y1 - pa[:, 1]),
    ):
        parallel = p == 0
        ok &= ~(parallel & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(parallel, 0.0, q / np.where(parallel, 1.0, p))
        t0 = np.where(~parallel & (p < 0), np.maximum(t0, r), t0)
        t1 = np.where(~parallel & (p > 0), np.minimum(t1, r), t1)
    ok &= t0 <= t1
    return pa + t0[:, None] * d, pa + t1[:, None] * d, ok


def camera_pixels(camera: PinholeCamera, cam_pts: np.ndarray) -> list[tuple[float, float]]:
    """Pixels of camera-frame points ``(N, 3)`` in front of the camera."""
    z = cam_pts[:, 2]
    u = camera.fx * cam_pts[:, 0] / z + camera.cx
    v = camera.fy * cam_pts[:, 1] / z + camera.cy
    return [(float(a), float(b)) for a, b in zip(u, v)]


def person_boxes(
    camera: PinholeCamera, rel: np.ndarray, heights: Sequence[float], widths: Sequence[float], min_depth: float = 0.3
) -> np.ndarray:
    """Vectorised :meth:`PinholeCamera.person_bbox` for robot-frame positions ``rel``
    ``(N, 2)``: ``(N, 4)`` boxes, NaN rows where a corner is closer than the near plane
    plus ``min_depth`` (too close to draw or detect)."""
    rel = np.asarray(rel, dtype=float).reshape(-1, 2)
    n = len(rel)
    if n == 0:
        return np.zeros((0, 4))
    h = np.asarray(heights, dtype=float)
    hw = np.asarray(widths, dtype=float) / 2.0
    x, y = rel[:, 0], rel[:, 1]
    zero = np.zeros(n)
    corners = np.stack(
        [
            np.stack([x, y + hw, zero], 1),
            np.stack([x, y - hw, zero], 1),
            np.stack([x, y + hw, h], 1),
            np.stack([x, y - hw, h], 1),
        ],
        axis=1,
    )  # (N, 4, 3)
    uv, z = camera.project(corners.reshape(-1, 3))
    uv, z = uv.reshape(n, 4, 2), z.reshape(n, 4)
    out = np.concatenate([uv.min(axis=1), uv.max(axis=1)], axis=1)  # x1, y1, x2, y2
    out[(z <= camera.near + min_depth).any(axis=1)] = np.nan
    return out
