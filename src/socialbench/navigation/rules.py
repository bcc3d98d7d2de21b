"""The SocialNav-SUB rule-based baseline, on track coordinates in metres.

The paper's rules (seed §7.10) are applied to the pedestrian tracks and robot path in the
initial robot frame (x forward, y left), not to OCR'd circle positions: the official
thresholds (reference §f) are fractions of the composite image and do not transfer, so
each rule has its own in metres or degrees (:class:`RuleThresholds`). Spatial position,
goal position, distance change and robot direction are the rules of
:mod:`socialbench.navigation.relations` with this baseline's thresholds: a person is
"ahead" within 20° (about the central third of the SCAND front camera's ±46° view) or
0.5 m (the robot's half width plus a margin) of the robot's heading; lateral drift counts
only if the robot moved >= 0.3 m (tracks of a standing robot drift). A goal is unknown:
"ahead", and the path to it runs 10 m straight ahead.

* **Obstructing path**: "yes" if the person's observed path (polyline through their
  positions; a point if seen once) comes within 0.75 m (robot half width ~0.3 m plus ~0.45
  m personal space) of the segment from the robot at timestep 0 to the goal.
* **Obstructing end position**: "yes" if the person's last position lies within 0.75 m of
  the segment from the robot at that timestep to the goal and in front of the robot
  (positive along-path coordinate, at most 0.75 m past the goal).
* **Social questions** (paper §7.10): robot_affected = person_affected = obstructing
  path; robot_action = person_action = "avoiding" if obstructing else "not considering";
  robot_suggested_affected = obstructing end position; robot_suggested_action =
  human_future_action_prediction = "avoid" if obstructing at the end else "not consider".
* A label 1..n_people without a track gets: "ahead of", "about the same distance to",
  "no", "not considering", "not consider".

Where this differs from the official ``run_heuristic.py`` (and why): its input is Hough
circles + OCR positions normalised by the composite (here exact metres, no
OpenCV/Tesseract); it never answers the per-person ``_p<i>`` keys, crashes on robot
direction (``if not`` on a numpy array), never says "behind" and uses absolute image axes;
it answers goal and future-action questions with invalid options ("to the left of",
"avoiding", "not considering"); its obstructing path is a strict intersection of R->G and
P(first)->P(last) (misses someone walking along the robot's path) and its end position the
distance to the infinite line R-G (counts people behind the robot or past the goal); it
writes ``_results.json`` and never scores it (here answers go through ``socialbench eval``
as ``baseline:rule-based``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.navigation import relations
from socialbench.navigation.track_labels import label_people
from socialbench.navigation.tracks import PersonTrack, RobotPath

RuleAnswer = str | list[str]


@dataclass(frozen=True)
class RuleThresholds:
    """Thresholds of the rules, in metres and degrees (see the module docstring)."""

    ahead_half_angle_deg: float = 20.0
    ahead_corridor_m: float = 0.5
    behind_angle_deg: float = 135.0
    distance_band_m: float = 0.5
    distance_band_frac: float = 0.1
    corridor_half_width_m: float = 0.75
    turn_slight_deg: float = 10.0
    turn_sharp_deg: float = 30.0
    lateral_drift_m: float = 0.5
    moving_min_m: float = 0.3
    default_goal_distance_m: float = 10.0


# --------------------------------------------------------------------------- geometry helpers


def point_segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    denom = float(ab @ ab)
    s = 0.0 if denom == 0.0 else min(1.0, max(0.0, float((p - a) @ ab) / denom))
    return float(np.hypot(*(p - (a + s * ab))))


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def segments_cross(p1: np.ndarray, p2: np.ndarray, q1: np.ndarray, q2: np.ndarray) -> bool:
    """Proper crossing of segments p1p2 and q1q2 (touching and collinear cases are covered
    by the endpoint distances in :func:`polyline_segment_distance`)."""
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    return d1 * d2 < 0 and d3 * d4 < 0


def polyline_segment_distance(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Smallest distance between a polyline (``(N, 2)``, N >= 1) and segment ab."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    best = min(point_segment_distance(p, a, b) for p in pts)
    for p, q in zip(pts[:-1], pts[1:]):
        if segments_cross(p, q, a, b):
            return 0.0
        best = min(best, point_segment_distance(a, p, q), point_segment_distance(b, p, q))
    return best


# --------------------------------------------------------------------------- single rules


def _sector_args(th: RuleThresholds) -> dict[str, float]:
    """The baseline's limits of a sector: a goal is "ahead" within the person half angle."""
    return {"ahead_half_angle_deg": th.ahead_half_angle_deg, "ahead_lateral_m": th.ahead_corridor_m}


def spatial_position(dx: float, dy: float, th: RuleThresholds = RuleThresholds()) -> str:
    """Person option for a relative position (forward ``dx``, left ``dy``)."""
    return relations.person_sector(dx, dy, behind_angle_deg=th.behind_angle_deg, **_sector_args(th))


def goal_position(dx: float, dy: float, th: RuleThresholds = RuleThresholds()) -> str:
    """Goal option for a relative position (no "behind": a goal behind goes to its side)."""
    return relations.goal_sector(dx, dy, **_sector_args(th))


def distance_change(d0: float, d1: float, th: RuleThresholds = RuleThresholds()) -> str:
    """Distance option for a person first ``d0`` and last ``d1`` metres from the robot."""
    return relations.distance_change(d0, d1, band_m=th.distance_band_m, band_frac=th.distance_band_frac)


