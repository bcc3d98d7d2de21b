"""The alternative design that ``scripts/waypoint_residual_design.py`` measures (one item per
sample, distractors from neighbours' residuals), and the bound it reports."""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
import sys
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_waypoint.candidates import Move
from socialbench.navigation.projection import PinholeCamera

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "waypoint_residual_design.py"


def script():
    spec = importlib.util.spec_from_file_location("waypoint_residual_design_script", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def moves(n: int, seed: int = 0, keep_going: int = 0) -> list[Move]:
    """``n`` robots at 0.3-1.1 m/s, the first ``keep_going`` of which go on straight at their speed."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        speed = rng.uniform(0.3, 1.1)
        future = (rng.uniform(0.5, 2.5) * speed, rng.uniform(-1.0, 1.0) * speed)
        if i < keep_going:
            future = (2.0 * speed + rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02))
        out.append(Move(f"scene{i:03d}_5", future, velocity=(speed, 0.0), yaw_rate=rng.uniform(-0.3, 0.3)))
    return out


def test_every_sample_is_asked_its_own_move_among_spaced_candidates():
    ms = moves(40)
    cands, left = script().design(ms, 0.175, 8, PinholeCamera())
    assert not left and set(cands) == {m.item_id for m in ms}
    for m in ms:
        c = cands[m.item_id]
        right = next(k for k in c.items if k.label == c.answer)
        assert (right.x, right.y) == pytest.approx(m.future)
        pts = [(k.x, k.y) for k in c.items]
        assert min(math.dist(a, b) for a, b in itertools.combinations(pts, 2)) >= 0.175


def test_the_candidate_nearest_a_prediction_is_right_when_the_move_is_within_half_the_gap():
    # the bound the script prints: it holds for any candidates spaced gap apart
    mod, gap = script(), 0.175
    ms = moves(60, seed=1, keep_going=10)
    cands, _ = mod.design(ms, gap, 8, PinholeCamera())
    checked = 0
    for m in ms:
        c = cands[m.item_id]
        for p in mod.predictions(m).values():
            if math.dist(p, m.future) < gap / 2:
                checked += 1
                assert min(c.items, key=lambda k: math.dist((k.x, k.y), p)).label == c.answer
    assert checked > 0


def test_balancing_makes_a_crowded_point_no_likelier_to_be_the_truth():
    # 2 of 12 pool points crowd within one gap: drawn uniformly, a set holding one of them
    # would more likely have it as its truth; the weights make every member equally likely
    import numpy as np

    mod, gap = script(), 0.2
    rng = np.random.default_rng(0)
    pts = np.concatenate([[[2.0, 0.0], [2.02, 0.01]], rng.uniform([0.0, -2.0], [4.0, 2.0], (10, 2))])
    subs = np.asarray(list(itertools.combinations(range(len(pts)), 4)))
    far = np.linalg.norm(pts[:, None] - pts[None], axis=-1) >= gap
    member = np.ones((len(pts), len(subs)), dtype=bool)
    for c in range(4):
        member &= far[:, subs[:, c]]
    for a, b in itertools.combinations(range(4), 2):
        member &= far[subs[:, a], subs[:, b]][None, :]

    def spread(u):
        uz = u * (member.astype(float) @ np.prod(u[subs], axis=1))
        return float(uz.max() / uz.min())

    assert spread(np.ones(len(pts))) > 1.05
    assert spread(mod.balance_weights(pts, gap, iterations=200)) == pytest.approx(1.0, abs=0.02)
