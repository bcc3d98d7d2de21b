"""Pedestrian tracks and robot paths, in the robot frame of a sample's first frame.

Coordinates follow the SocialNav-SUB release (reference §a): ``x`` is metres *forward* and
``y`` metres to the *left* of the robot at the sample's first frame F0 (the "initial robot
frame"). Timesteps are 0..9 for frames F0..F0+9 (4 Hz, so 0.25 s apart).

The file format is read and written by :mod:`socialbench.navigation.tracks_json`; which
people a sample shows, and their numbers, by :mod:`socialbench.navigation.track_labels`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

#: Frames per SocialNav-SUB sample.
N_FRAMES = 10
#: Seconds between frames (4 Hz, seed §3.1).
FRAME_DT = 0.25
#: ``pos_diff`` above which the BEV draws a person's heading arrow (official value).
ARROW_POS_DIFF = 0.075

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Observation:
    """One person at one timestep."""

    timestep: int
    x: float  # metres forward, initial robot frame
    y: float  # metres left, initial robot frame
    bbox: BBox | None = None  # [x1, y1, x2, y2] pixels in the raw frame
    pos_diff: float = 0.0  # displacement magnitude since the previous observation (m)

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)

    @property
    def bbox_center(self) -> tuple[float, float] | None:
        if self.bbox is None:
            return None
        x1, y1, x2, y2 = self.bbox
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)


@dataclass(frozen=True)
class PersonTrack:
    """All observations of one tracked person, sorted by timestep, one per timestep."""

    track_id: str
    observations: tuple[Observation, ...]

    def __post_init__(self) -> None:
        steps = [o.timestep for o in self.observations]
        if steps != sorted(set(steps)):
            raise ValueError(
                f"track {self.track_id!r}: observations must have strictly increasing timesteps, got {steps}"
            )

    @property
    def timesteps(self) -> tuple[int, ...]:
        return tuple(o.timestep for o in self.observations)

    @property
    def first(self) -> Observation:
        return self.observations[0]

    @property
    def last(self) -> Observation:
        return self.observations[-1]

    def at(self, timestep: int) -> Observation | None:
        """The observation at ``timestep``, or ``None`` if the person was not seen then."""
        for o in self.observations:
            if o.timestep == timestep:
                return o
        return None

    def positions(self) -> np.ndarray:
        """``(len(observations), 2)`` array of (x, y) in observation order."""
        return np.array([[o.x, o.y] for o in self.observations], dtype=float).reshape(-1, 2)

    def heading(self, timestep: int) -> float | None:
        """Direction of motion (radians, 0 = forward, positive = to the left) at ``timestep``.

        Computed from the displacement to the next observation, or from the previous one at
        the last observation; 0.0 for a track seen once (as the official code does);
        ``None`` if the person is not seen at ``timestep``.
        """
        idx = next((i for i, o in enumerate(self.observations) if o.timestep == timestep), None)
        if idx is None:
            return None
        if len(self.observations) == 1:
            return 0.0
        if idx + 1 < len(self.observations):
            a, b = self.observations[idx], self.observations[idx + 1]
        else:
            a, b = self.observations[idx - 1], self.observations[idx]
        return math.atan2(b.y - a.y, b.x - a.x)

    def with_positions(self, xy: np.ndarray) -> PersonTrack:
        """A copy with new (x, y) per observation; ``pos_diff`` is recomputed from them."""
        xy = np.asarray(xy, dtype=float)
        if xy.shape != (len(self.observations), 2):
            raise ValueError(
                f"track {self.track_id!r}: expected positions of shape ({len(self.observations)}, 2), got {xy.shape}"
            )
        obs = []
        for i, o in enumerate(self.observations):
            diff = 0.0 if i == 0 else float(np.hypot(*(xy[i] - xy[i - 1])))
            obs.append(replace(o, x=float(xy[i, 0]), y=float(xy[i, 1]), pos_diff=diff))
        return PersonTrack(self.track_id, tuple(obs))


@dataclass(frozen=True, eq=False, init=False)
class RobotPath:
    """Robot poses per timestep in the initial robot frame.

    ``yaw`` is the robot's orientation (from odometry): the direction the camera looks.
    ``heading`` is the direction of the arrow drawn in the BEV; the official renderer
    points it at a later waypoint (see :func:`socialbench.navigation.frames.waypoint_headings`).
    It defaults to ``yaw``.
    """

    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    heading: np.ndarray

    def __init__(self, x: np.ndarray, y: np.ndarray, yaw: np.ndarray, heading: np.ndarray | None = None) -> None:
        # A hand-written __init__ because ``heading`` is optional to the caller but always
        # set on the instance (a copy of ``yaw`` when not given).
        x = np.asarray(x, dtype=float).reshape(-1)
        y = np.asarray(y, dtype=float).reshape(-1)
        yaw = np.asarray(yaw, dtype=float).reshape(-1)
        heading = yaw.copy() if heading is None else np.asarray(heading, float).reshape(-1)
        if not (len(x) == len(y) == len(yaw) == len(heading)) or len(x) == 0:
            raise ValueError(
                f"RobotPath: x, y, yaw, heading must be non-empty and of equal length, got "
                f"{len(x)}, {len(y)}, {len(yaw)}, {len(heading)}"
            )
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "yaw", yaw)
        object.__setattr__(self, "heading", heading)

    def __len__(self) -> int:
        return len(self.x)

    def pose(self, t: int) -> tuple[float, float, float]:
        """(x, y, yaw) at timestep ``t``."""
        return (float(self.x[t]), float(self.y[t]), float(self.yaw[t]))

    def xy(self) -> np.ndarray:
        return np.stack([self.x, self.y], axis=1)

    @classmethod
    def stationary(cls, n_frames: int = N_FRAMES) -> RobotPath:
        """A robot standing at the origin facing forward for ``n_frames`` timesteps."""
        z = np.zeros(n_frames)
        return cls(z, z.copy(), z.copy())


def make_track(
    track_id: str,
    xy: Sequence[Sequence[float]],
    timesteps: Sequence[int] | None = None,
    bboxes: Sequence[BBox | None] | None = None,
) -> PersonTrack:
    """Convenience constructor: positions (and optional timesteps / bboxes) -> track with
    ``pos_diff`` computed from the positions."""
    xy_arr = np.asarray(xy, dtype=float).reshape(-1, 2)
    steps = list(range(len(xy_arr))) if timesteps is None else [int(t) for t in timesteps]
    boxes = [None] * len(xy_arr) if bboxes is None else list(bboxes)
    if not (len(steps) == len(xy_arr) == len(boxes)):
        raise ValueError("make_track: xy, timesteps and bboxes must have the same length")
    obs = tuple(Observation(t, float(p[0]), float(p[1]), b) for t, p, b in zip(steps, xy_arr, boxes))
    return PersonTrack(track_id, obs).with_positions(xy_arr)
