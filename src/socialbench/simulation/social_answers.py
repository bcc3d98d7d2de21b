"""Exact answers of the social questions: who is affected and how the robot and the person
act (:func:`robot_action`, :func:`person_action`), and the suggested / predicted future
actions with the crossing-point rule (:func:`future_answers`); definitions in
docs/simulation.md."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.navigation.tracks import RobotPath
from socialbench.simulation.truth import (
    DEFAULT_THRESHOLDS,
    AnswerThresholds,
    PersonTruth,
    angle_between,
    closest_approach,
    velocities,
)

__all__ = ["robot_action", "person_action", "future_answers"]


@dataclass(frozen=True)
class _Motion:
    """Per-frame kinematics of one robot-person pair."""

    p: np.ndarray
    vp: np.ndarray
    r: np.ndarray
    vr: np.ndarray
    yaw: np.ndarray


def _motion(person: PersonTruth, robot: RobotPath) -> _Motion:
    n = min(len(person.xy), len(robot))
    r = robot.xy()[:n]
    return _Motion(person.xy[:n], person.velocities()[:n], r, velocities(r), robot.yaw[:n])


def _speed(v: np.ndarray) -> np.ndarray:
    return np.hypot(v[..., 0], v[..., 1])


def _conflict(m: _Motion, t: int, th: AnswerThresholds) -> bool:
    dp = m.p[t] - m.r[t]
    dv = m.vp[t] - m.vr[t]
    return closest_approach(dp, dv, th.conflict_horizon_s)[1] <= th.conflict_distance_m


def _robot_side(m: _Motion, t: int) -> bool:
    """The person is in the robot's front half at t."""
    d = m.p[t] - m.r[t]
    return d[0] * math.cos(m.yaw[t]) + d[1] * math.sin(m.yaw[t]) > 0.0


def _person_side(m: _Motion, t: int, th: AnswerThresholds) -> bool:
    """The person stands, or has the robot in their front half, at t."""
    if _speed(m.vp[t]) < th.walking_speed_mps:
        return True
    return float((m.r[t] - m.p[t]) @ m.vp[t]) > 0.0


def robot_action(
    person: PersonTruth, robot: RobotPath, cruise: float, th: AnswerThresholds = DEFAULT_THRESHOLDS
) -> tuple[bool, str]:
    """(robot affected, robot action)."""
    m = _motion(person, robot)
    span = range(person.begin, min(person.end, len(m.r) - 1) + 1)
    first = next((t for t in span if _robot_side(m, t) and _conflict(m, t, th)), None)
    if first is None:
        return False, "not considering"
    e = min(person.end, len(m.r) - 1)
    sp, sr = _speed(m.vp[first : e + 1]), _speed(m.vr[first : e + 1])
    heading = (math.cos(m.yaw[first]), math.sin(m.yaw[first]))
    if sp[0] >= th.walking_speed_mps and angle_between(m.vp[first], heading) <= th.same_direction_deg:
        return True, "overtaking" if sr.mean() > sp.mean() + th.speed_margin_mps else "following"
    if sr.min() <= th.slow_fraction * cruise:
        return True, "yielding to"
    return True, "avoiding"


def person_action(person: PersonTruth, robot: RobotPath, th: AnswerThresholds = DEFAULT_THRESHOLDS) -> tuple[bool, str]:
    """(person affected, person action)."""
    m = _motion(person, robot)
    span = range(person.begin, min(person.end, len(m.r) - 1) + 1)
    first = next((t for t in span if _person_side(m, t, th) and _conflict(m, t, th)), None)
    if first is None:
        return False, "not considering"
    e = min(person.end, len(m.r) - 1)
    sp, sr = _speed(m.vp[first : e + 1]), _speed(m.vr[first : e + 1])
    if sp.max() < th.walking_speed_mps:
        return True, "yielding to"
    robot_ahead = float((m.r[first] - m.p[first]) @ m.vp[first]) > 0.0
    if (
        sr[0] >= th.walking_speed_mps
        and sp[0] >= th.walking_speed_mps
        and robot_ahead
        and angle_between(m.vp[first], m.vr[first]) <= th.same_direction_deg
    ):
        return True, "overtaking" if sp.mean() > sr.mean() + th.speed_margin_mps else "following"
    speed_before = float(_speed(m.vp[person.begin]))
    if speed_before >= th.walking_speed_mps and sp.min() <= th.slow_fraction * speed_before:
        return True, "yielding to"
    return True, "avoiding"


