"""Rule-based answers on hand-built tracks (metres, initial robot frame)."""

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_sub.bank import expand_questions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.navigation.rules import (
    polyline_segment_distance,
    robot_moving_direction,
    rule_based_answers,
    spatial_position,
)
from socialbench.navigation.tracks import RobotPath, make_track


def _straight(n=10, speed=0.25):
    return RobotPath(np.arange(n) * speed, np.zeros(n), np.zeros(n))


def _turning_left(n=10, total_deg=60.0, radius=3.0):
    th = np.radians(np.linspace(0, total_deg, n))
    return RobotPath(radius * np.sin(th), radius * (1 - np.cos(th)), th)


GOAL = (12.0, 0.0)


def test_person_dead_ahead_is_ahead_and_in_the_way():
    people = {1: make_track("a", [[6.0, 0.0]] * 10)}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_person_spatial_position_begin_p1"] == "ahead of"
    assert a["q_person_spatial_position_end_p1"] == "ahead of"
    assert a["q_obstructing_path_p1"] == "yes"
    assert a["q_robot_action_p1"] == "avoiding"


def test_person_crossing_left_to_right_obstructs_path():
    people = {1: make_track("c", [[5.0, 3.0 - 0.7 * t] for t in range(10)])}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_person_spatial_position_begin_p1"] == "to the left of"
    assert a["q_person_spatial_position_end_p1"] == "to the right of"
    assert a["q_obstructing_path_p1"] == "yes"
    assert a["q_robot_affected_p1"] == "yes"
    assert a["q_person_affected_p1"] == "yes"


def test_person_walking_away_gets_further_away():
    people = {1: make_track("w", [[3.0 + 0.45 * t, 0.3] for t in range(10)])}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_person_distance_change_p1"] == "further away from"


def test_person_approaching_gets_closer():
    people = {1: make_track("w", [[9.0 - 0.4 * t, 1.0] for t in range(10)])}
    assert rule_based_answers(people, _straight(), GOAL, 1)["q_person_distance_change_p1"] == "closer to"


def test_person_keeping_pace_is_about_the_same_distance():
    people = {1: make_track("p", [[4.0 + 0.25 * t, 2.0] for t in range(10)])}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_person_distance_change_p1"] == "about the same distance to"


def test_standing_person_in_corridor_at_end_obstructs_end_position():
    people = {1: make_track("s", [[7.0, 0.4]] * 10)}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_obstructing_end_position_p1"] == "yes"
    assert a["q_robot_suggested_affected_p1"] == "yes"
    assert a["q_robot_suggested_action_p1"] == "avoid"
    assert a["q_human_future_action_prediction_p1"] == "avoid"


def test_person_behind_robot_at_end_does_not_obstruct_end_position():
    # walks towards and past the robot; ends behind it on the line to the goal
    people = {1: make_track("b", [[4.0 - 0.6 * t, 0.0] for t in range(10)])}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_person_spatial_position_end_p1"] == "behind"
    assert a["q_obstructing_end_position_p1"] == "no"


def test_person_far_left_is_to_the_left_and_not_in_the_way():
    people = {1: make_track("l", [[4.0, 4.5]] * 10)}
    a = rule_based_answers(people, _straight(), GOAL, 1)
    assert a["q_person_spatial_position_begin_p1"] == "to the left of"
    assert a["q_obstructing_path_p1"] == "no"
    assert a["q_obstructing_end_position_p1"] == "no"
    assert a["q_person_action_p1"] == "not considering"
    assert a["q_human_future_action_prediction_p1"] == "not consider"


def test_end_position_is_relative_to_robot_heading_at_the_end():
    # robot turns 90 degrees left; a person standing at (3, 3) ends up straight ahead of it
    robot = _turning_left(total_deg=90.0, radius=3.0)
    people = {1: make_track("p", [[3.0, 6.0]] * 10)}
    a = rule_based_answers(people, robot, (3.0, 9.0), 1)
    assert a["q_person_spatial_position_begin_p1"] == "to the left of"
    assert a["q_person_spatial_position_end_p1"] == "ahead of"
    assert a["q_goal_position_begin"] == "to the left"
    assert a["q_goal_position_end"] == "ahead"


def test_robot_turning_left_includes_turning_left():
    assert "turning left" in robot_moving_direction(_turning_left(total_deg=20.0))
    assert robot_moving_direction(_turning_left(total_deg=20.0)) == ["moving ahead", "turning left"]
    assert robot_moving_direction(_turning_left(total_deg=60.0)) == ["turning left"]


def test_robot_turning_right_and_straight():
    r = _turning_left(total_deg=20.0)
    right = RobotPath(r.x, -r.y, -r.yaw)
    assert robot_moving_direction(right) == ["moving ahead", "turning right"]
    assert robot_moving_direction(_straight()) == ["moving ahead"]


def test_goal_to_the_right():
    a = rule_based_answers({}, _straight(), (5.0, -6.0), 0)
    assert a["q_goal_position_begin"] == "to the right"


def test_spatial_sectors():
    assert spatial_position(5.0, 0.4) == "ahead of"  # inside the 0.5 m corridor
    assert spatial_position(10.0, 3.0) == "ahead of"  # 16.7 degrees
    assert spatial_position(1.0, 1.0) == "to the left of"
    assert spatial_position(-3.0, -0.5) == "behind"


def test_polyline_distance_detects_crossing_between_samples():
    # two samples on either side of the segment: the polyline crosses it
    assert polyline_segment_distance(np.array([[5.0, 2.0], [5.0, -2.0]]), np.zeros(2), np.array([10.0, 0.0])) == 0.0
    assert polyline_segment_distance(np.array([[5.0, 2.0]]), np.zeros(2), np.array([10.0, 0.0])) == pytest.approx(2.0)


def test_every_question_gets_a_valid_option_for_every_person():
    people = {
        1: make_track("a", [[6.0, 0.0]] * 10),
        2: make_track("b", [[2.0 + 0.1 * t, -3.0] for t in range(10)]),
        4: make_track("d", [[-1.0, 0.5]] * 3, timesteps=[7, 8, 9]),
    }
    a = rule_based_answers(people, _turning_left(), GOAL, n_people=4)  # person 3 has no track
    questions = expand_questions(load_bank(), 4)  # the prompt bank's questions and options
    assert set(a) == {q.key for q in questions}
    for q in questions:
        assert q.canonical(a[q.key]) is not None, (q.key, a[q.key])


def test_tracker_id_keys_are_filtered_and_labelled():
    tracks = {
        "9": make_track("9", [[4.0, -1.0]] * 5, bboxes=[(900, 0, 950, 100)] * 5),
        "3": make_track("3", [[4.0, 1.0]] * 5, bboxes=[(100, 0, 150, 100)] * 5),
        "far": make_track("far", [[40.0, 0.0]] * 5, bboxes=[(500, 0, 550, 100)] * 5),
    }
    a = rule_based_answers(tracks, _straight(), GOAL)
    assert a["q_person_spatial_position_begin_p1"] == "ahead of"  # "3": leftmost bbox -> person 1
    assert "q_obstructing_path_p3" not in a


def test_unknown_goal_uses_straight_ahead_corridor():
    people = {1: make_track("a", [[6.0, 0.0]] * 10)}
    a = rule_based_answers(people, _straight(), None, 1)
    assert a["q_goal_position_begin"] == "ahead"
    assert a["q_obstructing_path_p1"] == "yes"
    assert a["q_obstructing_end_position_p1"] == "yes"
