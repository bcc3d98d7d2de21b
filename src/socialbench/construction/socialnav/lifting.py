"""People on the floor: each tracker box's bottom centre lifted through the calibrated camera
(the ray's intersection with the floor), put in the world with the odometry at its frame; or
3-D tracks read directly (:mod:`socialbench.recording.tracks3d`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from socialbench.navigation.frames import Pose2D, local_to_world
from socialbench.recording.clip import Recording, Resampled
from socialbench.recording.mot import Box
from socialbench.recording.tracks3d import Point3D

__all__ = ["WorldObs", "LiftStats", "lift_boxes", "place_points", "MAX_RANGE_M"]

#: Lifted points farther than this from the robot are dropped (a box whose bottom is near
#: the horizon lifts to an unreliable, far point).
MAX_RANGE_M = 20.0


@dataclass(frozen=True)
class WorldObs:
    """One person observation at a 4 Hz tick: world position and the box (x1, y1, x2, y2)."""

    tick: int
    x: float
    y: float
    bbox: tuple[float, float, float, float] | None


@dataclass
class LiftStats:
    boxes: int = 0
    at_ticks: int = 0
    above_horizon: int = 0
    too_far: int = 0
    per_id: dict[str, int] = field(default_factory=dict)


def lift_boxes(
    rec: Recording, rs: Resampled, boxes: list[Box], max_range_m: float = MAX_RANGE_M
) -> tuple[dict[str, list[WorldObs]], LiftStats]:
    """World observations per track id, at the 4 Hz ticks whose frame carries the box."""
    tick_of = {int(i): k for k, i in enumerate(rs.source_index) if i >= 0}
    stats = LiftStats(boxes=len(boxes))
    sel = [b for b in boxes if b.frame in tick_of]
    stats.at_ticks = len(sel)
    out: dict[str, list[WorldObs]] = {}
    if not sel:
        return out, stats
    uv = np.array([b.bottom_centre for b in sel])
    local = rec.camera.lift(uv)
    for b, (lx, ly) in zip(sel, local):
        if not np.isfinite(lx):
            stats.above_horizon += 1
            continue
        if float(np.hypot(lx, ly)) > max_range_m:
            stats.too_far += 1
            continue
        k = tick_of[b.frame]
        px, py, pyaw = rs.pose[k]
        w = local_to_world(np.array([lx, ly]), Pose2D(float(px), float(py), float(pyaw)))
        out.setdefault(b.track_id, []).append(WorldObs(k, float(w[0]), float(w[1]), (b.x, b.y, b.x + b.w, b.y + b.h)))
    for tid, obs in out.items():
        stats.per_id[tid] = len(obs)
    return out, stats


def place_points(
    rs: Resampled, points: list[Point3D], robot_frame: bool
) -> tuple[dict[str, list[WorldObs]], LiftStats]:
    """Imported 3-D tracks at the 4 Hz ticks: robot-frame points moved into the world with
    the pose of their frame, world points as they are (no box: the front view shows no circle)."""
    tick_of = {int(i): k for k, i in enumerate(rs.source_index) if i >= 0}
    stats = LiftStats(boxes=len(points))
    out: dict[str, list[WorldObs]] = {}
    for p in sorted(points, key=lambda p: (p.frame, int(p.track_id))):
        k = tick_of.get(p.frame)
        if k is None:
            continue
        stats.at_ticks += 1
        x, y = p.x, p.y
        if robot_frame:
            px, py, pyaw = rs.pose[k]
            w = local_to_world(np.array([x, y]), Pose2D(float(px), float(py), float(pyaw)))
            x, y = float(w[0]), float(w[1])
        out.setdefault(p.track_id, []).append(WorldObs(k, x, y, None))
    for tid, obs in out.items():
        stats.per_id[tid] = len(obs)
    return out, stats
