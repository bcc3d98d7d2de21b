"""Exact answers of the spatial questions (person and goal sectors, distance change, the
robot's direction, obstruction of the corridor to the goal); definitions in
docs/simulation.md. The sector and direction rules are
:mod:`socialbench.navigation.relations`, shared with the rule-based baseline."""

from __future__ import annotations

from collections.abc import Sequence

from socialbench.navigation import relations
from socialbench.navigation.tracks import RobotPath
from socialbench.simulation.truth import DEFAULT_THRESHOLDS, AnswerThresholds, PersonTruth, in_corridor

__all__ = [
    "spatial_position",
    "goal_position",
    "distance_change",
    "robot_moving_direction",
    "obstructs_path",
    "obstructs_end",
]


def spatial_position(forward: float, left: float, th: AnswerThresholds = DEFAULT_THRESHOLDS) -> str:
    """Person sector for a position (``forward``, ``left``) relative to the robot."""
    return relations.person_sector(
        forward,
        left,
        ahead_half_angle_deg=th.ahead_half_angle_deg,
        ahead_lateral_m=th.ahead_lateral_m,
        behind_angle_deg=th.behind_angle_deg,
    )


def goal_position(forward: float, left: float, th: AnswerThresholds = DEFAULT_THRESHOLDS) -> str:
    """Goal sector (no "behind": a goal behind counts to its side); the goal's own half angle."""
    return relations.goal_sector(
        forward, left, ahead_half_angle_deg=th.goal_ahead_half_angle_deg, ahead_lateral_m=th.ahead_lateral_m
    )


def distance_change(d_begin: float, d_end: float, th: AnswerThresholds = DEFAULT_THRESHOLDS) -> str:
    """Distance option for a person ``d_begin`` / ``d_end`` metres from the robot at b / e."""
    return relations.distance_change(d_begin, d_end, band_m=th.distance_band_m, band_frac=th.distance_band_frac)


def robot_moving_direction(robot: RobotPath, th: AnswerThresholds = DEFAULT_THRESHOLDS) -> tuple[str, ...]:
    """Selected options of the multiple-select direction question, in option order (the
    true path has no drift, so lateral motion counts whether or not the robot moved)."""
    return relations.robot_direction(
        robot,
        moving_min_m=th.moving_min_m,
        turn_deg=th.turn_deg,
        sharp_turn_deg=th.sharp_turn_deg,
        lateral_m=th.lateral_turn_m,
        lateral_needs_motion=False,
    )


def obstructs_path(
    person: PersonTruth, robot: RobotPath, goal: Sequence[float], th: AnswerThresholds = DEFAULT_THRESHOLDS
) -> bool:
    last = len(robot) - 1
    for t in range(person.begin, person.end + 1):
        r = (robot.x[min(t, last)], robot.y[min(t, last)])
        if in_corridor(person.xy[t], r, goal, th.corridor_half_width_m):
            return True
    return False


def obstructs_end(
    person: PersonTruth, robot: RobotPath, goal: Sequence[float], th: AnswerThresholds = DEFAULT_THRESHOLDS
) -> bool:
    t = min(person.end, len(robot) - 1)
    return in_corridor(person.xy[person.end], (robot.x[t], robot.y[t]), goal, th.corridor_half_width_m)
