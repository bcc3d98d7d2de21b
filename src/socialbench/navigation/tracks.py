"""Pedestrian tracks and robot paths, in the robot frame of a sample's first frame.

Coordinates follow the SocialNav-SUB release (reference §a): ``x`` is metres *forward* and
``y`` metres to the *left* of the robot at the sample's first frame F0 (the "initial robot
frame"). Timesteps are 0..9 for frames F0..F0+9 (4 Hz, so 0.25 s apart).

The on-disk format is ``<S>_localized_obj_coords.json``::

    {"track_id_to_object_trajectory": {
        "<tracker id>": [{"center_x": .., "center_y": .., "yaw": .., "timestep": 0,
                          "bbox": [x1, y1, x2, y2], "pos_diff": ..}, ...], ...}}

``yaw`` in the file is ignored (the official code recomputes it from successive positions,
and so does :meth:`PersonTrack.heading`). ``pos_diff`` is only used to decide whether to
draw a heading arrow in the BEV.

Which people a sample shows, and their numbers, follow the official prompt builder
(reference §c): :func:`keep_track` is its keep-filter and :func:`assign_labels` numbers the
kept tracks 1..N by the left edge (x1) of their first bounding box, left to right.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.errors import DataError, Problem
from socialbench.files.safe_read import file_kind, read_json

#: Frames per SocialNav-SUB sample.
N_FRAMES = 10
#: Seconds between frames (4 Hz, seed §3.1).
FRAME_DT = 0.25
#: ``pos_diff`` above which the BEV draws a person's heading arrow (official value).
ARROW_POS_DIFF = 0.075

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Observation:
    """One person at one timestep."""

    timestep: int
    x: float  # metres forward, initial robot frame
    y: float  # metres left, initial robot frame
    bbox: BBox | None = None  # [x1, y1, x2, y2] pixels in the raw frame
    pos_diff: float = 0.0  # displacement magnitude since the previous observation (m)

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)

    @property
    def bbox_center(self) -> tuple[float, float] | None:
        if self.bbox is None:
            return None
        x1, y1, x2, y2 = self.bbox
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)


@dataclass(frozen=True)
class PersonTrack:
    """All observations of one tracked person, sorted by timestep, one per timestep."""

    track_id: str
    observations: tuple[Observation, ...]

    def __post_init__(self) -> None:
        steps = [o.timestep for o in self.observations]
        if steps != sorted(set(steps)):
            raise ValueError(
                f"track {self.track_id!r}: observations must have strictly increasing timesteps, got {steps}"
            )

    @property
    def timesteps(self) -> tuple[int, ...]:
        return tuple(o.timestep for o in self.observations)

    @property
    def first(self) -> Observation:
        return self.observations[0]

    @property
    def last(self) -> Observation:
        return self.observations[-1]

    def at(self, timestep: int) -> Observation | None:
        """The observation at ``timestep``, or ``None`` if the person was not seen then."""
        for o in self.observations:
            if o.timestep == timestep:
                return o
        return None

    def positions(self) -> np.ndarray:
        """``(len(observations), 2)`` array of (x, y) in observation order."""
        return np.array([[o.x, o.y] for o in self.observations], dtype=float).reshape(-1, 2)

    def dense_positions(self, n_frames: int = N_FRAMES) -> np.ndarray:
        """``(n_frames, 2)`` array with NaN rows at timesteps where the person is unseen."""
        out = np.full((n_frames, 2), np.nan)
        for o in self.observations:
            if 0 <= o.timestep < n_frames:
                out[o.timestep] = (o.x, o.y)
        return out

    def heading(self, timestep: int) -> float | None:
        """Direction of motion (radians, 0 = forward, positive = to the left) at ``timestep``.

        Computed from the displacement to the next observation, or from the previous one at
        the last observation; 0.0 for a track seen once (as the official code does);
        ``None`` if the person is not seen at ``timestep``.
        """
        idx = next((i for i, o in enumerate(self.observations) if o.timestep == timestep), None)
        if idx is None:
            return None
        if len(self.observations) == 1:
            return 0.0
        if idx + 1 < len(self.observations):
            a, b = self.observations[idx], self.observations[idx + 1]
        else:
            a, b = self.observations[idx - 1], self.observations[idx]
        return math.atan2(b.y - a.y, b.x - a.x)

    def with_positions(self, xy: np.ndarray) -> PersonTrack:
        """A copy with new (x, y) per observation; ``pos_diff`` is recomputed from them."""
        xy = np.asarray(xy, dtype=float)
        if xy.shape != (len(self.observations), 2):
            raise ValueError(
                f"track {self.track_id!r}: expected positions of shape ({len(self.observations)}, 2), got {xy.shape}"
            )
        obs = []
        for i, o in enumerate(self.observations):
            diff = 0.0 if i == 0 else float(np.hypot(*(xy[i] - xy[i - 1])))
            obs.append(replace(o, x=float(xy[i, 0]), y=float(xy[i, 1]), pos_diff=diff))
        return PersonTrack(self.track_id, tuple(obs))


@dataclass(frozen=True, eq=False, init=False)
class RobotPath:
    """Robot poses per timestep in the initial robot frame.

    ``yaw`` is the robot's orientation (from odometry): the direction the camera looks.
    ``heading`` is the direction of the arrow drawn in the BEV; the official renderer
    points it at a later waypoint (see :func:`socialbench.navigation.frames.waypoint_headings`).
    It defaults to ``yaw``.
    """

    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    heading: np.ndarray

    def __init__(self, x: np.ndarray, y: np.ndarray, yaw: np.ndarray, heading: np.ndarray | None = None) -> None:
        # A hand-written __init__ because ``heading`` is optional to the caller but always
        # set on the instance (a copy of ``yaw`` when not given).
        x = np.asarray(x, dtype=float).reshape(-1)
        y = np.asarray(y, dtype=float).reshape(-1)
        yaw = np.asarray(yaw, dtype=float).reshape(-1)
        heading = yaw.copy() if heading is None else np.asarray(heading, float).reshape(-1)
        if not (len(x) == len(y) == len(yaw) == len(heading)) or len(x) == 0:
            raise ValueError(
                f"RobotPath: x, y, yaw, heading must be non-empty and of equal length, got "
                f"{len(x)}, {len(y)}, {len(yaw)}, {len(heading)}"
            )
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "yaw", yaw)
        object.__setattr__(self, "heading", heading)

    def __len__(self) -> int:
        return len(self.x)

    def pose(self, t: int) -> tuple[float, float, float]:
        """(x, y, yaw) at timestep ``t``."""
        return (float(self.x[t]), float(self.y[t]), float(self.yaw[t]))

    def xy(self) -> np.ndarray:
        return np.stack([self.x, self.y], axis=1)

    @classmethod
    def stationary(cls, n_frames: int = N_FRAMES) -> RobotPath:
        """A robot standing at the origin facing forward for ``n_frames`` timesteps."""
        z = np.zeros(n_frames)
        return cls(z, z.copy(), z.copy())


# --------------------------------------------------------------------------- loading


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:  # an int too large for a float
        return None
    return f if math.isfinite(f) else None


def parse_tracks(data: Any, source: str = "<tracks>") -> dict[str, PersonTrack]:
    """Build tracks from the parsed JSON object; raises :class:`DataError` listing every
    malformed entry. A repeated timestep within a track keeps the last observation."""
    top = "track_id_to_object_trajectory"
    if not isinstance(data, Mapping) or not isinstance(data.get(top), Mapping):
        raise DataError.single(
            source,
            top,
            "missing or not an object",
            f'the file must be {{"{top}": {{"<track id>": [observations...]}}}}',
        )
    problems: list[Problem] = []
    tracks: dict[str, PersonTrack] = {}
    for tid, obs_list in data[top].items():
        where = f"{top}.{tid}"
        if not isinstance(obs_list, list):
            problems.append(Problem(source, where, "must be a list of observations"))
            continue
        by_step: dict[int, Observation] = {}
        for k, o in enumerate(obs_list):
            f = f"{where}[{k}]"
            if not isinstance(o, Mapping):
                problems.append(Problem(source, f, "observation must be an object"))
                continue
            x, y = _num(o.get("center_x")), _num(o.get("center_y"))
            ts = o.get("timestep")
            if x is None or y is None:
                problems.append(
                    Problem(
                        source,
                        f,
                        "center_x / center_y must be finite numbers",
                        "give metres forward / left in the initial robot frame",
                    )
                )
                continue
            if isinstance(ts, bool) or not isinstance(ts, (int, float)) or _num(ts) is None or int(ts) != ts or ts < 0:
                problems.append(Problem(source, f + ".timestep", f"must be an integer >= 0, got {ts!r}"))
                continue
            bbox_raw = o.get("bbox")
            bbox: BBox | None = None
            if bbox_raw is not None:
                vals = [_num(b) for b in bbox_raw] if isinstance(bbox_raw, list) else []
                if len(vals) != 4 or any(v is None for v in vals):
                    problems.append(Problem(source, f + ".bbox", "must be [x1, y1, x2, y2] numbers"))
                    continue
                bbox = tuple(vals)  # type: ignore[assignment]
            pd = _num(o.get("pos_diff"))
            by_step[int(ts)] = Observation(int(ts), x, y, bbox, pd if pd is not None else 0.0)
        if by_step:
            tracks[str(tid)] = PersonTrack(str(tid), tuple(by_step[s] for s in sorted(by_step)))
    if problems:
        raise DataError(problems)
    return tracks


def load_tracks(path: str | Path) -> dict[str, PersonTrack]:
    """Read ``<S>_localized_obj_coords.json``; tracks keyed by tracker id, in file order."""
    p = Path(path)
    if file_kind(p) == "missing":
        raise DataError.single(p, "", "tracks file not found", "check the sample's prompts/<S>/ folder")
    return parse_tracks(read_json(p), str(p))  # regular files only; strict JSON


def tracks_to_json(tracks: Iterable[PersonTrack]) -> dict[str, Any]:
    """The release's JSON object for ``tracks`` (inverse of :func:`parse_tracks`).

    ``yaw`` is written as the recomputed direction of motion."""
    out: dict[str, list[dict[str, Any]]] = {}
    for tr in tracks:
        rows = []
        for o in tr.observations:
            rows.append(
                {
                    "center_x": o.x,
                    "center_y": o.y,
                    "yaw": tr.heading(o.timestep),
                    "timestep": o.timestep,
                    "bbox": list(o.bbox) if o.bbox is not None else None,
                    "pos_diff": o.pos_diff,
                }
            )
        out[tr.track_id] = rows
    return {"track_id_to_object_trajectory": out}


def write_tracks(path: str | Path, tracks: Iterable[PersonTrack]) -> None:
    """Write ``tracks`` in the release format (sorted keys, 2-space indent: stable bytes)."""
    Path(path).write_text(json.dumps(tracks_to_json(tracks), indent=2, sort_keys=True) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- selection


def keep_track(track: PersonTrack, n_frames: int = N_FRAMES) -> bool:
    """The official keep-filter (reference §c).

    Kept if (-5 <= min y <= 5 and 0 <= min x <= 10 and seen in >= n_frames // 3 timesteps)
    or (-3 <= min y <= 3 and 0 <= min x <= 5). ``min x`` / ``min y`` are minima over the
    track (not distances), as in the official code.
    """
    xs = [o.x for o in track.observations]
    ys = [o.y for o in track.observations]
    if not xs:
        return False
    mx, my = min(xs), min(ys)
    wide = -5.0 <= my <= 5.0 and 0.0 <= mx <= 10.0 and len(xs) >= n_frames // 3
    near = -3.0 <= my <= 3.0 and 0.0 <= mx <= 5.0
    return wide or near


def filter_tracks(tracks: Mapping[str, PersonTrack], n_frames: int = N_FRAMES) -> dict[str, PersonTrack]:
    """The tracks that pass :func:`keep_track`, in their original order."""
    return {tid: tr for tid, tr in tracks.items() if keep_track(tr, n_frames)}


def assign_labels(tracks: Mapping[str, PersonTrack]) -> dict[str, int]:
    """Person numbers 1..N by the x1 of each track's first bounding box, left to right.

    Ties keep the tracks' order in ``tracks``; tracks whose first observation has no bbox
    come last. Pass the *kept* tracks (:func:`filter_tracks`).
    """

    def key(item: tuple[int, PersonTrack]) -> tuple[float, int]:
        idx, tr = item
        bbox = tr.first.bbox
        return (bbox[0] if bbox is not None else math.inf, idx)

    order = sorted(enumerate(tracks.values()), key=key)
    return {tr.track_id: n for n, (_, tr) in enumerate(order, start=1)}


def label_people(tracks: Mapping[str, PersonTrack], n_frames: int = N_FRAMES) -> dict[int, PersonTrack]:
    """Filter with :func:`keep_track`, number with :func:`assign_labels`: ``{label: track}``
    sorted by label. These are the "person i" of the questions."""
    kept = filter_tracks(tracks, n_frames)
    labels = assign_labels(kept)
    return {labels[tid]: kept[tid] for tid in sorted(kept, key=lambda t: labels[t])}


def positions_at(people: Mapping[int, PersonTrack], timestep: int) -> dict[int, tuple[float, float]]:
    """``{label: (x, y)}`` of the people seen at ``timestep``."""
    out: dict[int, tuple[float, float]] = {}
    for label, tr in people.items():
        o = tr.at(timestep)
        if o is not None:
            out[label] = o.xy
    return out


def make_track(
    track_id: str,
    xy: Sequence[Sequence[float]],
    timesteps: Sequence[int] | None = None,
    bboxes: Sequence[BBox | None] | None = None,
) -> PersonTrack:
    """Convenience constructor: positions (and optional timesteps / bboxes) -> track with
    ``pos_diff`` computed from the positions."""
    xy_arr = np.asarray(xy, dtype=float).reshape(-1, 2)
    steps = list(range(len(xy_arr))) if timesteps is None else [int(t) for t in timesteps]
    boxes = [None] * len(xy_arr) if bboxes is None else list(bboxes)
    if not (len(steps) == len(xy_arr) == len(boxes)):
        raise ValueError("make_track: xy, timesteps and bboxes must have the same length")
    obs = tuple(Observation(t, float(p[0]), float(p[1]), b) for t, p, b in zip(steps, xy_arr, boxes))
    return PersonTrack(track_id, obs).with_positions(xy_arr)
