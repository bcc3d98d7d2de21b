"""Candidate waypoints: the operators' own moves, re-expressed in each robot's motion frame.

Positions are metres in the robot frame at the clip's **last** frame (x forward, y left). A
sample's *move* is its odometry position :data:`HORIZON_FRAMES` frames (2 s at 4 Hz) after
the clip (``traj_data.pkl`` index ``first_frame + 9 + HORIZON_FRAMES``): its right answer.

The robot's own motion is in the clip (its speed and turn over the last second), and it
predicts the move well: any candidate set in which the right one is simply "where the robot
was going" lets a rule that looks at no person win. So each sample's move is first written
in its **motion frame** (:func:`motion_frame`): rotated by the direction the robot was
travelling in over the clip's last second (plus :data:`TURN_GAIN` × its yaw rate × 2 s) and
divided by the distance that speed covers in 2 s (a robot slower than :data:`STILL_SPEED`
keeps the robot frame, unscaled). The samples are partitioned into groups of
:data:`N_CANDIDATES`; every member is offered the group's moves mapped from the motion frame
into *its own* robot frame, its own being right. A rule that only compares the candidates
with the robot's own past motion (recent speed × horizon, the velocity's direction, nearest,
farthest, closest to the candidates' mean, ...) sees the same five points in every member's
motion frame, picks the same one for all and is right exactly once per group: 1 / 5. The gold
letters are a seeded permutation of A-E over the members, so "answer A" scores 1 / 5 too.
A group is valid when its members are all moving or all still, their motion scales differ by
at most :data:`MAX_SCALE_RATIO`, and any two of its moves, mapped into the frame of either of
the two samples, are at least :data:`MIN_SPACING_M` apart (so at least
``MIN_SPACING_M / MAX_SCALE_RATIO`` apart in any member's frame). The people are not consulted at all: which
candidate passes the people well is the question.

Groups come from a seeded greedy search (most-constrained sample first, most-constrained
partner next, :data:`PARTITION_TRIES` restarts, the partition that keeps the most samples),
then a second pass over the samples left over that lets moving and still samples mix; a sample that fits
no group is left out and counted. The partition depends only on the dataset (every sample of
the folder, whatever ``--limit`` says). The README's "Waypoint selection" section gives the
rationale and the measured floor (``scripts/waypoint_floor.py``).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from socialbench.errors import DataError

if TYPE_CHECKING:
    from socialbench.navigation.projection import PinholeCamera
    from socialbench.navigation.tracks import PersonTrack, RobotPath

__all__ = [
    "HORIZON_FRAMES",
    "FRAME_RATE_HZ",
    "N_CANDIDATES",
    "MIN_SPACING_M",
    "STILL_SPEED",
    "TURN_GAIN",
    "MAX_SCALE_RATIO",
    "PARTITION_TRIES",
    "LETTERS",
    "Candidate",
    "CandidateJson",
    "WaypointsJson",
    "Candidates",
    "Move",
    "Grouping",
    "MotionFrame",
    "motion_frame",
    "recent_motion",
    "future_position",
    "group_candidates",
    "people_at_last_frame",
    "to_last_frame",
]

#: Frames from the clip's last frame to the right answer: 2 s at SocialNav-SUB's 4 Hz.
HORIZON_FRAMES = 8
FRAME_RATE_HZ = 4.0
#: Candidates per sample (the right one and four alternatives), labelled A-E.
N_CANDIDATES = 5
#: Candidates at least this far apart in the frames of the two samples whose moves they are
#: (0.5 m left only a quarter of the bundled scenes a group: their robots mostly keep going).
MIN_SPACING_M = 0.35
#: Below this speed (m/s over the clip's last second) a robot counts as still: its motion
#: frame is its robot frame, unscaled.
STILL_SPEED = 0.2
#: How much of the yaw rate over the clip's last second turns the motion frame (× 2 s): the
#: least-squares fit of a move's bearing to that yaw rate on 600 simulated scenes (seeds 0-2),
#: 0.41, where constant-turn extrapolation would give 0.5.
TURN_GAIN = 0.41
MAX_SCALE_RATIO = 2.0
#: The partition passes: with every rule of a group (True), then only the spacing rule (False).
PASSES = (True, False)
PARTITION_TRIES = 32
LETTERS = "ABCDEFGH"


class CandidateJson(TypedDict):
    """One candidate in the ``waypoints`` record (:meth:`Candidates.to_json`)."""

    label: str
    x: float
    y: float
    pixel: list[float] | None
    gold: bool
    source: str


class RobotMotionJson(TypedDict):
    """The robot's own motion over the clip's last second (robot frame at the last frame)."""

    velocity: list[float]  # m/s, [forward, left]
    yaw_rate: float  # rad/s, left positive


class WaypointsJson(TypedDict):
    """The ``waypoints`` record of an item and of each sample record (:meth:`Candidates.to_json`)."""

    answer: str
    horizon_frames: int
    goal: list[float] | None
    robot: RobotMotionJson | None
    candidates: list[CandidateJson]


@dataclass(frozen=True)
class Candidate:
    label: str
    x: float  # metres forward of the robot at the last frame
    y: float  # metres left
    source: str = ""  # the sample whose move this is
    pixel: tuple[float, float] | None = None  # front-view (u, v) at native resolution; None when not in view


@dataclass(frozen=True)
class Candidates:
    """The candidates of one item and the label of the actual future position."""

    items: tuple[Candidate, ...]
    answer: str
    goal: tuple[float, float] | None = None  # the goal in the same frame, when the sample has one
    velocity: tuple[float, float] | None = None  # the robot's, m/s over the clip's last second
    yaw_rate: float | None = None  # rad/s over the clip's last second

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.items)

    def to_json(self) -> WaypointsJson:
        """What the item metadata and each sample record carry (pixel: native front-view px)."""
        return {
            "answer": self.answer,
            "horizon_frames": HORIZON_FRAMES,
            "goal": None if self.goal is None else [round(self.goal[0], 4), round(self.goal[1], 4)],
            "robot": (
                None
                if self.velocity is None
                else {
                    "velocity": [round(self.velocity[0], 4), round(self.velocity[1], 4)],
                    "yaw_rate": round(self.yaw_rate or 0.0, 4),
                }
            ),
            "candidates": [
                {
                    "label": c.label,
                    "x": round(c.x, 4),
                    "y": round(c.y, 4),
                    "pixel": None if c.pixel is None else [round(c.pixel[0], 1), round(c.pixel[1], 1)],
                    "gold": c.label == self.answer,
                    "source": c.source,
                }
                for c in self.items
            ],
        }


@dataclass(frozen=True)
class Move:
    """One sample's move and what the filters need, all in its robot frame at the last frame."""

    item_id: str
    future: tuple[float, float]
    people: tuple[tuple[float, float], ...] = ()
    goal: tuple[float, float] | None = None
    velocity: tuple[float, float] = (0.0, 0.0)  # m/s over the clip's last second
    yaw_rate: float = 0.0  # rad/s over the clip's last second


