"""The shared spatial relations (sectors, goal sector, distance change, robot direction)."""

import math

import numpy as np

from socialbench.navigation.relations import (
    distance_change,
    goal_sector,
    person_sector,
    relative,
    robot_direction,
)
from socialbench.navigation.tracks import RobotPath

SECTOR = {"ahead_half_angle_deg": 20.0, "ahead_lateral_m": 0.5, "behind_angle_deg": 135.0}
DIRECTION = {"moving_min_m": 0.3, "turn_deg": 10.0, "sharp_turn_deg": 30.0, "lateral_m": 0.2}


def _at_bearing(deg: float, r: float = 5.0) -> tuple[float, float]:
    return (r * math.cos(math.radians(deg)), r * math.sin(math.radians(deg)))


def test_relative_expresses_a_point_in_the_robot_frame_at_t():
    robot = RobotPath(np.array([0.0, 1.0]), np.array([0.0, 1.0]), np.array([0.0, math.pi / 2]))
    forward, left = relative((1.0, 3.0), robot, 1)
    assert math.isclose(forward, 2.0, abs_tol=1e-12) and math.isclose(left, 0.0, abs_tol=1e-12)


def test_person_sector_is_behind_beyond_the_behind_angle():
    assert person_sector(*_at_bearing(140.0), **SECTOR) == "behind"
    assert person_sector(*_at_bearing(130.0), **SECTOR) == "to the left of"


def test_person_sector_is_ahead_within_the_half_angle_or_the_lateral_band():
    assert person_sector(*_at_bearing(-19.0), **SECTOR) == "ahead of"
    assert person_sector(1.0, -0.45, **SECTOR) == "ahead of"  # 24 degrees, but within 0.5 m
    assert person_sector(*_at_bearing(-21.0), **SECTOR) == "to the right of"


def test_the_half_angle_is_the_callers_parameter():
    point = _at_bearing(22.0)
    assert person_sector(*point, **SECTOR) == "to the left of"
    assert person_sector(*point, **{**SECTOR, "ahead_half_angle_deg": 25.0}) == "ahead of"


def test_goal_sector_puts_a_goal_behind_to_its_side():
    assert goal_sector(-5.0, -1.0, ahead_half_angle_deg=20.0, ahead_lateral_m=0.5) == "to the right"
    assert goal_sector(-5.0, 0.0, ahead_half_angle_deg=20.0, ahead_lateral_m=0.5) == "to the left"


def test_distance_change_uses_the_larger_of_the_fixed_and_relative_band():
    assert distance_change(3.0, 2.4, band_m=0.5, band_frac=0.1) == "closer to"
    assert distance_change(8.0, 8.7, band_m=0.5, band_frac=0.1) == "about the same distance to"
    assert distance_change(8.0, 8.9, band_m=0.5, band_frac=0.1) == "further away from"


def test_lateral_drift_of_a_robot_that_barely_moved_counts_only_without_the_motion_switch():
    # ends 0.25 m to the left, heading unchanged: moved less than moving_min_m = 0.3 m
    robot = RobotPath(np.zeros(10), np.linspace(0.0, 0.25, 10), np.zeros(10))
    assert robot_direction(robot, **DIRECTION, lateral_needs_motion=True) == ("moving ahead",)
    assert robot_direction(robot, **DIRECTION, lateral_needs_motion=False) == ("turning left",)


def test_a_sharp_turn_drops_moving_ahead():
    yaw = np.linspace(0.0, math.radians(-40.0), 10)
    robot = RobotPath(np.cumsum(0.25 * np.cos(yaw)), np.cumsum(0.25 * np.sin(yaw)), yaw)
    assert robot_direction(robot, **DIRECTION, lateral_needs_motion=False) == ("turning right",)
