"""Rauch-Tung-Striebel (Kalman) smoothing of 2-D pedestrian positions.

The SocialNav-SUB pipeline Kalman-smooths PHALP's per-frame 3-D estimates (seed §3.2,
§7.3). socialbench does the same with pykalman (optional extra ``nav``), using a
constant-velocity model per axis:

* state ``[x, y, vx, vy]``; transition ``x' = x + vx·dt`` (``dt`` = 0.25 s at 4 Hz);
* process noise: piecewise-constant white acceleration with standard deviation
  ``accel_std`` (m/s²), i.e. per axis ``Q = accel_std² · g gᵀ`` with ``g = [dt²/2, dt]``;
* measurement: position only, independent noise of ``measurement_std`` (m) per axis;
* prior: the first observed position with ``measurement_std``, velocity 0 with
  ``initial_velocity_std`` (m/s).

Defaults, chosen, not fitted (the paper's tuned values are not published):
``measurement_std`` 0.5 m (seed §7.3 reports 0.67 m ADE after smoothing), ``accel_std`` 1.0
m/s² (walkers change speed gently over 0.25 s), ``initial_velocity_std`` 1.5 m/s (brisk
walking). Missing timesteps (NaN rows) are masked observations the motion model bridges.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from socialbench.errors import UsageError
from socialbench.navigation.tracks import FRAME_DT, Observation, PersonTrack

K = TypeVar("K")


@dataclass(frozen=True)
class KalmanParams:
    """Noise parameters of the constant-velocity model (see the module docstring)."""

    dt: float = FRAME_DT
    measurement_std: float = 0.5
    accel_std: float = 1.0
    initial_velocity_std: float = 1.5

    def matrices(self) -> dict[str, np.ndarray]:
        """F, H, Q, R for the state ``[x, y, vx, vy]``."""
        dt = self.dt
        F = np.array([[1, 0, dt, 0], [0, 1, 0, dt], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)
        H = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=float)
        g = np.array([dt * dt / 2.0, dt])
        q1 = self.accel_std**2 * np.outer(g, g)  # for (p, v) of one axis
        Q = np.zeros((4, 4))
        for axis in (0, 1):
            idx = [axis, axis + 2]
            Q[np.ix_(idx, idx)] = q1
        R = np.eye(2) * self.measurement_std**2
        return {"F": F, "H": H, "Q": Q, "R": R}


@dataclass(frozen=True, eq=False)
class Smoothed:
    """Smoothed positions and velocities, one row per input row."""

    positions: np.ndarray  # (T, 2)
    velocities: np.ndarray  # (T, 2)


# pykalman is an optional extra without type information: its class stays Any
def _kalman_filter_class() -> Any:
    try:
        from pykalman import KalmanFilter
    except ImportError:  # pragma: no cover - depends on the environment
        raise UsageError(
            "track smoothing needs pykalman: pip install 'socialbench[nav]' (or pip install pykalman)"
        ) from None
    return KalmanFilter


def smooth_positions(positions: npt.ArrayLike, params: KalmanParams = KalmanParams()) -> Smoothed:
    """RTS-smooth ``(T, 2)`` positions; rows with NaN are treated as missing.

    Raises ``ValueError`` if no row is observed.
    """
    z = np.asarray(positions, dtype=float)
    if z.ndim != 2 or z.shape[1] != 2:
        raise ValueError(f"smooth_positions: expected shape (T, 2), got {z.shape}")
    missing = ~np.isfinite(z).all(axis=1)
    if missing.all():
        raise ValueError("smooth_positions: no observed position")
    if len(z) == 1:  # one observation: nothing to smooth (pykalman needs two rows)
        return Smoothed(z.copy(), np.zeros_like(z))
    m = params.matrices()
    first = z[np.argmax(~missing)]
    P0 = np.diag([params.measurement_std**2] * 2 + [params.initial_velocity_std**2] * 2)
    kf = _kalman_filter_class()(
        transition_matrices=m["F"],
        observation_matrices=m["H"],
        transition_covariance=m["Q"],
        observation_covariance=m["R"],
        initial_state_mean=np.array([first[0], first[1], 0.0, 0.0]),
        initial_state_covariance=P0,
    )
    obs = np.ma.masked_array(np.where(missing[:, None], 0.0, z), mask=np.repeat(missing[:, None], 2, axis=1))
    means, _ = kf.smooth(obs)
    return Smoothed(np.asarray(means[:, :2]), np.asarray(means[:, 2:]))


def smooth_track(track: PersonTrack, params: KalmanParams = KalmanParams(), fill_gaps: bool = False) -> PersonTrack:
    """Smooth one track over its timesteps (gaps bridged by the model).

    Returns the observed timesteps with smoothed positions; with ``fill_gaps`` the interior
    gaps get observations too (no bbox, so the front view does not draw them).
    ``pos_diff`` is recomputed from the new positions.
    """
    t0, t1 = track.first.timestep, track.last.timestep
    dense = np.full((t1 - t0 + 1, 2), np.nan)
    for o in track.observations:
        dense[o.timestep - t0] = (o.x, o.y)
    sm = smooth_positions(dense, params).positions
    if not fill_gaps:
        xy = np.array([sm[o.timestep - t0] for o in track.observations])
        return track.with_positions(xy)
    by_step = {o.timestep: o for o in track.observations}
    obs = tuple(by_step.get(t, Observation(t, 0.0, 0.0)) for t in range(t0, t1 + 1))
    return PersonTrack(track.track_id, obs).with_positions(sm)


def smooth_tracks(
    tracks: Mapping[K, PersonTrack], params: KalmanParams = KalmanParams(), fill_gaps: bool = False
) -> dict[K, PersonTrack]:
    """:func:`smooth_track` for every track, keeping the keys."""
    return {k: smooth_track(tr, params, fill_gaps) for k, tr in tracks.items()}


__all__ = ["KalmanParams", "Smoothed", "smooth_positions", "smooth_track", "smooth_tracks"]
