"""Candidate waypoints: groups of five samples' own moves, each member's move its answer."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_waypoint.candidates import (
    MIN_SPACING_M,
    N_CANDIDATES,
    PERSON_CLEARANCE_M,
    Move,
    future_position,
    group_candidates,
)
from socialbench.benchmarks.socialnav_waypoint.rules import GEOMETRIC_RULES
from socialbench.errors import DataError


def moves(n: int, seed: int = 0) -> list[Move]:
    """``n`` moves spread over a 3 m x 4 m patch ahead of the robot, no people."""
    rng = random.Random(seed)
    return [Move(f"s{i:03d}", (rng.uniform(0.0, 3.0), rng.uniform(-2.0, 2.0))) for i in range(n)]


def test_future_position_is_in_the_robot_frame_at_the_last_frame():
    pos = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 3.0]])
    yaw = np.array([0.0, math.pi / 2, math.pi / 2])  # facing +y (world) at index 1
    x, y = future_position(pos, yaw, last_index=1, horizon=1)
    assert (x, y) == pytest.approx((2.0, 0.0))  # 2 m straight ahead


def test_future_position_needs_odometry_after_the_clip():
    with pytest.raises(DataError, match="needs odometry index 5"):
        future_position(np.zeros((4, 2)), np.zeros(4), last_index=2, horizon=3)


def test_the_answer_is_the_samples_own_move():
    g = group_candidates(moves(30))
    own = {m.item_id: m.future for m in moves(30)}
    for item_id, c in g.candidates.items():
        right = next(k for k in c.items if k.label == c.answer)
        assert (right.x, right.y) == pytest.approx(own[item_id])


def test_every_member_of_a_group_is_offered_the_same_moves():
    g = group_candidates(moves(30))
    for group in g.groups:
        offered = {frozenset((round(k.x, 9), round(k.y, 9)) for k in g.candidates[i].items) for i in group}
        assert len(group) == N_CANDIDATES and len(offered) == 1


def test_every_rule_that_sees_only_the_candidates_is_right_once_per_group():
    g = group_candidates(moves(40, seed=3))
    for name, rule in GEOMETRIC_RULES.items():
        if name in ("letter A", "last letter"):
            continue  # letters differ per member: next test
        for group in g.groups:
            hits = sum(rule(g.candidates[i].to_json()) == g.candidates[i].answer for i in group)
            assert hits == 1, name


def test_each_letter_is_the_answer_of_one_member_per_group():
    g = group_candidates(moves(40, seed=4))
    for group in g.groups:
        assert Counter(g.candidates[i].answer for i in group) == Counter("ABCDE")


def test_candidates_are_spaced_apart():
    g = group_candidates(moves(40, seed=5))
    for c in g.candidates.values():
        pts = [(k.x, k.y) for k in c.items]
        assert min(math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1 :]) >= MIN_SPACING_M


def test_no_candidate_is_inside_a_pedestrian_of_its_sample():
    rng = random.Random(6)
    ms = [
        Move(m.item_id, m.future, ((rng.uniform(0, 3), rng.uniform(-2, 2)), (rng.uniform(0, 3), rng.uniform(-2, 2))))
        for m in moves(60, seed=6)
    ]
    people = {m.item_id: m.people for m in ms}
    g = group_candidates(ms)
    assert g.candidates
    for item_id, c in g.candidates.items():
        assert all(math.dist((k.x, k.y), p) >= PERSON_CLEARANCE_M for k in c.items for p in people[item_id])


def test_a_sample_whose_own_move_is_next_to_its_person_is_left_out():
    ms = moves(20) + [Move("close", (2.0, 0.0), ((2.1, 0.1),))]
    g = group_candidates(ms)
    assert "close" not in g.candidates and "person" in g.left_out["close"]


def test_moves_crowded_in_one_spot_beyond_one_per_group_are_left_out():
    crowd = [Move(f"c{i}", (1.8 + 0.01 * i, 0.0)) for i in range(10)]
    g = group_candidates(crowd + moves(20, seed=7))
    placed = [m.item_id for m in crowd if m.item_id in g.candidates]
    assert 0 < len(placed) <= len(g.groups) and all(sum(i.startswith("c") for i in grp) <= 1 for grp in g.groups)


def test_candidates_depend_on_the_dataset_not_on_its_order():
    ms = moves(30, seed=8)
    assert group_candidates(ms).candidates == group_candidates(list(reversed(ms))).candidates


def test_the_front_view_pixel_is_recorded_only_for_candidates_in_view():
    from socialbench.navigation.projection import PinholeCamera

    g = group_candidates(moves(30, seed=9), PinholeCamera())
    rows = [k for c in g.candidates.values() for k in c.items]
    assert any(k.pixel is None for k in rows if k.x < 1.0) and all(k.pixel is not None for k in rows if k.x > 2.0)
