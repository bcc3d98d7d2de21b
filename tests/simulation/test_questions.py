"""Exact geometric answers: every definition on hand-built scenes."""

import math

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_sub.bank import expand_questions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.navigation import rules
from socialbench.navigation.tracks import FRAME_DT, N_FRAMES, RobotPath
from socialbench.simulation.annotators import annotator_votes, jitter_thresholds, vote_distribution
from socialbench.simulation.questions import answer_scene
from socialbench.simulation.spatial_answers import (
    distance_change,
    goal_position,
    robot_moving_direction,
    spatial_position,
)
from socialbench.simulation.truth import AnswerThresholds, PersonTruth, SceneTruth, closest_approach, in_corridor

T = np.arange(N_FRAMES) * FRAME_DT
GOAL = (10.0, 0.0)


def straight_robot(speed: float = 1.0) -> RobotPath:
    return RobotPath(speed * T, np.zeros(N_FRAMES), np.zeros(N_FRAMES))


def stopped_robot() -> RobotPath:
    return RobotPath.stationary(N_FRAMES)


def person(start, velocity, seen=None) -> PersonTruth:
    xy = np.asarray(start, float) + np.outer(T, np.asarray(velocity, float))
    return PersonTruth(xy, tuple(range(N_FRAMES)) if seen is None else seen)


def answers(p: PersonTruth, robot: RobotPath = None, goal=GOAL, cruise: float = 1.0) -> dict:
    robot = straight_robot() if robot is None else robot
    out = answer_scene(SceneTruth(robot, goal, {1: p}, cruise))
    return {k.removesuffix("_p1"): v for k, v in out.items()}


# --------------------------------------------------------------------------- sectors


def test_person_dead_ahead_is_ahead_at_begin_and_end():
    a = answers(person((6.0, 0.0), (0.0, 0.0)))
    assert a["q_person_spatial_position_begin"] == "ahead of"
    assert a["q_person_spatial_position_end"] == "ahead of"


def test_person_crossing_left_to_right_changes_side():
    a = answers(person((6.0, 4.0), (0.0, -3.2)))
    assert (a["q_person_spatial_position_begin"], a["q_person_spatial_position_end"]) == (
        "to the left of",
        "to the right of",
    )


def test_spatial_sectors_at_their_boundaries():
    th = AnswerThresholds()
    assert spatial_position(5.0, 5.0 * math.tan(math.radians(24.0)), th) == "ahead of"
    assert spatial_position(5.0, 5.0 * math.tan(math.radians(26.0)), th) == "to the left of"
    assert spatial_position(0.6, -0.45, th) == "ahead of"  # within the robot's width
    assert spatial_position(-3.0, 1.0, th) == "behind"
    assert spatial_position(-1.0, -3.0, th) == "to the right of"


def test_goal_sectors_put_a_goal_behind_to_its_side():
    assert goal_position(10.0, 3.0) == "ahead"
    assert goal_position(10.0, 4.0) == "to the left"
    assert goal_position(-5.0, -1.0) == "to the right"


def test_with_the_baselines_thresholds_the_exact_sectors_are_the_rule_based_ones():
    th = AnswerThresholds(ahead_half_angle_deg=20.0, goal_ahead_half_angle_deg=20.0, ahead_lateral_m=0.5)
    grid = [(f, y) for f in np.linspace(-6.0, 6.0, 25) for y in np.linspace(-4.0, 4.0, 33)]
    assert [spatial_position(f, y, th) for f, y in grid] == [rules.spatial_position(f, y) for f, y in grid]
    assert [goal_position(f, y, th) for f, y in grid] == [rules.goal_position(f, y) for f, y in grid]


def test_goal_answers_follow_the_robot_turning_away():
    yaw = np.radians(np.linspace(0, 60, N_FRAMES))
    robot = RobotPath(np.zeros(N_FRAMES), np.zeros(N_FRAMES), yaw)
    a = answer_scene(SceneTruth(robot, GOAL, {}))
    assert (a["q_goal_position_begin"], a["q_goal_position_end"]) == ("ahead", "to the right")


# --------------------------------------------------------------------------- distance


def test_walking_away_is_further_away():
    a = answers(person((3.0, 0.5), (2.0, 0.0)), robot=stopped_robot())
    assert a["q_person_distance_change"] == "further away from"


def test_distance_band_is_half_a_metre_or_ten_percent():
    assert distance_change(3.0, 2.6) == "about the same distance to"
    assert distance_change(3.0, 2.4) == "closer to"
    assert distance_change(8.0, 8.7) == "about the same distance to"  # band 0.8 m
    assert distance_change(8.0, 8.9) == "further away from"


# --------------------------------------------------------------------------- robot direction


def test_straight_robot_moves_ahead_only():
    assert robot_moving_direction(straight_robot()) == ("moving ahead",)


def test_gentle_left_arc_is_moving_ahead_and_turning_left():
    yaw = np.radians(np.linspace(0, 20, N_FRAMES))
    x = np.concatenate([[0.0], np.cumsum(0.25 * np.cos(yaw[:-1]))])
    y = np.concatenate([[0.0], np.cumsum(0.25 * np.sin(yaw[:-1]))])
    assert robot_moving_direction(RobotPath(x, y, yaw)) == ("moving ahead", "turning left")


