"""The floor of the waypoint task as ``scripts/waypoint_floor.py`` measures it, on a small set.

The rules below compare the candidates only with the robot's own past motion (its recent
speed × 2 s, nearest, farthest, the candidates' mean): by construction (the motion frame of
``candidates.py``) each is right exactly once per group of five. The first design (other
samples' moves in the robot frame) let "recent speed × 2 s" score 54% over 510 items; this
test fails if anything like it comes back.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

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
