"""Spatial relations of the SocialNav-SUB questions, as pure functions of geometry.

Used by both the rule-based baseline on noisy tracks (:mod:`socialbench.navigation.rules`)
and the simulator's exact answers (:mod:`socialbench.simulation.questions`), each passing
its own thresholds (and ``lateral_needs_motion`` of the direction rule).

Positions are in the initial robot frame (x forward, y left, metres); "relative to the robot
at t" is :func:`relative`: the point expressed in the robot's own frame at timestep t
(forward ``f``, left ``l``), with bearing ``beta = atan2(l, f)``.

* :func:`person_sector`: ``|beta| > behind_angle_deg`` -> "behind"; ``f > 0`` and
  (``|beta| <= ahead_half_angle_deg`` or ``|l| <= ahead_lateral_m``) -> "ahead of"; else
  "to the left of" (``l > 0``) / "to the right of".
* :func:`goal_sector`: the same "ahead" test, no "behind" (a goal behind counts to its
  side): "ahead" / "to the left" (``l >= 0``) / "to the right".
* :func:`distance_change`: band ``max(band_m, band_frac · d_begin)``; "closer to" if
  ``d_end < d_begin - band``, "further away from" if ``d_end > d_begin + band``, else
  "about the same distance to".
* :func:`robot_direction`: heading change ``δ`` = yaw(last) - yaw(0) and the end position
  (``φ``, ``λ``) relative to the robot at 0. A turn is the sign of ``δ`` when
  ``|δ| >= turn_deg``, else the sign of ``λ`` when ``|λ| >= lateral_m`` (with
  ``lateral_needs_motion``, ``λ`` counts only when the robot moved ``|(φ, λ)| >=
  moving_min_m``). "moving ahead" is selected when there is no turn, or when the robot
  progressed ``φ >= moving_min_m`` with ``|δ| < sharp_turn_deg``. Options in the order
  "moving ahead", "turning left", "turning right".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from socialbench.navigation.frames import Pose2D, world_to_local, wrap_angle
from socialbench.navigation.tracks import RobotPath

__all__ = [
    "relative",
    "person_sector",
    "goal_sector",
    "distance_change",
    "robot_direction",
]


def relative(point: Sequence[float] | np.ndarray, robot: RobotPath, t: int) -> tuple[float, float]:
    """``point`` (initial frame) relative to the robot at timestep ``t``: (forward, left)."""
    d = world_to_local(np.asarray(point, dtype=float), Pose2D(*robot.pose(t)))
    return (float(d[0]), float(d[1]))


def _ahead(forward: float, left: float, bearing_deg: float, half_angle_deg: float, lateral_m: float) -> bool:
    return forward > 0 and (abs(bearing_deg) <= half_angle_deg or abs(left) <= lateral_m)


def person_sector(
    forward: float, left: float, *, ahead_half_angle_deg: float, ahead_lateral_m: float, behind_angle_deg: float
) -> str:
    """Person option ("ahead of", "to the left of", "to the right of", "behind") for a
    position (``forward``, ``left``) relative to the robot."""
    beta = math.degrees(math.atan2(left, forward))
    if abs(beta) > behind_angle_deg:
        return "behind"
    if _ahead(forward, left, beta, ahead_half_angle_deg, ahead_lateral_m):
        return "ahead of"
    return "to the left of" if left > 0 else "to the right of"


def goal_sector(forward: float, left: float, *, ahead_half_angle_deg: float, ahead_lateral_m: float) -> str:
    """Goal option ("ahead", "to the left", "to the right") for a position relative to the
    robot; a goal behind counts to its side."""
    beta = math.degrees(math.atan2(left, forward))
    if _ahead(forward, left, beta, ahead_half_angle_deg, ahead_lateral_m):
        return "ahead"
    return "to the left" if left >= 0 else "to the right"


def distance_change(d_begin: float, d_end: float, *, band_m: float, band_frac: float) -> str:
    """How a person's distance to the robot changed from ``d_begin`` to ``d_end``."""
    band = max(band_m, band_frac * d_begin)
    if d_end < d_begin - band:
        return "closer to"
    if d_end > d_begin + band:
        return "further away from"
    return "about the same distance to"


def robot_direction(
    robot: RobotPath,
    *,
    moving_min_m: float,
    turn_deg: float,
    sharp_turn_deg: float,
    lateral_m: float,
    lateral_needs_motion: bool,
) -> tuple[str, ...]:
    """Selected options of the multiple-select robot direction question, in option order."""
    last = len(robot) - 1
    delta = math.degrees(wrap_angle(robot.yaw[last] - robot.yaw[0]))
    fwd, lat = relative((robot.x[last], robot.y[last]), robot, 0)
    if lateral_needs_motion and math.hypot(fwd, lat) < moving_min_m:
        lat = 0.0
    turn = 0
    if abs(delta) >= turn_deg:
        turn = 1 if delta > 0 else -1
    elif abs(lat) >= lateral_m:
        turn = 1 if lat > 0 else -1
    ahead = last > 0 and fwd >= moving_min_m and abs(delta) < sharp_turn_deg
    chosen = []
    if ahead or turn == 0:
        chosen.append("moving ahead")
    if turn > 0:
        chosen.append("turning left")
    elif turn < 0:
        chosen.append("turning right")
    return tuple(chosen)
