"""The waypoint image's BEV is drawn in the robot's frame at the last frame, as the prompt says."""

from __future__ import annotations

import math
import pickle

import numpy as np

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.socialnav_sub import loader
from socialbench.benchmarks.socialnav_waypoint.benchmark import LAST_BEV_TEXT, build_waypoint_prompt
from socialbench.benchmarks.socialnav_waypoint.images import render_waypoint_image
from socialbench.types import Question

PURPLE = np.array([106, 27, 154])


def turned_sample(tmp_path):
    """The first bundled sample with a robot that stands still and turns 90° left during the clip."""
    ds = loader.load_socialnav(get_benchmark("socialnav-waypoint")[0].default_data(), limit=1)
    meta = dict(ds.items[0].metadata)
    n = int(meta["first_frame"]) + 30
    yaw = np.clip((np.arange(n) - meta["first_frame"]) / 9.0, 0.0, 1.0) * (math.pi / 2)
    path = tmp_path / "traj_data.pkl"
    path.write_bytes(pickle.dumps({"position": np.zeros((n, 2)), "yaw": yaw}, protocol=4))
    meta["odometry_path"] = str(path)
    return meta, ds.camera


def purple_extent(img):
    """(width, height) in pixels of the box around every purple (candidate disc) pixel."""
    a = np.asarray(img.convert("RGB")).astype(int)
    ys, xs = np.nonzero(np.abs(a - PURPLE).sum(axis=2) < 40)
    return xs.max() - xs.min(), ys.max() - ys.min()


def test_two_candidates_equally_far_ahead_at_the_last_frame_share_a_bev_row(tmp_path):
    meta, camera = turned_sample(tmp_path)
    # both 3 m ahead of the robot as it stands at the last frame, B 1.5 m to its left: drawn in
    # the first image's frame (the robot has turned 90° since) they would stand in one column
    img = render_waypoint_image(meta, camera, (("A", 3.0, 0.0), ("B", 3.0, 1.5)), mode="bev")
    width, height = purple_extent(img)
    assert width > 2 * height  # one row of two discs: forward is up


def test_the_prompt_says_which_frame_each_bev_is_drawn_in():
    q = Question("q_waypoint", "q_waypoint", "Waypoint selection", "single", "Which?", tuple("ABCDE"))
    bank = loader.load_socialnav(get_benchmark("socialnav-waypoint")[0].default_data(), limit=1).bank
    prompt = build_waypoint_prompt(bank, q, 10, "img-with-bev", None)
    assert "robot's frame at the first image" in prompt and LAST_BEV_TEXT in prompt
    assert "forward direction points up" not in prompt
