"""Coordinate frames: world odometry <-> the robot frame of a sample's first frame.

A 2-D pose ``(x, y, yaw)`` is an SE(2) transform, ``yaw`` in radians counter-clockwise from
the world x axis. The *initial robot frame* of a sample is the robot's pose at its first
frame F0 (x forward, y left); tracks and the goal are given in it.

Robot pose at timestep t (the off-by-one fix): the image at t is frame ``F0 + t`` and the
pose comes from odometry index ``F0 + t``, so the robot sits at the origin at t = 0, where
the tracks' frame is defined. The official renderer uses ``F0 + 1 + t`` (reference §9 item
14), drawing the robot 0.25 s ahead of the image and the people; ``official_offset=True``
reproduces that.

Drawn heading: as the official renderer, the BEV arrow at t points at the waypoint 3
ahead (t + 3), else 2 ahead, else 1 ahead, else keeps the previous heading; but a waypoint
closer than ``min_step`` (robot standing still) is skipped instead of giving atan2(0, 0) =
0, and with no usable waypoint at t = 0 the odometry yaw is used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from socialbench.errors import DataError
from socialbench.navigation.track_labels import label_people
from socialbench.navigation.tracks import N_FRAMES, PersonTrack, RobotPath
from socialbench.navigation.tracks_json import load_tracks


@overload
def wrap_angle(a: float) -> float: ...
@overload
def wrap_angle(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
def wrap_angle(a: float | npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """Wrap radians to [-pi, pi); a float for scalar input, else an array."""
    r = (np.asarray(a, dtype=float) + math.pi) % (2 * math.pi) - math.pi
    return float(r) if r.ndim == 0 else r


@dataclass(frozen=True)
class Pose2D:
    """An SE(2) pose / transform."""

    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0


def world_to_local(points: npt.ArrayLike, origin: Pose2D) -> np.ndarray:
    """World points ``(..., 2)`` -> the frame whose world pose is ``origin``."""
    p = np.asarray(points, dtype=float)
    d = p - np.array([origin.x, origin.y])
    c, s = math.cos(origin.yaw), math.sin(origin.yaw)
    return np.stack([c * d[..., 0] + s * d[..., 1], -s * d[..., 0] + c * d[..., 1]], axis=-1)


def local_to_world(points: npt.ArrayLike, origin: Pose2D) -> np.ndarray:
    """Inverse of :func:`world_to_local`."""
    p = np.asarray(points, dtype=float)
    c, s = math.cos(origin.yaw), math.sin(origin.yaw)
    return np.stack([origin.x + c * p[..., 0] - s * p[..., 1], origin.y + s * p[..., 0] + c * p[..., 1]], axis=-1)


# --------------------------------------------------------------------------- odometry


@dataclass(frozen=True, eq=False)
class Odometry:
    """Robot world poses for every frame of a source sequence (``traj_data.pkl``)."""

    position: np.ndarray  # (N, 2) world x, y in metres, index = frame number
    yaw: np.ndarray  # (N,) radians
    source: str = "<odometry>"

    def __len__(self) -> int:
        return len(self.yaw)

    def pose(self, index: int) -> Pose2D:
        return Pose2D(float(self.position[index, 0]), float(self.position[index, 1]), float(self.yaw[index]))


def odometry_from_mapping(data: object, source: str = "<odometry>") -> Odometry:
    """Validate the unpickled ``traj_data.pkl`` dict (keys ``position`` and ``yaw``)."""
    if not isinstance(data, Mapping):
        raise DataError.single(source, "", f"expected a dict with 'position' and 'yaw', got {type(data).__name__}")
    for key in ("position", "yaw"):
        if key not in data:
            raise DataError.single(
                source, key, "missing", "traj_data.pkl needs 'position' ([x, y] per frame) and 'yaw'"
            )
    try:
        pos = np.asarray(data["position"], dtype=float)
        yaw = np.asarray(data["yaw"], dtype=float).reshape(-1)
    except (TypeError, ValueError) as e:
        raise DataError.single(source, "position/yaw", f"not numeric: {e}") from None
    if pos.ndim != 2 or pos.shape[1] < 2:
        raise DataError.single(source, "position", f"expected shape (N, 2), got {pos.shape}")
    pos = pos[:, :2]
    if len(pos) != len(yaw):
        raise DataError.single(source, "yaw", f"length {len(yaw)} differs from position length {len(pos)}")
    if not (np.isfinite(pos).all() and np.isfinite(yaw).all()):
        raise DataError.single(source, "position/yaw", "contains NaN or infinite values")
    return Odometry(pos, yaw, source)


def load_odometry(path: str | Path) -> Odometry:
    """Read ``traj_data.pkl`` through the restricted unpickler (never plain pickle)."""
    from socialbench.files.safe_pickle import load_pickle_safely

    return odometry_from_mapping(load_pickle_safely(path), str(path))


def waypoint_headings(
    xy: np.ndarray, fallback_yaw: Sequence[float] | npt.NDArray[np.float64], lookahead: int = 3, min_step: float = 1e-3
) -> np.ndarray:
    """Heading at each waypoint towards the one ``lookahead`` ahead (then fewer, then the
    previous heading); see the module docstring."""
    xy = np.asarray(xy, dtype=float)
    n = len(xy)
    out = np.zeros(n)
    for t in range(n):
        h = None
        for k in range(lookahead, 0, -1):
            if t + k < n:
                d = xy[t + k] - xy[t]
                if math.hypot(d[0], d[1]) > min_step:
                    h = math.atan2(d[1], d[0])
                    break
        if h is None:
            h = out[t - 1] if t > 0 else float(fallback_yaw[t])
        out[t] = h
    return out


def robot_path_from_odometry(
    odom: Odometry, first_frame: int, n_frames: int = N_FRAMES, official_offset: bool = False
) -> RobotPath:
    """Robot poses for timesteps 0..n_frames-1 in the robot frame of ``first_frame``.

    Pose t comes from odometry index ``first_frame + t`` (``first_frame + 1 + t`` with
    ``official_offset``); see the module docstring.
    """
    start = first_frame + (1 if official_offset else 0)
    end = start + n_frames
    if first_frame < 0 or end > len(odom):
        raise DataError.single(
            odom.source,
            "position",
            f"needs odometry indices {first_frame}..{end - 1} for first frame {first_frame}, "
            f"but has {len(odom)} entries",
            "check the sample's first frame number and that traj_data.pkl covers the whole sequence",
        )
    origin = odom.pose(first_frame)
    xy = world_to_local(odom.position[start:end], origin)
    yaw = wrap_angle(odom.yaw[start:end] - origin.yaw)
    return RobotPath(xy[:, 0], xy[:, 1], yaw, waypoint_headings(xy, yaw))


# --------------------------------------------------------------------------- scenes


@dataclass(frozen=True, eq=False)
class Scene:
    """Everything geometric about one sample, in the initial robot frame."""

    people: dict[int, PersonTrack]  # label -> track (kept and numbered as officially)
    robot: RobotPath
    goal_xy: tuple[float, float] | None
    frames: tuple[Path, ...] = ()
    n_people: int | None = None  # as stated by the dataset; may differ from len(people)
    sample_id: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def _goal(v: object, source: str) -> tuple[float, float] | None:
    if v is None:
        return None
    try:
        if not isinstance(v, Iterable):
            raise TypeError(v)
        gx, gy = (float(c) for c in v)
    except (TypeError, ValueError):
        raise DataError.single(source, "goal_xy", f"expected [gx, gy] metres, got {v!r}") from None
    return (gx, gy)


def load_scene(metadata: Mapping[str, Any], official_offset: bool = False, require_odometry: bool = True) -> Scene:
    """Assemble a :class:`Scene` from a SocialNav-SUB item's metadata.

    Uses ``tracks_path``, ``odometry_path``, ``first_frame``, ``frames``, ``goal_xy`` and
    ``n_people``. Without ``odometry_path`` the robot is drawn standing at the origin when
    ``require_odometry`` is False; otherwise that is a :class:`DataError`.
    """
    source = str(metadata.get("sample_dir") or "<item metadata>")
    frames = tuple(Path(f) for f in (metadata.get("frames") or ()))
    n_frames = len(frames) or N_FRAMES
    tp = metadata.get("tracks_path")
    if not tp:
        raise DataError.single(
            source,
            "tracks_path",
            "no pedestrian tracks for this sample",
            "add prompts/<S>/<S>_localized_obj_coords.json",
        )
    people = label_people(load_tracks(tp), n_frames)
    op = metadata.get("odometry_path")
    if op:
        ff = metadata.get("first_frame")
        if isinstance(ff, bool) or not isinstance(ff, int):
            raise DataError.single(source, "first_frame", f"expected an integer frame number, got {ff!r}")
        robot = robot_path_from_odometry(load_odometry(op), ff, n_frames, official_offset)
    elif require_odometry:
        raise DataError.single(
            source, "odometry_path", "no robot odometry for this sample", "add front_view/<S>/traj_data.pkl"
        )
    else:
        robot = RobotPath.stationary(n_frames)
    n = metadata.get("n_people")
    return Scene(
        people,
        robot,
        _goal(metadata.get("goal_xy"), source),
        frames,
        int(n) if isinstance(n, int) else None,
        Path(source).name if source else "",
    )
