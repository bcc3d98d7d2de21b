"""The ground truth the exact answers are computed from (:class:`SceneTruth`: robot path,
goal, labelled people), the thresholds of the definitions (:class:`AnswerThresholds`) and
the geometry they share (angles, closest approach, the corridor to the goal). Notation and
definitions: docs/simulation.md."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.navigation.tracks import FRAME_DT, RobotPath

__all__ = [
    "AnswerThresholds",
    "DEFAULT_THRESHOLDS",
    "PersonTruth",
    "SceneTruth",
    "angle_between",
    "closest_approach",
    "in_corridor",
    "velocities",
]


@dataclass(frozen=True)
class AnswerThresholds:
    """Every number the definitions use (see docs/simulation.md)."""

    ahead_half_angle_deg: float = 25.0
    ahead_lateral_m: float = 0.5
    behind_angle_deg: float = 135.0
    goal_ahead_half_angle_deg: float = 20.0
    distance_band_m: float = 0.5
    distance_band_frac: float = 0.1
    moving_min_m: float = 0.3
    turn_deg: float = 10.0
    lateral_turn_m: float = 0.4
    sharp_turn_deg: float = 45.0
    corridor_half_width_m: float = 0.8
    conflict_distance_m: float = 1.2
    conflict_horizon_s: float = 2.0
    future_horizon_s: float = 4.0
    walking_speed_mps: float = 0.3
    same_direction_deg: float = 45.0
    opposite_direction_deg: float = 135.0
    speed_margin_mps: float = 0.15
    slow_fraction: float = 0.5
    goal_reached_m: float = 0.4


#: The thresholds of docs/simulation.md.
DEFAULT_THRESHOLDS = AnswerThresholds()


@dataclass(frozen=True, eq=False)
class PersonTruth:
    """True positions of one person at every frame, and the frames where it is labelled."""

    xy: np.ndarray  # (T, 2)
    seen: tuple[int, ...]

    def __post_init__(self) -> None:
        xy = np.asarray(self.xy, dtype=float).reshape(-1, 2)
        seen = tuple(sorted(int(t) for t in self.seen))
        if not seen:
            raise ValueError("PersonTruth: a labelled person needs at least one seen timestep")
        if seen[0] < 0 or seen[-1] >= len(xy):
            raise ValueError(f"PersonTruth: seen timesteps {seen} outside 0..{len(xy) - 1}")
        object.__setattr__(self, "xy", xy)
        object.__setattr__(self, "seen", seen)

    @property
    def begin(self) -> int:
        return self.seen[0]

    @property
    def end(self) -> int:
        return self.seen[-1]

    def velocities(self) -> np.ndarray:
        return velocities(self.xy)


@dataclass(frozen=True, eq=False)
class SceneTruth:
    """Ground truth of one sample: robot path, goal and labelled people."""

    robot: RobotPath
    goal_xy: tuple[float, float]
    people: Mapping[int, PersonTruth]
    cruise_speed: float = 1.0


def velocities(xy: np.ndarray) -> np.ndarray:
    """Velocities of positions sampled at every frame: central differences (one-sided at
    the ends; zero for a single position)."""
    xy = np.asarray(xy, dtype=float)
    if len(xy) < 2:
        return np.zeros_like(xy)
    return np.gradient(xy, FRAME_DT, axis=0)


def angle_between(a: Sequence[float], b: Sequence[float]) -> float:
    """Unsigned angle between two vectors in degrees (0 if either is zero)."""
    na, nb = math.hypot(a[0], a[1]), math.hypot(b[0], b[1])
    if na == 0.0 or nb == 0.0:
        return 0.0
    c = (a[0] * b[0] + a[1] * b[1]) / (na * nb)
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def closest_approach(dp: Sequence[float], dv: Sequence[float], horizon: float) -> tuple[float, float]:
    """(tau*, d_cpa) of two agents at relative position ``dp`` and velocity ``dv``."""
    dvv = dv[0] * dv[0] + dv[1] * dv[1]
    tau = 0.0 if dvv == 0.0 else min(horizon, max(0.0, -(dp[0] * dv[0] + dp[1] * dv[1]) / dvv))
    return tau, math.hypot(dp[0] + dv[0] * tau, dp[1] + dv[1] * tau)


def in_corridor(point: Sequence[float], start: Sequence[float], goal: Sequence[float], half_width: float) -> bool:
    """Whether ``point`` lies in the corridor of ``half_width`` from ``start`` to ``goal``."""
    ax, ay = float(start[0]), float(start[1])
    gx, gy = float(goal[0]) - ax, float(goal[1]) - ay
    length = math.hypot(gx, gy)
    if length == 0.0:
        return False
    ux, uy = gx / length, gy / length
    px, py = float(point[0]) - ax, float(point[1]) - ay
    along = px * ux + py * uy
    across = -px * uy + py * ux
    return 0.0 <= along <= length and abs(across) <= half_width