@dataclass(frozen=True)
class _Future:
    conflict: bool
    person_side: bool
    standing: bool
    relation: str  # "same", "crossing", "opposite"
    person_first: bool  # crossing ahead of the robot: the person reaches the robot's line first
    robot_first: bool  # crossing ahead of the robot: the robot reaches the crossing point first
    person_speed: float


def _future(
    person: PersonTruth, robot: RobotPath, goal: Sequence[float], cruise: float, th: AnswerThresholds
) -> _Future | None:
    """The end state extrapolated (see docs/simulation.md); None if at
    the goal."""
    e = min(person.end, len(robot) - 1)
    r = np.array([robot.x[e], robot.y[e]])
    to_goal = np.asarray(goal, dtype=float) - r
    dist = float(np.hypot(*to_goal))
    if dist < th.goal_reached_m:
        return None
    g = to_goal / dist
    u = cruise * g
    p = person.xy[person.end]
    vp = person.velocities()[person.end]
    speed = float(np.hypot(*vp))
    standing = speed < th.walking_speed_mps
    dp = p - r
    horizon = min(th.future_horizon_s, dist / max(cruise, 1e-9))
    _, d = closest_approach(dp, vp - u, horizon)
    conflict = float(dp @ g) > 0.0 and d <= th.conflict_distance_m
    person_side = standing or float((r - p) @ vp) > 0.0
    ang = angle_between(vp, g) if not standing else 0.0
    relation = (
        "same" if ang <= th.same_direction_deg else ("opposite" if ang >= th.opposite_direction_deg else "crossing")
    )
    person_first = robot_first = False
    if relation == "crossing" and not standing:
        across = float(-dp[0] * g[1] + dp[1] * g[0])  # person's offset from the robot's line
        v_across = float(-vp[0] * g[1] + vp[1] * g[0])
        if across * v_across < 0.0:  # moving towards the line
            t_p = abs(across) / abs(v_across)
            s_cross = float(dp @ g) + float(vp @ g) * t_p
            if s_cross > 0.0:  # the crossing point is ahead of the robot
                t_r = s_cross / max(cruise, 1e-9)
                person_first = t_p <= t_r
                robot_first = t_r < t_p
    return _Future(conflict, person_side, standing, relation, person_first, robot_first, speed)


def future_answers(
    person: PersonTruth,
    robot: RobotPath,
    goal: Sequence[float],
    cruise: float,
    th: AnswerThresholds = DEFAULT_THRESHOLDS,
) -> tuple[str, str, str]:
    """(robot_suggested_affected, robot_suggested_action, human_future_action_prediction)."""
    f = _future(person, robot, goal, cruise, th)
    if f is None or not f.conflict:
        return "no", "not consider", "not consider"
    if f.standing:
        suggested = "avoid"
    elif f.relation == "same":
        suggested = "follow" if f.person_speed >= cruise - th.speed_margin_mps else "overtake"
    elif f.relation == "crossing" and f.person_first:
        suggested = "yield to"
    else:
        suggested = "avoid"
    if not f.person_side:
        human = "not consider"
    elif f.standing:
        human = "yield to"
    elif f.relation == "same":
        human = "overtake" if f.person_speed > cruise + th.speed_margin_mps else "follow"
    elif f.relation == "crossing" and f.robot_first:
        human = "yield to"
    else:
        human = "avoid"
    return "yes", suggested, human
