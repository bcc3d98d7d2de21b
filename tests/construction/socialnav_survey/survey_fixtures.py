"""Expectations of the SocialNav-SUB survey tests, written out by hand (independent of
:mod:`socialbench.construction.socialnav_survey.order`); the scripted annotators are in
:mod:`socialbench.testing.label_studio_survey`."""

from __future__ import annotations

from socialbench.benchmarks.socialnav_sub.bank_file import load_bank

BANK = load_bank()
SCENE = ("q_goal_position_begin", "q_goal_position_end", "q_robot_moving_direction")
PERSON = (
    "q_person_spatial_position_begin",
    "q_person_spatial_position_end",
    "q_obstructing_end_position",
    "q_person_distance_change",
    "q_obstructing_path",
    "q_robot_affected",
    "q_robot_action",
    "q_person_affected",
    "q_person_action",
    "q_robot_suggested_affected",
    "q_robot_suggested_action",
    "q_human_future_action_prediction",
)