def test_sharp_right_turn_drops_moving_ahead():
    yaw = np.radians(np.linspace(0, -70, N_FRAMES))
    robot = RobotPath(0.1 * T, -0.05 * T, yaw)
    assert robot_moving_direction(robot) == ("turning right",)


def test_sideways_drift_without_yaw_change_is_a_turn():
    robot = RobotPath(T, -0.3 * T, np.zeros(N_FRAMES))  # 0.675 m to the right
    assert robot_moving_direction(robot) == ("moving ahead", "turning right")


def test_stopped_robot_defaults_to_moving_ahead():
    assert robot_moving_direction(stopped_robot()) == ("moving ahead",)


# --------------------------------------------------------------------------- obstruction


def test_corridor_is_the_band_between_robot_and_goal():
    assert in_corridor((5.0, 0.7), (0.0, 0.0), GOAL, 0.8)
    assert not in_corridor((5.0, 0.9), (0.0, 0.0), GOAL, 0.8)
    assert not in_corridor((-0.5, 0.0), (0.0, 0.0), GOAL, 0.8)  # behind the robot
    assert not in_corridor((10.5, 0.0), (0.0, 0.0), GOAL, 0.8)  # past the goal


def test_standing_in_the_corridor_obstructs_path_and_end():
    a = answers(person((5.0, 0.3), (0.0, 0.0)))
    assert (a["q_obstructing_path"], a["q_obstructing_end_position"]) == ("yes", "yes")


def test_crossing_person_obstructs_path_but_not_at_the_end():
    a = answers(person((6.0, 4.0), (0.0, -3.2)))
    assert (a["q_obstructing_path"], a["q_obstructing_end_position"]) == ("yes", "no")


def test_person_beside_the_corridor_does_not_obstruct():
    a = answers(person((5.0, 2.5), (0.0, 0.0)))
    assert (a["q_obstructing_path"], a["q_obstructing_end_position"]) == ("no", "no")


def test_obstruction_only_counts_frames_where_the_person_is_labelled():
    crossing = person((6.0, 4.0), (0.0, -3.2), seen=(0, 1, 2))  # lost before reaching the path
    assert answers(crossing)["q_obstructing_path"] == "no"


# --------------------------------------------------------------------------- social


def test_closest_approach_of_head_on_agents():
    tau, d = closest_approach((4.0, 0.5), (-2.0, 0.0), horizon=5.0)
    assert tau == pytest.approx(2.0) and d == pytest.approx(0.5)


def test_standing_person_in_the_way_affects_the_robot_who_avoids():
    a = answers(person((3.0, 0.3), (0.0, 0.0)))
    assert (a["q_robot_affected"], a["q_robot_action"]) == ("yes", "avoiding")
    assert (a["q_person_affected"], a["q_person_action"]) == ("yes", "yielding to")


def test_far_person_walking_away_sideways_is_not_considered():
    a = answers(person((8.0, 3.0), (0.0, 1.0)))
    assert (a["q_robot_affected"], a["q_robot_action"]) == ("no", "not considering")
    assert (a["q_person_affected"], a["q_person_action"]) == ("no", "not considering")
    assert (a["q_robot_suggested_affected"], a["q_robot_suggested_action"], a["q_human_future_action_prediction"]) == (
        "no",
        "not consider",
        "not consider",
    )


def test_robot_behind_a_slower_walker_overtakes_and_same_speed_follows():
    slow = answers(person((1.5, 0.0), (0.4, 0.0)))
    same = answers(person((1.0, 0.0), (1.0, 0.0)))  # 1 m behind at the same pace
    assert slow["q_robot_action"] == "overtaking"
    assert same["q_robot_action"] == "following"


def test_robot_that_stops_for_a_crossing_person_yields():
    speed = np.clip(1.0 - T, 0.0, None)  # brakes to a stop
    x = np.concatenate([[0.0], np.cumsum(speed[:-1] * FRAME_DT)])
    robot = RobotPath(x, np.zeros(N_FRAMES), np.zeros(N_FRAMES))
    a = answers(person((2.0, 1.5), (0.0, -1.2)), robot=robot)
    assert (a["q_robot_affected"], a["q_robot_action"]) == ("yes", "yielding to")


def test_person_who_slows_down_for_the_robot_yields():
    v = np.clip(1.2 - 0.8 * T, 0.0, None)
    y = 2.0 - np.concatenate([[0.0], np.cumsum(v[:-1] * FRAME_DT)])
    p = PersonTruth(np.column_stack([np.full(N_FRAMES, 2.5), y]), tuple(range(N_FRAMES)))
    a = answers(p)
    assert (a["q_person_affected"], a["q_person_action"]) == ("yes", "yielding to")


def test_oncoming_walker_in_the_path_is_avoided_in_the_future():
    a = answers(person((6.0, 0.2), (-1.0, 0.0)))
    assert (a["q_robot_suggested_affected"], a["q_robot_suggested_action"], a["q_human_future_action_prediction"]) == (
        "yes",
        "avoid",
        "avoid",
    )


