"""Candidate waypoints: the operator's future position and the documented alternatives."""

from __future__ import annotations

import math

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_waypoint.candidates import (
    MIN_AHEAD_M,
    MIN_SPACING_M,
    PERSON_CLEARANCE_M,
    future_position,
    sample_candidates,
)
from socialbench.errors import DataError


def test_future_position_is_in_the_robot_frame_at_the_last_frame():
    pos = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 3.0]])
    yaw = np.array([0.0, math.pi / 2, math.pi / 2])  # facing +y (world) at index 1
    x, y = future_position(pos, yaw, last_index=1, horizon=1)
    assert (x, y) == pytest.approx((2.0, 0.0))  # 2 m straight ahead


def test_future_position_needs_odometry_after_the_clip():
    with pytest.raises(DataError, match="needs odometry index 5"):
        future_position(np.zeros((4, 2)), np.zeros(4), last_index=2, horizon=3)


def test_the_answer_is_the_candidate_at_the_future_position():
    c = sample_candidates("s1", (2.0, 0.3), [])
    right = next(k for k in c.items if k.label == c.answer)
    assert (right.x, right.y) == pytest.approx((2.0, 0.3))


def test_candidates_are_spaced_ahead_and_labelled_in_order():
    c = sample_candidates("s1", (2.0, 0.0), [])
    pts = [(k.x, k.y) for k in c.items]
    gaps = [math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1 :]]
    assert min(gaps) >= MIN_SPACING_M - 1e-9 and c.labels == tuple("ABCDE")[: len(pts)]
    assert all(k.x >= MIN_AHEAD_M for k in c.items if k.label != c.answer)


def test_no_alternative_is_inside_a_pedestrian():
    people = [(1.5, 1.0), (3.0, -1.0), (2.0, 0.9)]
    c = sample_candidates("s2", (2.0, 0.0), people)
    alts = [(k.x, k.y) for k in c.items if k.label != c.answer]
    assert all(math.dist(a, p) >= PERSON_CLEARANCE_M for a in alts for p in people)


def test_candidates_depend_only_on_the_item():
    assert sample_candidates("s3", (1.0, 0.0), []) == sample_candidates("s3", (1.0, 0.0), [])


def test_a_scene_with_no_room_is_refused():
    crowd = [(x, y) for x in np.arange(0.0, 6.0, 0.3) for y in np.arange(-6.0, 6.0, 0.3)]
    with pytest.raises(DataError, match="fewer than two alternative"):
        sample_candidates("s4", (2.0, 0.0), crowd)