def robot_moving_direction(robot: RobotPath, th: RuleThresholds = RuleThresholds()) -> list[str]:
    """Options of the multiple-select direction question, in option order (lateral drift
    counts only when the robot moved: tracks of a standing robot drift)."""
    return list(
        relations.robot_direction(
            robot,
            moving_min_m=th.moving_min_m,
            turn_deg=th.turn_slight_deg,
            sharp_turn_deg=th.turn_sharp_deg,
            lateral_m=th.lateral_drift_m,
            lateral_needs_motion=True,
        )
    )


def _goal_point(robot: RobotPath, goal_xy: Sequence[float] | None, th: RuleThresholds) -> np.ndarray:
    if goal_xy is not None:
        return np.asarray(goal_xy, dtype=float)
    x, y, yaw = robot.pose(0)
    d = th.default_goal_distance_m
    return np.array([x + d * math.cos(yaw), y + d * math.sin(yaw)])


def obstructs_path(
    track: PersonTrack, robot: RobotPath, goal: np.ndarray, th: RuleThresholds = RuleThresholds()
) -> bool:
    start = np.array([robot.x[0], robot.y[0]])
    return polyline_segment_distance(track.positions(), start, goal) <= th.corridor_half_width_m


def obstructs_end(
    track: PersonTrack, robot: RobotPath, goal: np.ndarray, th: RuleThresholds = RuleThresholds()
) -> bool:
    t = min(track.last.timestep, len(robot) - 1)
    a = np.array([robot.x[t], robot.y[t]])
    p = np.array(track.last.xy)
    ab = goal - a
    length = float(np.hypot(*ab))
    if length == 0.0:
        return bool(np.hypot(*(p - a)) <= th.corridor_half_width_m)
    along = float((p - a) @ ab) / length
    if along <= 0.0 or along > length + th.corridor_half_width_m:
        return False
    return point_segment_distance(p, a, goal) <= th.corridor_half_width_m


# --------------------------------------------------------------------------- all answers


def _social(path_yes: bool, end_yes: bool, i: int) -> dict[str, RuleAnswer]:
    yn = lambda b: "yes" if b else "no"  # noqa: E731
    act = "avoiding" if path_yes else "not considering"
    fut = "avoid" if end_yes else "not consider"
    return {
        f"q_robot_affected_p{i}": yn(path_yes),
        f"q_person_affected_p{i}": yn(path_yes),
        f"q_robot_action_p{i}": act,
        f"q_person_action_p{i}": act,
        f"q_robot_suggested_affected_p{i}": yn(end_yes),
        f"q_robot_suggested_action_p{i}": fut,
        f"q_human_future_action_prediction_p{i}": fut,
    }


def person_answers(
    i: int, track: PersonTrack | None, robot: RobotPath, goal: np.ndarray, th: RuleThresholds = RuleThresholds()
) -> dict[str, RuleAnswer]:
    """The 12 answers about person ``i`` (defaults when ``track`` is None)."""
    if track is None:
        out: dict[str, RuleAnswer] = {
            f"q_person_spatial_position_begin_p{i}": "ahead of",
            f"q_person_spatial_position_end_p{i}": "ahead of",
            f"q_person_distance_change_p{i}": "about the same distance to",
            f"q_obstructing_path_p{i}": "no",
            f"q_obstructing_end_position_p{i}": "no",
        }
        out.update(_social(False, False, i))
        return out
    last_t = len(robot) - 1
    t0, t1 = min(track.first.timestep, last_t), min(track.last.timestep, last_t)
    b = relations.relative(track.first.xy, robot, t0)
    e = relations.relative(track.last.xy, robot, t1)
    path_yes = obstructs_path(track, robot, goal, th)
    end_yes = obstructs_end(track, robot, goal, th)
    out = {
        f"q_person_spatial_position_begin_p{i}": spatial_position(*b, th),
        f"q_person_spatial_position_end_p{i}": spatial_position(*e, th),
        f"q_person_distance_change_p{i}": distance_change(math.hypot(*b), math.hypot(*e), th),
        f"q_obstructing_path_p{i}": "yes" if path_yes else "no",
        f"q_obstructing_end_position_p{i}": "yes" if end_yes else "no",
    }
    out.update(_social(path_yes, end_yes, i))
    return out


def rule_based_answers(
    tracks: Mapping[int, PersonTrack] | Mapping[str, PersonTrack],
    robot_path: RobotPath,
    goal_xy: Sequence[float] | None,
    n_people: int | None = None,
    thresholds: RuleThresholds = RuleThresholds(),
) -> dict[str, RuleAnswer]:
    """Answers to every question of a sample: ``{full question key: answer}``.

    ``tracks`` are the labelled people ``{label: track}`` (as from
    :func:`~socialbench.navigation.track_labels.label_people`); a mapping keyed by tracker-id
    strings is filtered and labelled first. Persons 1..``n_people`` (default: the number
    of tracks) are answered. ``q_robot_moving_direction`` gets a list of options."""
    if any(isinstance(k, str) for k in tracks):
        people: Mapping[int, PersonTrack] = label_people(tracks)  # type: ignore[arg-type]
    else:
        people = tracks  # type: ignore[assignment]
    th = thresholds
    n = len(people) if n_people is None else n_people
    goal = _goal_point(robot_path, goal_xy, th)
    out: dict[str, RuleAnswer] = {"q_robot_moving_direction": robot_moving_direction(robot_path, th)}
    if goal_xy is None:
        out["q_goal_position_begin"] = out["q_goal_position_end"] = "ahead"
    else:
        out["q_goal_position_begin"] = goal_position(*relations.relative(goal, robot_path, 0), th)
        out["q_goal_position_end"] = goal_position(*relations.relative(goal, robot_path, len(robot_path) - 1), th)
    for i in range(1, n + 1):
        out.update(person_answers(i, people.get(i), robot_path, goal, th))
    return out