@dataclass(frozen=True)
class MotionFrame:
    """A sample's motion frame (see the module docstring): robot-frame point = origin-free
    similarity ``scale * R(angle) @ p`` of motion-frame point ``p``."""

    angle: float
    scale: float
    moving: bool

    def to_robot(self, p: tuple[float, float]) -> tuple[float, float]:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return (self.scale * (c * p[0] - s * p[1]), self.scale * (s * p[0] + c * p[1]))

    def from_robot(self, p: tuple[float, float]) -> tuple[float, float]:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return ((c * p[0] + s * p[1]) / self.scale, (-s * p[0] + c * p[1]) / self.scale)


def motion_frame(move: Move) -> MotionFrame:
    """The motion frame of ``move`` (see the module docstring)."""
    vx, vy = move.velocity
    speed = math.hypot(vx, vy)
    if speed < STILL_SPEED:
        return MotionFrame(0.0, 1.0, False)
    horizon_s = HORIZON_FRAMES / FRAME_RATE_HZ
    return MotionFrame(math.atan2(vy, vx) + TURN_GAIN * move.yaw_rate * horizon_s, speed * horizon_s, True)


def recent_motion(
    positions: np.ndarray, yaws: np.ndarray, last_index: int, frames: int = int(FRAME_RATE_HZ)
) -> tuple[tuple[float, float], float]:
    """The robot's velocity (m/s, robot frame at ``last_index``) and yaw rate (rad/s) over the
    ``frames`` frames up to ``last_index`` (one second at 4 Hz; fewer when the odometry starts later)."""
    back = min(frames, last_index)
    if back <= 0:
        return (0.0, 0.0), 0.0
    dt = back / FRAME_RATE_HZ
    dx, dy = positions[last_index] - positions[last_index - back]
    c, s = math.cos(float(yaws[last_index])), math.sin(float(yaws[last_index]))
    velocity = (float(c * dx + s * dy) / dt, float(-s * dx + c * dy) / dt)
    turn = math.remainder(float(yaws[last_index]) - float(yaws[last_index - back]), 2 * math.pi) / dt
    return velocity, turn


@dataclass(frozen=True)
class Grouping:
    """The candidates of every sample that got a group, and why each other one has none."""

    candidates: dict[str, Candidates]
    left_out: dict[str, str]
    groups: tuple[tuple[str, ...], ...]


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


def _rng(*parts: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256("\0".join(("waypoints", *parts)).encode()).digest()[:8], "big"))


