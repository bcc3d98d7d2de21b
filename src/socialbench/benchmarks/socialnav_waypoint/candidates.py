"""Candidate waypoints of one sample: the robot's actual future position and alternatives.

Frames and units
----------------
Every position is in metres in the robot frame at the clip's **last** frame (x forward, y
left): where the robot stands when it must choose. The actual future position is the
odometry position :data:`HORIZON_FRAMES` frames after the last frame of the clip
(``traj_data.pkl`` index ``first_frame + 9 + HORIZON_FRAMES``), the operator's choice.

Alternatives (documented sampling)
----------------------------------
With ``d = max(|future|, MIN_SCALE_M)`` (1.5 m), the grid is every range in ``RANGE_FACTORS x d`` times every
bearing in :data:`BEARINGS_DEG` (0 = straight ahead, positive = left). A grid point is
kept when it is

* at least :data:`MIN_SPACING_M` from the actual position and from every alternative already
  chosen (the labels must not overlap and the choice must be a real one);
* at least :data:`PERSON_CLEARANCE_M` from every person's position at the last frame (never
  inside a pedestrian);
* at least :data:`MIN_AHEAD_M` ahead of the robot.

The kept points are visited in an order drawn from SHA-256 over the item id, the first
:data:`N_ALTERNATIVES` that keep the spacing are taken, and the actual position and the
alternatives are shuffled (same seed) and labelled A, B, C, ... So an item's candidates
never depend on the run: every model and every epoch sees the same choice.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from socialbench.errors import DataError

__all__ = [
    "HORIZON_FRAMES",
    "N_ALTERNATIVES",
    "MIN_SPACING_M",
    "PERSON_CLEARANCE_M",
    "MIN_AHEAD_M",
    "RANGE_FACTORS",
    "BEARINGS_DEG",
    "MIN_SCALE_M",
    "Candidate",
    "Candidates",
    "future_position",
    "sample_candidates",
    "LETTERS",
    "people_at_last_frame",
]

HORIZON_FRAMES = 3
N_ALTERNATIVES = 4
MIN_SPACING_M = 0.6
PERSON_CLEARANCE_M = 0.6
MIN_AHEAD_M = 0.3
RANGE_FACTORS = (0.5, 1.0, 1.5)
#: The grid scale never drops below this (a robot that stops still gets spread-out choices).
MIN_SCALE_M = 1.5
BEARINGS_DEG = (-60.0, -35.0, -15.0, 0.0, 15.0, 35.0, 60.0)
LETTERS = "ABCDEFGH"


@dataclass(frozen=True)
class Candidate:
    label: str
    x: float  # metres forward of the robot at the last frame
    y: float  # metres left


@dataclass(frozen=True)
class Candidates:
    """The candidates of one item and the label of the actual future position."""

    items: tuple[Candidate, ...]
    answer: str

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.items)

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "candidates": [[c.label, round(c.x, 4), round(c.y, 4)] for c in self.items]}


def future_position(
    positions: np.ndarray,
    yaws: np.ndarray,
    last_index: int,
    horizon: int = HORIZON_FRAMES,
    source: str = "traj_data.pkl",
) -> tuple[float, float]:
    """The odometry position ``horizon`` frames after ``last_index``, in the robot frame at
    ``last_index``. Raises :class:`DataError` when the odometry ends too early."""
    target = last_index + horizon
    if last_index < 0 or target >= len(positions):
        raise DataError.single(
            source,
            "position",
            f"needs odometry index {target} ({horizon} frames after the clip) but has {len(positions)} entries",
            "give odometry that continues after the clip, or use samples whose recording does",
        )
    dx, dy = positions[target] - positions[last_index]
    c, s = math.cos(float(yaws[last_index])), math.sin(float(yaws[last_index]))
    return (float(c * dx + s * dy), float(-s * dx + c * dy))


def _rng(item_id: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(f"waypoints\0{item_id}".encode()).digest()[:8], "big"))


def sample_candidates(item_id: str, future: tuple[float, float], people: Sequence[tuple[float, float]]) -> Candidates:
    """The candidates of item ``item_id`` (see the module docstring). ``people`` are the
    persons' positions at the last frame, in the same frame as ``future``. Raises
    :class:`DataError` when fewer than two alternatives fit."""
    fx, fy = future
    d = max(math.hypot(fx, fy), MIN_SCALE_M)
    grid = [
        (r * d * math.cos(math.radians(b)), r * d * math.sin(math.radians(b)))
        for r in RANGE_FACTORS
        for b in BEARINGS_DEG
    ]

    def clear(p: tuple[float, float], others: Sequence[tuple[float, float]], spacing: float) -> bool:
        return all(math.hypot(p[0] - o[0], p[1] - o[1]) >= spacing for o in others)

    ok = [
        p
        for p in grid
        if p[0] >= MIN_AHEAD_M and clear(p, [future], MIN_SPACING_M) and clear(p, people, PERSON_CLEARANCE_M)
    ]
    rng = _rng(item_id)
    rng.shuffle(ok)
    chosen: list[tuple[float, float]] = []
    for p in ok:
        if len(chosen) == N_ALTERNATIVES:
            break
        if clear(p, chosen, MIN_SPACING_M):
            chosen.append(p)
    if len(chosen) < 2:
        raise DataError.single(
            item_id,
            "waypoints",
            "fewer than two alternative waypoints fit around the future position",
            "this sample is too crowded for the waypoint task; leave it out",
        )
    points = [future] + chosen
    order = list(range(len(points)))
    rng.shuffle(order)
    items = tuple(Candidate(LETTERS[i], float(points[k][0]), float(points[k][1])) for i, k in enumerate(order))
    return Candidates(items, LETTERS[order.index(0)])


def people_at_last_frame(tracks: Mapping[int, Any], robot: Any) -> list[tuple[float, float]]:
    """Each person's last observed position up to the last timestep, in the robot frame
    at the last timestep."""
    from socialbench.navigation.relations import relative

    last = len(robot) - 1
    out = []
    for track in tracks.values():
        seen = [o for o in track.observations if o.timestep <= last]
        if seen:
            out.append(relative((seen[-1].x, seen[-1].y), robot, last))
    return out
