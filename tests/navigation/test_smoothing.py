"""Kalman (RTS) smoothing of noisy pedestrian tracks."""

import numpy as np
import pytest

pytest.importorskip("pykalman")

from socialbench.navigation.smoothing import KalmanParams, smooth_positions, smooth_track  # noqa: E402
from socialbench.navigation.tracks import make_track  # noqa: E402


def _walk(n=40, dt=0.25):
    t = np.arange(n) * dt
    return np.stack([2.0 + 1.2 * t, 3.0 - 0.8 * t], axis=1)


def _rmse(a, b):
    return float(np.sqrt(np.mean(np.sum((a - b) ** 2, axis=1))))


def test_smoother_reduces_error_on_noisy_constant_velocity_track():
    truth = _walk()
    rng = np.random.default_rng(1)
    noisy = truth + rng.normal(0, 0.4, truth.shape)
    smoothed = smooth_positions(noisy).positions
    assert _rmse(smoothed, truth) < 0.6 * _rmse(noisy, truth)


def test_smoother_estimates_velocity():
    truth = _walk()
    noisy = truth + np.random.default_rng(2).normal(0, 0.2, truth.shape)
    vel = smooth_positions(noisy).velocities
    assert np.mean(vel[5:-5], axis=0) == pytest.approx([1.2, -0.8], abs=0.15)


def test_smoother_bridges_missing_rows():
    truth = _walk(20)
    obs = truth + np.random.default_rng(3).normal(0, 0.1, truth.shape)
    obs[8:12] = np.nan
    out = smooth_positions(obs).positions
    assert np.isfinite(out).all()
    assert np.max(np.linalg.norm(out[8:12] - truth[8:12], axis=1)) < 0.4


def test_smooth_positions_needs_an_observation():
    with pytest.raises(ValueError, match="no observed"):
        smooth_positions(np.full((5, 2), np.nan))


def test_process_noise_is_white_acceleration():
    m = KalmanParams(dt=0.5, accel_std=2.0).matrices()
    # per axis: 4 * [[dt^4/4, dt^3/2], [dt^3/2, dt^2]]
    assert m["Q"][0, 0] == pytest.approx(4 * 0.5**4 / 4)
    assert m["Q"][0, 2] == pytest.approx(4 * 0.5**3 / 2)
    assert m["Q"][0, 1] == 0.0


def test_smooth_track_keeps_timesteps_and_recomputes_pos_diff():
    truth = _walk(10)
    noisy = truth + np.random.default_rng(4).normal(0, 0.3, truth.shape)
    steps = [0, 1, 2, 5, 6, 7, 8, 9]
    tr = make_track("p", noisy[steps], timesteps=steps, bboxes=[(0, 0, 1, 1)] * len(steps))
    sm = smooth_track(tr)
    assert sm.timesteps == tuple(steps)
    assert sm.observations[0].bbox == (0, 0, 1, 1)
    assert sm.observations[3].pos_diff == pytest.approx(np.hypot(*(sm.positions()[3] - sm.positions()[2])))
    filled = smooth_track(tr, fill_gaps=True)
    assert filled.timesteps == tuple(range(10))
    assert filled.at(3).bbox is None


def test_a_track_seen_once_is_returned_unchanged():
    from socialbench.navigation.smoothing import smooth_track
    from socialbench.navigation.tracks import make_track

    track = make_track("7", [(3.0, 1.0)], timesteps=[4])
    out = smooth_track(track)
    assert (out.observations[0].x, out.observations[0].y) == (3.0, 1.0)
