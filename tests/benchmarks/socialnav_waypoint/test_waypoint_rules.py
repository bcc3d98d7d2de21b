"""Scene-blind rules on the bundled (simulated) scenes: none beats chance, by construction.

The first sampler (alternatives on a grid at 0.5/1/1.5 x max(distance, 1.5 m)) let "nearest"
score 80% here; these tests fail if anything like it comes back."""

from __future__ import annotations

from collections import Counter

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.socialnav_waypoint.rules import GEOMETRIC_RULES, nearest, straightest, toward_goal


@pytest.fixture(scope="module")
def items():
    bench = get_benchmark("socialnav-waypoint")[0]
    return bench.load(bench.default_data(), require_images=False, limit=None).items


def hits(items, rule) -> int:
    return sum(rule(it.metadata["waypoints"]) == it.votes["q_waypoint"].answers[0] for it in items)


@pytest.mark.parametrize("rule", [nearest, straightest], ids=["nearest", "straightest"])
def test_the_baseline_rules_score_exactly_chance_on_the_bundled_scenes(items, rule):
    assert len(items) % 5 == 0 and hits(items, rule) == len(items) // 5


def test_no_geometric_rule_scores_above_chance_on_the_bundled_scenes(items):
    exact = {name: hits(items, rule) for name, rule in GEOMETRIC_RULES.items() if name != "first in view / not in view"}
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
