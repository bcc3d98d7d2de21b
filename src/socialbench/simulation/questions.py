"""Exact answers to the 15 SocialNav-SUB question types from ground-truth scene geometry.

A simulator has no human panel, so its labels are *definitions*: written geometric rules on
the true positions (not the noisy tracks), with the thresholds of :class:`AnswerThresholds`.
The notation and every question's definition: docs/simulation.md. Per kind:
:mod:`~socialbench.simulation.truth`, :mod:`~socialbench.simulation.spatial_answers` (the
rules of :mod:`socialbench.navigation.relations`, shared with the rule-based baseline),
:mod:`~socialbench.simulation.social_answers` and :mod:`~socialbench.simulation.annotators`.
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