def _compatible(moves: Sequence[Move], frames: Sequence[MotionFrame], strict: bool) -> np.ndarray:
    """``ok[i, j]``: samples i and j may share a group (see the module docstring); without
    ``strict``, moving and still samples may mix."""
    n = len(moves)
    ok = np.zeros((n, n), dtype=bool)
    local = [f.from_robot(m.future) for m, f in zip(moves, frames)]
    for i in range(n):
        for j in range(i + 1, n):
            fi, fj = frames[i], frames[j]
            d = math.dist(local[i], local[j]) * min(fi.scale, fj.scale)
            scales_fit = max(fi.scale, fj.scale) <= MAX_SCALE_RATIO * min(fi.scale, fj.scale)
            ok[i, j] = ok[j, i] = d >= MIN_SPACING_M and scales_fit and (fi.moving == fj.moving or not strict)
    return ok


def _partition(ok: np.ndarray, size: int, rng: random.Random) -> list[list[int]]:
    """Disjoint groups of ``size`` mutually compatible indices: the hardest sample to place
    first, each partner the hardest of those still compatible with the whole group."""
    n = len(ok)
    degree = ok.sum(axis=1)
    noise = [rng.random() for _ in range(n)]
    free = set(range(n))
    groups: list[list[int]] = []
    for seed in sorted(range(n), key=lambda i: (degree[i], noise[i])):
        if seed not in free:
            continue
        group = [seed]
        pool = [j for j in free if j != seed and ok[seed, j]]
        while len(group) < size and pool:
            j = min(pool, key=lambda k: (int(ok[k, pool].sum()), noise[k] + rng.random() * 0.5))
            group.append(j)
            pool = [k for k in pool if k != j and ok[j, k]]
        if len(group) == size:
            groups.append(group)
            free.difference_update(group)
    return groups


def _pixel(camera: PinholeCamera | None, x: float, y: float) -> tuple[float, float] | None:
    if camera is None:
        return None
    pts = np.array([[x, y, 0.0]])
    if not bool(camera.visible(pts)[0]):
        return None
    uv, _ = camera.project(pts)
    return (float(uv[0, 0]), float(uv[0, 1]))


def _best_partition(ok: np.ndarray, tag: str) -> list[list[int]]:
    best: list[list[int]] = []
    n = len(ok)
    for attempt in range(PARTITION_TRIES):
        groups = _partition(ok, N_CANDIDATES, _rng("partition", tag, str(attempt)))
        if len(groups) > len(best):
            best = groups
        if len(best) * N_CANDIDATES > n - N_CANDIDATES:
            break  # at most N_CANDIDATES - 1 samples left over: no partition places more
    return best


def group_candidates(moves: Sequence[Move], camera: PinholeCamera | None = None) -> Grouping:
    """The candidates of every sample in ``moves`` (the whole dataset; see the module
    docstring). ``camera`` (a :class:`~socialbench.navigation.projection.PinholeCamera`)
    gives each candidate's front-view pixel."""
    usable = sorted(moves, key=lambda m: m.item_id)
    frames = [motion_frame(m) for m in usable]
    best: list[list[int]] = []
    free = list(range(len(usable)))
    for strict in PASSES:
        sub = [usable[i] for i in free]
        ok = _compatible(sub, [frames[i] for i in free], strict)
        groups = [[free[k] for k in g] for g in _best_partition(ok, "strict" if strict else "spacing")]
        best += groups
        placed = {i for g in groups for i in g}
        free = [i for i in free if i not in placed]
    left_out = {
        usable[i].item_id: (
            f"no group of {N_CANDIDATES} samples whose moves are {MIN_SPACING_M} m apart in each other's "
            "motion frames takes this sample"
        )
        for i in free
    }
    out: dict[str, Candidates] = {}
    group_ids: list[tuple[str, ...]] = []
    for g in best:
        members = sorted(g, key=lambda i: usable[i].item_id)
        ids = tuple(usable[i].item_id for i in members)
        group_ids.append(ids)
        gold_letters = list(LETTERS[:N_CANDIDATES])
        _rng("letters", *ids).shuffle(gold_letters)
        for member, gold_letter in zip(members, gold_letters):
            m = usable[member]
            others = [k for k in members if k != member]
            rest = [c for c in LETTERS[:N_CANDIDATES] if c != gold_letter]
            _rng("labels", m.item_id).shuffle(rest)
            labelled = [(gold_letter, member)] + list(zip(rest, others))
            items = []
            for label, k in sorted(labelled):
                p = frames[member].to_robot(frames[k].from_robot(usable[k].future))
                items.append(Candidate(label, p[0], p[1], usable[k].item_id, _pixel(camera, *p)))
            out[m.item_id] = Candidates(tuple(items), gold_letter, m.goal, m.velocity, m.yaw_rate)
    return Grouping(out, left_out, tuple(group_ids))


def people_at_last_frame(tracks: Mapping[int, PersonTrack], robot: RobotPath) -> list[tuple[float, float]]:
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


def to_last_frame(point: tuple[float, float] | None, robot: RobotPath) -> tuple[float, float] | None:
    """A point of the initial robot frame (the goal) in the robot frame at the last timestep."""
    if point is None:
        return None
    from socialbench.navigation.relations import relative

    return relative(point, robot, len(robot) - 1)
