"""Exact answers to the 15 SocialNav-SUB question types from ground-truth scene geometry.

A simulator has no human panel, so its labels are *definitions*: written geometric rules on
the true positions (not the noisy tracks), in the initial robot frame (x forward, y left,
metres) at the 10 frames (4 Hz), with the thresholds of :class:`AnswerThresholds`. The
spatial, goal, distance and direction rules are :mod:`socialbench.navigation.relations`,
shared with the rule-based baseline. Per kind: :mod:`~socialbench.simulation.truth`,
:mod:`~socialbench.simulation.spatial_answers`, :mod:`~socialbench.simulation.social_answers`
(with the crossing-point rule of both future actions), :mod:`~socialbench.simulation.annotators`.

Notation
--------
* ``r_t``, ``psi_t``: robot position and yaw (camera direction) at timestep t;
  ``rel_t(q) = R(-psi_t)(q - r_t) = (f, l)``: point q relative to the robot at t, bearing
  ``beta = atan2(l, f)``. ``p_t``: the person's true position; ``v_p(t)``, ``v_r(t)``:
  velocities by central differences (one-sided at the ends).
* ``b`` / ``e``: the first / last timestep at which the person is labelled in the images
  (seen by the tracker). Global questions use timesteps 0 and 9.
* Corridor ``C_t``: points within ``w`` = 0.8 m (robot half width 0.35 m + 0.45 m clearance)
  of the segment from ``r_t`` to the goal g, between the two.
* Closest approach (CPA) at relative position Δp and velocity Δv over a horizon H:
  ``tau* = clip(-Δp·Δv / |Δv|², 0, H)``, ``d_cpa = |Δp + Δv tau*|``. A *conflict* is
  ``d_cpa <= R_c`` = 1.2 m within H = 2 s (now, or soon if nobody changes course).
* A person *walks* at >= 0.3 m/s, else *stands*. Two directions are the *same* within 45°,
  *crossing* between 45° and 135°, *opposite* beyond. ``cruise``: the robot's cruise speed.

Definitions
-----------
==============================  ===========================================================
Question                        Answer
==============================  ===========================================================
robot_moving_direction (multi)  Δψ = psi_9 - psi_0, (φ, λ) = rel_0(r_9). "moving ahead" if
                                φ >= 0.3 m and |Δψ| < 45°. "turning left" if Δψ >= 10°, or
                                |Δψ| < 10° and λ >= 0.4 m; "turning right" mirrored. If
                                nothing holds (robot stood still): "moving ahead".
person_spatial_position_begin   rel_b(p_b): "behind" if |beta| > 135°; "ahead of" if f > 0
/ _end (at e)                   and (|beta| <= 25° or |l| <= 0.5 m); else "to the left of"
                                (l > 0) / "to the right of".
person_distance_change          d_b = |rel_b(p_b)|, d_e = |rel_e(p_e)|; band =
                                max(0.5 m, 0.1·d_b). "closer to" if d_e < d_b - band,
                                "further away from" if d_e > d_b + band, else "about the
                                same distance to".
goal_position_begin / _end      rel_t(g) at t = 0 / 9: "ahead" if f > 0 and (|beta| <= 20°
                                or |l| <= 0.5 m); else "to the left" if l >= 0, else "to
                                the right" (a goal behind counts to its side).
obstructing_path                "yes" iff p_t ∈ C_t for some frame t in [b, e] (the
                                person's path enters the robot's remaining corridor to the
                                goal while seen; at 4 Hz a walker moves < 0.4 m between
                                frames, so frames cannot skip the 1.6 m wide corridor).
obstructing_end_position        "yes" iff p_e ∈ C_e.
robot_affected                  "yes" iff at some frame t in [b, e] the person is in the
                                robot's front half (f > 0) and in conflict with it
                                (Δp = p_t - r_t, Δv = v_p(t) - v_r(t)).
robot_action                    not affected: "not considering". Else, from the first such
                                frame t*: the person walks in the same direction as the
                                robot's yaw -> "overtaking" if the robot's mean speed over
                                [t*, e] exceeds the person's by > 0.15 m/s, else
                                "following"; otherwise "yielding to" if the robot's speed
                                drops to <= 50 % of cruise in [t*, e]; otherwise
                                "avoiding".
person_affected                 "yes" iff at some frame t in [b, e] they are in conflict and
                                the person stands or has the robot in their front half
                                ((r_t - p_t)·v_p(t) > 0).
person_action                   not affected: "not considering". Else, from the first such
                                frame t*: stands throughout [t*, e] -> "yielding to"; walks
                                in the same direction as the robot with the robot ahead ->
                                "overtaking" if faster than the robot by > 0.15 m/s, else
                                "following"; speed drops to <= 50 % of their speed at b ->
                                "yielding to"; otherwise "avoiding".
robot_suggested_affected        Future from the end state: the robot heads for the goal at
                                cruise speed (u = cruise·ĝ, ĝ = unit(g - r_e)), the person
                                keeps v_p(e). "yes" iff the person is ahead on the way
                                ((p_e - r_e)·ĝ > 0) and in conflict within H_f = min(4 s,
                                time to reach the goal). "no" once the robot is at the goal
                                (< 0.4 m).
robot_suggested_action          not suggested-affected: "not consider". Standing person:
                                "avoid". Walking same way as ĝ: "follow" if their speed >=
                                cruise - 0.15 m/s, else "overtake". Crossing and the person
                                reaches the robot's line first (*person first*):
                                "yield to". Otherwise "avoid".
human_future_action_prediction  Future conflict as above, seen by the person: conflict and
                                (person stands or the robot is in their front half), else
                                "not consider". Standing: "yield to". Same direction as ĝ
                                with the robot ahead: "overtake" if faster than cruise +
                                0.15 m/s, else "follow". Crossing and the robot reaches the
                                crossing point first (*robot first*): "yield to".
                                Otherwise "avoid" (also when the person walks away from
                                the robot's line or the crossing point is behind the robot).
==============================  ===========================================================
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from socialbench.navigation.relations import relative
from socialbench.navigation.tracks import RobotPath
from socialbench.simulation.social_answers import future_answers, person_action, robot_action
from socialbench.simulation.spatial_answers import (
    distance_change,
    goal_position,
    obstructs_end,
    obstructs_path,
    robot_moving_direction,
    spatial_position,
)
from socialbench.simulation.truth import DEFAULT_THRESHOLDS, AnswerThresholds, PersonTruth, SceneTruth
from socialbench.types import Answer

__all__ = ["person_answers", "answer_scene"]


def person_answers(
    person: PersonTruth,
    robot: RobotPath,
    goal: Sequence[float],
    cruise: float,
    th: AnswerThresholds = DEFAULT_THRESHOLDS,
) -> dict[str, Answer]:
    """The 12 per-person answers, keyed by base question key."""
    last = len(robot) - 1
    b, e = person.begin, person.end
    rb = relative(person.xy[b], robot, min(b, last))
    re_ = relative(person.xy[e], robot, min(e, last))
    yn = lambda v: "yes" if v else "no"  # noqa: E731
    r_aff, r_act = robot_action(person, robot, cruise, th)
    p_aff, p_act = person_action(person, robot, th)
    s_aff, s_act, h_act = future_answers(person, robot, goal, cruise, th)
    return {
        "q_person_spatial_position_begin": spatial_position(*rb, th),
        "q_person_spatial_position_end": spatial_position(*re_, th),
        "q_person_distance_change": distance_change(math.hypot(*rb), math.hypot(*re_), th),
        "q_obstructing_path": yn(obstructs_path(person, robot, goal, th)),
        "q_obstructing_end_position": yn(obstructs_end(person, robot, goal, th)),
        "q_robot_affected": yn(r_aff),
        "q_robot_action": r_act,
        "q_person_affected": yn(p_aff),
        "q_person_action": p_act,
        "q_robot_suggested_affected": s_aff,
        "q_robot_suggested_action": s_act,
        "q_human_future_action_prediction": h_act,
    }


def answer_scene(truth: SceneTruth, th: AnswerThresholds = DEFAULT_THRESHOLDS) -> dict[str, Answer]:
    """Every question of a sample: ``{full question key: answer}`` (the multiple-select
    answer as a tuple in option order)."""
    robot, goal = truth.robot, truth.goal_xy
    last = len(robot) - 1
    out: dict[str, Answer] = {
        "q_robot_moving_direction": robot_moving_direction(robot, th),
        "q_goal_position_begin": goal_position(*relative(goal, robot, 0), th),
        "q_goal_position_end": goal_position(*relative(goal, robot, last), th),
    }
    for label in sorted(truth.people):
        for base, ans in person_answers(truth.people[label], robot, goal, truth.cruise_speed, th).items():
            out[f"{base}_p{label}"] = ans
    return out
