"""Resampling to the release's 4 Hz."""

from __future__ import annotations

import numpy as np

from socialbench.navigation.projection import PinholeCamera
from socialbench.recording.camera import CameraModel
from socialbench.recording.clip import Recording, resample


def _rec(frame_times, odom_times):
    ot = np.asarray(odom_times, dtype=float)
    return Recording(
        "<test>",
        np.asarray(frame_times, dtype=float),
        ot,
        np.stack([ot, 0 * ot], 1),
        0 * ot,
        CameraModel.level(PinholeCamera()),
        lambda idx: iter(()),
        {},
    )


def test_a_slower_camera_leaves_gaps_instead_of_repeating_frames():
    rs = resample(_rec(np.arange(0, 3.01, 0.5), np.arange(0, 3.01, 0.1)))  # 2 Hz camera
    assert rs.source_index.tolist() == [0, -1, 1, -1, 2, -1, 3, -1, 4, -1, 5, -1, 6]


def test_ticks_outside_the_odometry_are_gaps():
    rs = resample(_rec(np.arange(0, 2.01, 0.25), np.arange(0.5, 1.51, 0.1)))
    assert rs.source_index.tolist() == [-1, -1, 2, 3, 4, 5, 6, -1, -1]
    assert np.allclose(rs.pose[2:7, 0], rs.times[2:7])
