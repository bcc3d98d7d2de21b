"""The floor of the waypoint task as ``scripts/waypoint_floor.py`` measures it, on a small set.

The rules below compare the candidates only with the robot's own past motion (its recent
speed × 2 s, nearest, farthest, the candidates' mean): by construction (the motion frame of
``candidates.py``) each is right exactly once per group of five. The first design (other
samples' moves in the robot frame) let "recent speed × 2 s" score 54% over 510 items; this
test fails if anything like it comes back.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from socialbench.cli import main

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "waypoint_floor.py"
EXACT = (
    "nearest",
    "farthest",
    "most typical (nearest the candidates' mean)",
    "most isolated",
    "letter A",
    "last letter",
    "recent speed x 2 s",
)


def floor_script():
    spec = importlib.util.spec_from_file_location("waypoint_floor_script", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "sim"
    main(["sim", "socialnav", "--out", str(out), "--scenes", "60", "--seed", "5", "--no-progress"])
    return floor_script().load(out)[0]


def test_the_rules_of_the_robots_own_motion_score_chance_on_fresh_scenes(items):
    rows = {name: (mean, n) for name, _, mean, _, n in floor_script().battery(items, classifiers=False)}
    assert len(items) >= 25 and len(items) % 5 == 0
    assert all(it.metadata["waypoints"]["robot"] is not None for it in items)  # the motion the rules read
    assert {name: rows[name][0] for name in EXACT} == {name: pytest.approx(0.2) for name in EXACT}


def test_every_people_blind_rule_is_reported_with_its_standard_error(items):
    rows = floor_script().battery(items, classifiers=False)
    names = {name for name, kind, *_ in rows if kind == "people-blind"}
    assert {"constant velocity", "constant turn", "previous heading", "leftmost in the front view"} <= names
    assert all(se > 0 for _, _, _, se, _ in rows)


def test_the_classifiers_folds_keep_together_the_items_that_share_a_move(items):
    # an item's alternatives are the other members' moves: split across folds, a move is a
    # wrong answer in training and the right one in the test fold, and the classifier learns
    # to avoid right answers (hiding a shortcut)
    components = floor_script().move_components(items)
    by_item = dict(zip((it.item_id for it in items), components))
    for it in items:
        sources = {c["source"] for c in it.metadata["waypoints"]["candidates"]}
        assert {by_item[s] for s in sources if s in by_item} == {by_item[it.item_id]}
    assert len(set(components)) == len(items) // 5  # one component per group of five


def test_the_nearest_prediction_rule_wins_whenever_the_move_is_within_half_the_spacing_of_it(items):
    script = floor_script()
    # any people-blind prediction will do: here where the recent velocity takes the robot
    predicted = np.asarray([[2 * v for v in it.metadata["waypoints"]["robot"]["velocity"]] for it in items])
    hits = script.nearest_prediction_hits(items, predicted)
    checked = 0
    for it, p, hit in zip(items, predicted, hits):
        pts = [(c["x"], c["y"]) for c in it.metadata["waypoints"]["candidates"]]
        spacing = min(math.dist(a, b) for k, a in enumerate(pts) for b in pts[k + 1 :])
        if math.dist(script.true_move(it), p) < spacing / 2:
            assert hit == 1.0
            checked += 1
    assert checked > 0
    assert script.spacing_bound(items, predicted, 0.0) == 0.0
