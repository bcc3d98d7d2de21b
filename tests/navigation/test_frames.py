"""Coordinate frames and robot poses from odometry."""

import math
import pickle

import numpy as np
import pytest

from socialbench.errors import DataError
from socialbench.navigation.frames import (
    Odometry,
    Pose2D,
    load_odometry,
    local_to_world,
    robot_path_from_odometry,
    waypoint_headings,
    world_to_local,
    wrap_angle,
)


def test_world_to_local_to_world_is_identity():
    rng = np.random.default_rng(0)
    pts = rng.uniform(-20, 20, size=(50, 2))
    origin = Pose2D(3.2, -7.5, 2.4)
    assert np.allclose(local_to_world(world_to_local(pts, origin), origin), pts)


def test_world_to_local_quarter_turn():
    # robot at (1, 1) facing world +y: a point 2 m further along +y is 2 m ahead
    origin = Pose2D(1.0, 1.0, math.pi / 2)
    assert np.allclose(world_to_local([1.0, 3.0], origin), [2.0, 0.0])
    # world +x of the robot is on its right
    assert np.allclose(world_to_local([2.0, 1.0], origin), [0.0, -1.0])


def test_wrap_angle_range():
    assert wrap_angle(3 * math.pi / 2) == pytest.approx(-math.pi / 2)
    assert np.all(np.abs(wrap_angle(np.linspace(-10, 10, 41))) <= math.pi)


def _line_odometry(n=30, heading=math.pi / 2, step=0.25):
    pos = np.array([[10.0 + i * step * math.cos(heading), -3.0 + i * step * math.sin(heading)] for i in range(n)])
    return Odometry(pos, np.full(n, heading))


def test_robot_path_starts_at_origin_of_first_frame():
    path = robot_path_from_odometry(_line_odometry(), first_frame=5)
    assert len(path) == 10
    assert path.pose(0) == pytest.approx((0.0, 0.0, 0.0))
    assert path.x[9] == pytest.approx(9 * 0.25)  # straight ahead in the initial frame
    assert np.allclose(path.y, 0.0)


def test_official_offset_uses_next_odometry_index():
    odom = _line_odometry()
    ours = robot_path_from_odometry(odom, first_frame=5)
    official = robot_path_from_odometry(odom, first_frame=5, official_offset=True)
    assert official.x[0] == pytest.approx(0.25)  # already one frame ahead at t = 0
    assert np.allclose(official.x[:-1], ours.x[1:])


def test_robot_path_too_short_names_the_file():
    odom = Odometry(np.zeros((12, 2)), np.zeros(12), "front_view/S/traj_data.pkl")
    robot_path_from_odometry(odom, first_frame=2)  # indices 2..11: fits
    with pytest.raises(DataError, match="traj_data.pkl"):
        robot_path_from_odometry(odom, first_frame=2, official_offset=True)


def test_waypoint_heading_looks_three_ahead_then_keeps_last():
    xy = np.array([[0, 0], [1, 0], [2, 0], [3, 3], [3, 4]], dtype=float)
    h = waypoint_headings(xy, np.zeros(5))
    assert h[0] == pytest.approx(math.atan2(3, 3))  # towards waypoint 3
    assert h[2] == pytest.approx(math.atan2(4, 1))  # waypoint 4 is 2 ahead
    assert h[4] == pytest.approx(h[3])  # nothing ahead: previous heading


def test_waypoint_heading_of_standing_robot_uses_odometry_yaw():
    h = waypoint_headings(np.zeros((4, 2)), [0.3, 0.3, 0.3, 0.3])
    assert np.allclose(h, 0.3)


def test_load_odometry_through_safe_unpickler(tmp_path):
    p = tmp_path / "traj_data.pkl"
    with p.open("wb") as f:
        pickle.dump({"position": np.arange(20.0).reshape(10, 2), "yaw": np.zeros(10)}, f)
    odom = load_odometry(p)
    assert len(odom) == 10
    assert odom.pose(3) == Pose2D(6.0, 7.0, 0.0)


def test_load_odometry_rejects_missing_yaw(tmp_path):
    p = tmp_path / "traj_data.pkl"
    with p.open("wb") as f:
        pickle.dump({"position": np.zeros((10, 2))}, f)
    with pytest.raises(DataError, match="yaw"):
        load_odometry(p)
