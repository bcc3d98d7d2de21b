"""Candidate waypoints: the operators' own moves, dealt out so that no scene-blind rule wins.

Positions are metres in the robot frame at the clip's **last** frame (x forward, y left). A
sample's *move* is its odometry position :data:`HORIZON_FRAMES` frames (2 s at 4 Hz) after
the clip (``traj_data.pkl`` index ``first_frame + 9 + HORIZON_FRAMES``): its right answer.

The samples are partitioned into groups of :data:`N_CANDIDATES`, and every member gets the
group's moves as candidates, its own being right. A rule that sees only the points picks the
same one for all members and so scores exactly 1 / 5 on every complete group; the gold
letters are a seeded permutation of A-E over the members, so "answer A" scores 1 / 5 too.
A group is valid when its moves are pairwise at least :data:`MIN_SPACING_M` apart and each
move is at least :data:`PERSON_CLEARANCE_M` from every person of the other members at their
last frame; a sample whose own move is that close to one of its people is left out.

Groups come from a seeded greedy search (most-constrained sample first, most-constrained
partner next, :data:`PARTITION_TRIES` restarts, the partition that keeps the most samples);
a sample that fits no group is left out and counted. The partition depends only on the
dataset (every sample of the folder, whatever ``--limit`` says). The README's "Waypoint
selection" section gives the rationale.
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
    "PERSON_CLEARANCE_M",
    "PARTITION_TRIES",
    "LETTERS",
    "Candidate",
    "CandidateJson",
    "WaypointsJson",
    "Candidates",
    "Move",
    "Grouping",
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
MIN_SPACING_M = 0.5
PERSON_CLEARANCE_M = 0.5
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


class WaypointsJson(TypedDict):
    """The ``waypoints`` record of an item and of each sample record (:meth:`Candidates.to_json`)."""

    answer: str
    horizon_frames: int
    goal: list[float] | None
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

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.items)

    def to_json(self) -> WaypointsJson:
        """What the item metadata and each sample record carry (pixel: native front-view px)."""
        return {
            "answer": self.answer,
            "horizon_frames": HORIZON_FRAMES,
            "goal": None if self.goal is None else [round(self.goal[0], 4), round(self.goal[1], 4)],
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


def _clear(p: tuple[float, float], others: Sequence[tuple[float, float]], gap: float) -> bool:
    return all(math.hypot(p[0] - o[0], p[1] - o[1]) >= gap for o in others)


def _compatible(moves: Sequence[Move]) -> np.ndarray:
    """``ok[i, j]``: samples i and j may share a group (see the module docstring)."""
    n = len(moves)
    ok = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = moves[i], moves[j]
            ok[i, j] = ok[j, i] = (
                math.dist(a.future, b.future) >= MIN_SPACING_M
                and _clear(b.future, a.people, PERSON_CLEARANCE_M)
                and _clear(a.future, b.people, PERSON_CLEARANCE_M)
            )
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


def group_candidates(moves: Sequence[Move], camera: PinholeCamera | None = None) -> Grouping:
    """The candidates of every sample in ``moves`` (the whole dataset; see the module
    docstring). ``camera`` (a :class:`~socialbench.navigation.projection.PinholeCamera`)
    gives each candidate's front-view pixel."""
    left_out: dict[str, str] = {}
    usable: list[Move] = []
    for m in sorted(moves, key=lambda m: m.item_id):
        if not _clear(m.future, m.people, PERSON_CLEARANCE_M):
            left_out[m.item_id] = (
                f"the operator's waypoint is within {PERSON_CLEARANCE_M} m of a person at the last frame, "
                "where no candidate may be"
            )
        else:
            usable.append(m)
    ok = _compatible(usable)
    best: list[list[int]] = []
    for attempt in range(PARTITION_TRIES):
        groups = _partition(ok, N_CANDIDATES, _rng("partition", str(attempt)))
        if len(groups) > len(best):
            best = groups
        if len(best) * N_CANDIDATES > len(usable) - N_CANDIDATES:
            break  # at most N_CANDIDATES - 1 samples left over: no partition places more
    placed = {i for g in best for i in g}
    for i, m in enumerate(usable):
        if i not in placed:
            left_out[m.item_id] = (
                f"no group of {N_CANDIDATES} samples whose moves are {MIN_SPACING_M} m apart and clear of "
                "each other's people takes this sample"
            )
    out: dict[str, Candidates] = {}
    group_ids: list[tuple[str, ...]] = []
    for g in best:
        members = sorted((usable[i] for i in g), key=lambda m: m.item_id)
        ids = tuple(m.item_id for m in members)
        group_ids.append(ids)
        gold_letters = list(LETTERS[:N_CANDIDATES])
        _rng("letters", *ids).shuffle(gold_letters)
        for member, gold_letter in zip(members, gold_letters):
            others = [m for m in members if m is not member]
            rest = [c for c in LETTERS[:N_CANDIDATES] if c != gold_letter]
            _rng("labels", member.item_id).shuffle(rest)
            labelled = [(gold_letter, member)] + list(zip(rest, others))
            items = tuple(
                Candidate(label, m.future[0], m.future[1], m.item_id, _pixel(camera, *m.future))
                for label, m in sorted(labelled, key=lambda p: p[0])
            )
            out[member.item_id] = Candidates(items, gold_letter, member.goal)
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
