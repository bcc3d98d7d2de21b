"""Scenario mining (App. 7.2): slide windows of 10 frames at 4 Hz (2.5 s) plus the 8 later
frames the waypoint task needs, score each by a weighted linear sum of crowd size, people in
close proximity and the robot's lateral movement, keep the top N that do not overlap.

The features are computed on the lifted, unsmoothed positions in each window's first robot
frame (smoothing every candidate window would cost a Kalman pass per window and track);
the chosen windows are smoothed afterwards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from socialbench.construction.socialnav.lifting import WorldObs
from socialbench.navigation.frames import Pose2D, world_to_local
from socialbench.navigation.track_labels import keep_track
from socialbench.navigation.tracks import N_FRAMES, Observation, PersonTrack
from socialbench.simulation.visibility import CLOSE_M, SCORE_WEIGHTS

__all__ = ["MiningOptions", "Window", "window_tracks", "mine_windows", "TAIL_FRAMES", "SPAN"]

TAIL_FRAMES = 8
SPAN = N_FRAMES + TAIL_FRAMES


@dataclass(frozen=True)
class MiningOptions:
    """Weights of the score (``crowd_size``, ``n_close``, ``lateral_motion_m``; defaults are
    the simulator's :data:`SCORE_WEIGHTS`), the proximity radius, the most scenarios kept and
    the fewest labelled people a scenario needs."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(SCORE_WEIGHTS))
    close_m: float = CLOSE_M
    max_scenarios: int = 60
    min_people: int = 1


@dataclass(frozen=True)
class Window:
    start: int  # first tick
    features: dict[str, float]
    score: float


def window_tracks(obs: Mapping[str, Sequence[WorldObs]], start: int, origin: Pose2D) -> dict[str, PersonTrack]:
    """Observations of ticks start..start+9 in the robot frame ``origin``, per track id."""
    out: dict[str, PersonTrack] = {}
    for tid, seq in obs.items():
        sel = [o for o in seq if start <= o.tick < start + N_FRAMES]
        if not sel:
            continue
        xy = world_to_local(np.array([(o.x, o.y) for o in sel]), origin)
        out[tid] = PersonTrack(
            tid, tuple(Observation(o.tick - start, float(p[0]), float(p[1]), o.bbox) for o, p in zip(sel, xy))
        )
    return out


def _features(tracks: Mapping[str, PersonTrack], robot_local: np.ndarray, close_m: float) -> dict[str, float]:
    kept = [tr for tr in tracks.values() if keep_track(tr)]
    close = 0
    for tr in kept:
        d = [
            float(np.hypot(o.x - robot_local[o.timestep, 0], o.y - robot_local[o.timestep, 1])) for o in tr.observations
        ]
        close += bool(min(d) <= close_m)
    return {
        "crowd_size": float(len(kept)),
        "n_close": float(close),
        "lateral_motion_m": round(float(np.abs(robot_local[:N_FRAMES, 1]).max()), 3),
    }


def mine_windows(
    obs: Mapping[str, Sequence[WorldObs]], pose: np.ndarray, valid: np.ndarray, opts: MiningOptions
) -> tuple[list[Window], int]:
    """The chosen windows (by decreasing score; ties: earlier first) and the number of
    candidate windows scored. ``pose`` (K, 3) world poses per tick; ``valid`` (K,) ticks with
    a frame. A candidate needs all its :data:`SPAN` ticks valid."""
    k = len(pose)
    by_tick: dict[int, list[str]] = {}
    for tid, seq in obs.items():
        for o in seq:
            by_tick.setdefault(o.tick, []).append(tid)
    ok = np.asarray(valid, dtype=bool)
    cands: list[Window] = []
    for s in range(0, k - SPAN + 1):
        if not ok[s : s + SPAN].all():
            continue
        origin = Pose2D(float(pose[s, 0]), float(pose[s, 1]), float(pose[s, 2]))
        ids = {t for tick in range(s, s + N_FRAMES) for t in by_tick.get(tick, [])}
        tracks = window_tracks({t: obs[t] for t in ids}, s, origin)
        robot_local = world_to_local(pose[s : s + SPAN, :2], origin)
        f = _features(tracks, robot_local, opts.close_m)
        if f["crowd_size"] < opts.min_people:
            continue
        score = sum(float(opts.weights.get(name, 0.0)) * v for name, v in f.items())
        cands.append(Window(s, f, round(score, 4)))
    chosen: list[Window] = []
    taken = np.zeros(k, dtype=bool)
    for w in sorted(cands, key=lambda w: (-w.score, w.start)):
        if len(chosen) >= opts.max_scenarios:
            break
        if taken[w.start : w.start + SPAN].any():
            continue
        taken[w.start : w.start + SPAN] = True
        chosen.append(w)
    return chosen, len(cands)
