"""Candidate waypoints: groups of five samples' own moves in each member's motion frame, each
member's move its answer."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_waypoint.candidates import (
    MAX_SCALE_RATIO,
    MIN_SPACING_M,
    Move,
    future_position,
    group_candidates,
    motion_frame,
    recent_motion,
)
from socialbench.benchmarks.socialnav_waypoint.rules import GEOMETRIC_RULES, MOTION_RULES
from socialbench.errors import DataError


def moves(n: int, seed: int = 0) -> list[Move]:
    """``n`` robots moving at 0.6-1.1 m/s with some turn, each with a move spread around where
    its motion leads (2 s), no people."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        speed, turn = rng.uniform(0.6, 1.1), rng.uniform(-0.3, 0.3)
        future = (rng.uniform(0.5, 2.5) * speed, rng.uniform(-1.5, 1.5) * speed)
        out.append(Move(f"s{i:03d}", future, velocity=(speed, 0.0), yaw_rate=turn))
    return out


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


def test_every_rule_of_the_candidates_and_the_robots_speed_is_right_once_per_group():
    # nearest, farthest, speed x 2 s, closest to the mean...: functions of the candidates in the
    # member's motion frame, the same five points for every member
    exact = ("nearest", "farthest", "most typical (nearest the candidates' mean)", "most isolated")
    g = group_candidates(moves(40, seed=3))
    rules = {**{k: GEOMETRIC_RULES[k] for k in exact}, "recent speed x 2 s": MOTION_RULES["recent speed x 2 s"]}
    for name, rule in rules.items():
        for group in g.groups:
            hits = sum(rule(g.candidates[i].to_json()) == g.candidates[i].answer for i in group)
            assert hits == 1, name


def test_a_group_offers_each_member_the_same_points_in_its_motion_frame():
    ms = {m.item_id: m for m in moves(30, seed=2)}
    g = group_candidates(list(ms.values()))
    for group in g.groups:
        seen = set()
        for i in group:
            f = motion_frame(ms[i])
            seen.add(frozenset(tuple(round(v, 6) for v in f.from_robot((k.x, k.y))) for k in g.candidates[i].items))
        assert len(seen) == 1


def test_recent_motion_is_the_velocity_and_yaw_rate_over_the_last_second():
    pos = np.array([[0.0, 0.0]] + [[0.5 * k, 0.0] for k in range(1, 6)])  # 0.5 m per frame along +x
    yaw = np.array([0.0, 0.0, 0.1, 0.2, 0.3, 0.4])
    (vx, vy), turn = recent_motion(pos, yaw, last_index=5)
    c, s = math.cos(0.4), math.sin(0.4)
    assert (vx, vy) == pytest.approx((c * 0.5 * 4, -s * 0.5 * 4)) and turn == pytest.approx(0.4)


def test_each_letter_is_the_answer_of_one_member_per_group():
    g = group_candidates(moves(40, seed=4))
    for group in g.groups:
        assert Counter(g.candidates[i].answer for i in group) == Counter("ABCDE")


def test_candidates_are_spaced_apart_in_every_members_frame():
    g = group_candidates(moves(40, seed=5))
    for c in g.candidates.values():
        pts = [(k.x, k.y) for k in c.items]
        assert min(math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1 :]) >= MIN_SPACING_M / MAX_SCALE_RATIO


def test_moves_crowded_in_one_spot_of_the_motion_frame_are_one_per_group():
    # ten robots that all keep going exactly as they were (the same point of the motion frame)
    crowd = [Move(f"c{i}", (2.0 * (0.8 + 0.01 * i), 0.0), velocity=(0.8 + 0.01 * i, 0.0)) for i in range(10)]
    g = group_candidates(crowd + moves(20, seed=7))
    assert all(sum(i.startswith("c") for i in grp) <= 1 for grp in g.groups)
    assert all("motion frames" in g.left_out[m.item_id] for m in crowd if m.item_id not in g.candidates)


def test_candidates_depend_on_the_dataset_not_on_its_order():
    ms = moves(30, seed=8)
    assert group_candidates(ms).candidates == group_candidates(list(reversed(ms))).candidates


def test_the_front_view_pixel_is_recorded_only_for_candidates_in_view():
    from socialbench.navigation.projection import PinholeCamera

    g = group_candidates(moves(30, seed=9), PinholeCamera())
    rows = [k for c in g.candidates.values() for k in c.items]
    assert any(k.pixel is None for k in rows if k.x < 1.0) and all(k.pixel is not None for k in rows if k.x > 2.0)