def test_standing_person_ahead_future_robot_avoids_and_person_yields():
    a = answers(person((5.0, 0.2), (0.0, 0.0)))
    assert (a["q_robot_suggested_action"], a["q_human_future_action_prediction"]) == ("avoid", "yield to")


def test_future_crossing_person_who_arrives_first_is_yielded_to():
    # at the end (t = 2.25 s) the robot is at x = 2.25, the person at (3.5, 1.0) walking right fast:
    # they reach the robot's line in 0.5 s, the robot reaches that point in 1.25 s
    p = person((3.5, 1.0 + 2.0 * T[-1]), (0.0, -2.0))
    a = answers(p)
    assert (a["q_robot_suggested_affected"], a["q_robot_suggested_action"]) == ("yes", "yield to")


def _at_end(position, velocity) -> PersonTruth:
    """A person who is at ``position`` at the last frame, walking at constant ``velocity``."""
    return person(np.asarray(position, float) - T[-1] * np.asarray(velocity, float), velocity)


def test_future_crossing_person_whom_the_robot_passes_first_yields():
    # at the end the robot is at x = 2.25 heading +x at 1 m/s; the person, 1 m to the left at
    # x = 4.0, walks right at 0.4 m/s: the robot reaches x = 4.0 in 1.75 s, the person the
    # robot's line in 2.5 s
    a = answers(_at_end((4.0, 1.0), (0.0, -0.4)))
    assert (a["q_robot_suggested_affected"], a["q_human_future_action_prediction"]) == ("yes", "yield to")


@pytest.mark.parametrize(
    "position, velocity",
    [
        ((3.5, 0.3), (-0.5, 0.6)),  # walks towards the robot but away from its line (to the left)
        ((3.05, 1.0), (-0.7, -0.75)),  # reaches the robot's line only behind the robot
    ],
    ids=["away-from-the-line", "crossing-point-behind"],
)
def test_future_crossing_person_without_a_crossing_ahead_is_avoided_not_yielding(position, velocity):
    a = answers(_at_end(position, velocity))
    assert (a["q_robot_suggested_affected"], a["q_human_future_action_prediction"]) == ("yes", "avoid")


def test_no_future_interaction_once_the_robot_is_at_the_goal():
    a = answers(person((2.5, 0.2), (0.0, 0.0)), goal=(2.25, 0.0))
    assert a["q_robot_suggested_affected"] == "no"


# --------------------------------------------------------------------------- whole scenes and votes


def _scene(n: int = 3) -> SceneTruth:
    people = {
        1: person((3.0, 0.3), (0.0, 0.0)),
        2: person((6.0, 4.0), (0.0, -3.2)),
        3: person((8.0, -2.0), (-1.0, 0.0), seen=(2, 3, 4, 5)),
    }
    return SceneTruth(straight_robot(), GOAL, {k: people[k] for k in range(1, n + 1)})


def test_answer_scene_answers_every_question_with_a_valid_choice():
    qs = expand_questions(load_bank(), 3)
    a = answer_scene(_scene())
    assert set(a) == {q.key for q in qs}
    assert all(a[q.key] in q.choices for q in qs)


def test_vote_distribution_orders_by_count_then_option_order():
    q = next(q for q in expand_questions(load_bank(), 1) if q.key == "q_robot_action_p1")
    answers_, probs, n = vote_distribution(q, ["avoiding", "yielding to", "yielding to", "following", "avoiding"])
    assert answers_ == ["avoiding", "yielding to", "following"] and probs == [0.4, 0.4, 0.2] and n == 5


def test_vote_distribution_rejects_an_answer_that_is_not_a_choice():
    q = next(q for q in expand_questions(load_bank(), 1) if q.key == "q_robot_action_p1")
    with pytest.raises(ValueError, match="not choices"):
        vote_distribution(q, ["avoid"])


def test_annotator_panel_is_seeded_and_gives_n_valid_votes():
    qs = expand_questions(load_bank(), 3)
    a = annotator_votes(_scene(), 7, np.random.default_rng(3))
    b = annotator_votes(_scene(), 7, np.random.default_rng(3))
    assert a == b
    assert all(len(a[q.key]) == 7 and all(v in q.choices for v in a[q.key]) for q in qs)


def test_annotator_panel_disagrees_somewhere_but_mostly_agrees_with_the_truth():
    exact = answer_scene(_scene())
    votes = annotator_votes(_scene(), 15, np.random.default_rng(0))
    agree = np.mean([v == exact[k] for k, vs in votes.items() for v in vs])
    assert 0.6 < agree < 1.0


def test_jitter_thresholds_stays_within_the_band():
    base = AnswerThresholds()
    j = jitter_thresholds(base, np.random.default_rng(1), 0.25)
    assert j != base
    assert 0.75 * base.corridor_half_width_m <= j.corridor_half_width_m <= 1.25 * base.corridor_half_width_m


def test_person_truth_rejects_seen_steps_outside_the_clip():
    with pytest.raises(ValueError, match="outside"):
        PersonTruth(np.zeros((10, 2)), (3, 10))
