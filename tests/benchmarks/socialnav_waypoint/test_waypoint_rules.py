"""People-blind rules on the bundled (simulated) scenes: those of the candidates' distances and
the robot's speed score chance, by construction.

The first sampler (alternatives on a grid at 0.5/1/1.5 x max(distance, 1.5 m)) let "nearest"
score 80% here; these tests fail if anything like it comes back."""

from __future__ import annotations

from collections import Counter

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.socialnav_waypoint.rules import (
    GEOMETRIC_RULES,
    MOTION_RULES,
    closest_to_goal,
    nearest,
    toward_goal,
)

#: The rules that are functions of the candidates in each member's motion frame: exactly 1 / 5.
EXACT = (
    "nearest",
    "farthest",
    "most typical (nearest the candidates' mean)",
    "most isolated",
    "letter A",
    "last letter",
)


@pytest.fixture(scope="module")
def items():
    bench = get_benchmark("socialnav-waypoint")[0]
    return bench.load(bench.default_data(), require_images=False, limit=None).items


def hits(items, rule) -> int:
    return sum(rule(it.metadata["waypoints"]) == it.votes["q_waypoint"].answers[0] for it in items)


def test_the_nearest_baseline_scores_exactly_chance_on_the_bundled_scenes(items):
    assert len(items) % 5 == 0 and hits(items, nearest) == len(items) // 5


def test_the_distance_rules_score_exactly_chance_on_the_bundled_scenes(items):
    exact = {name: hits(items, GEOMETRIC_RULES[name]) for name in EXACT}
    assert set(exact.values()) == {len(items) // 5}


def test_the_right_answers_rank_by_distance_is_uniform(items):
    ranks = Counter()
    for it in items:
        w = it.metadata["waypoints"]
        dist = sorted((c["x"] ** 2 + c["y"] ** 2, c["gold"]) for c in w["candidates"])
        ranks[next(i for i, (_, gold) in enumerate(dist) if gold)] += 1
    assert set(ranks.values()) == {len(items) // 5} and len(ranks) == 5


def test_toward_goal_picks_the_candidate_in_the_goals_direction():
    w = {
        "answer": "A",
        "goal": [0.0, 5.0],  # straight to the left
        "candidates": [
            {"label": "A", "x": 2.0, "y": 0.0, "pixel": None},
            {"label": "B", "x": 0.5, "y": 1.5, "pixel": None},
            {"label": "C", "x": 1.0, "y": -1.0, "pixel": None},
        ],
    }
    assert toward_goal(w) == "B" and toward_goal({**w, "goal": None}) is None


def test_closest_to_goal_picks_the_candidate_nearest_the_goal_point():
    w = {
        "answer": "A",
        "goal": [3.0, 0.5],
        "candidates": [
            {"label": "A", "x": 0.5, "y": 0.0, "pixel": None},
            {"label": "B", "x": 2.0, "y": 0.4, "pixel": None},
        ],
    }
    assert closest_to_goal(w) == "B" and closest_to_goal({**w, "goal": None}) is None


def test_the_motion_rules_read_the_robots_recent_velocity():
    w = {
        "answer": "A",
        "goal": None,
        "robot": {"velocity": [1.0, 0.0], "yaw_rate": 0.0},
        "candidates": [
            {"label": "A", "x": 0.5, "y": 0.0, "pixel": None},
            {"label": "B", "x": 2.0, "y": 0.1, "pixel": None},
            {"label": "C", "x": 1.0, "y": 1.7, "pixel": None},
        ],
    }
    picks = {name: MOTION_RULES[name](w) for name in ("constant velocity", "recent speed x 2 s", "previous heading")}
    assert picks == {"constant velocity": "B", "recent speed x 2 s": "B", "previous heading": "A"}
